"""A crashed host rebooted back into service, then an L1 switch chip on its board failing, is two incidents
(session 34, branch twin34).

Before: the twin printed nothing when the host came back, and the detector kept the crash's incident open for its
whole horizon (an hour), so the chip's port-down lines joined it as the crash's links going down again (the repeat
rule of a flapping link) and the chip's failure was scored ``wrong class (folded into i0001)``. Now the L2 chips log
their ports toward the host up when it is back (its board powered again), and an incident whose root is a whole
host's stop closes when a link of that host comes up: what the host reports next is new."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology
from opsbrain.detection import Incident
from opsbrain.ingest import Signal
from opsbrain.verdict import Diagnosis
from tests.test_fault_beside_incident import _detector
from tests.test_mass_crash import PLANES, _down, _uplink

NODE = "pod0/node35"


def test_the_l2_chips_log_a_rebooted_hosts_ports_up(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=NODE, params={}, duration_s=None))
    sim.run(300)
    sim.state.set_health(NODE, Health.HEALTHY, cause="reboot")
    sim.run(400)
    after = [ln for ln in sim.telemetry.logs if ln.t > 101]
    assert {ln.origin.split("/")[1][:7] for ln in after} == {"l2plane"}  # the node's own ends print nothing
    assert len(after) == 112 and all(ln.t == 300 and "linkDown_clear" in ln.text and "OperStatus=UP" in ln.text
                                     for ln in after)
    assert all("ifName=UB0/0/35," in ln.text for ln in after)  # each L2 chip's port toward node35


def _up(t: float, link: str) -> Signal:
    return Signal(t, "port:up", link, link.split("~")[1], 0, f"port up {link}")


def _by_dark_chips(inc: Incident) -> Diagnosis:
    """A whole node when its dark links span several L1 chips, else the one chip (the engine's rules, in short)."""
    chips = {(s.component or "").split("~")[0] for s in inc.signals if s.kind == "port:down"}
    if len(chips) > 1:
        return Diagnosis("node_crash", "pod0/node38", 0.9)
    return Diagnosis("l1_switch_failure", chips.pop(), 0.9)


CRASH = [_uplink(38, p, chip) for p in range(PLANES) for chip in (0, 5)]
CHIP = [ln for ln in CRASH if "/l1sw1~" in ln]


@pytest.mark.parametrize("back", [True, False])
def test_a_hosts_stop_closes_when_its_links_come_up(back: bool) -> None:
    sigs = [_down(600.0, ln) for ln in CRASH]
    if back:
        sigs += [_up(1326.7, ln) for ln in CRASH]
    sigs += [_down(1500.0, ln) for ln in CHIP]
    det = _detector(_by_dark_chips, reorder_s=0.0)
    det.feed(*sigs)
    det.run_until(float("inf"))
    got = [(i.diagnosis.fault_class, i.diagnosis.component, len(i.signals)) for i in det.incidents if i.diagnosis]
    if back:  # the chip's downs are an incident of their own
        assert got == [("node_crash", "pod0/node38", len(CRASH)), ("l1_switch_failure", "pod0/node38/l1sw1", 2)]
        assert det.incidents[0].closed
    else:  # no sign the host came back: the same links going down again are the crash's (a repeat)
        assert got == [("node_crash", "pod0/node38", len(CRASH) + len(CHIP))]


def test_the_chip_failing_after_the_reboot_is_diagnosed_on_its_own(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from opsbrain import chaos
    from opsbrain.scenario.loader import load_scenario
    from opsbrain.scenario.plan import build_plan

    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))
    sc, p = load_scenario("crash-then-l1-switch")
    j = chaos.run(build_plan(sc, str(p)))
    crash, chip = (i for i in j["incidents"] if i["injected"])
    assert crash["correct"] and crash["incident_ids"]
    assert chip.get("covered_by") is None and chip["incident_ids"] != crash["incident_ids"]
    assert chip["diagnosis"]["fault_class"] == "l1_switch_failure" and chip["correct"], chip["diagnosis"]
    assert j["verdict"] == "passed"
