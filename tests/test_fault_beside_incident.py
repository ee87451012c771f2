"""A new hardware fault beside an open incident whose root does not explain it is an incident of its own.

Before (a tester's D2, ``s04-uce-on-flapping-node`` / ``s04d-uce-other-link``): an HBM UCE on a node of a job whose
link was flapping joined the flap's incident (the same node, or the node a rank's crash report had added to it), was
diagnosed as the flap and never recovered on its own; the job waited for the progress watchdog (ttr 85-111 s
against ~30 s for the UCE alone)."""

from __future__ import annotations

from typing import Any

import pytest

from opsbrain.detection import Detector, DetectorParams, Incident
from opsbrain.diagnosis.knowledge import another_fault
from opsbrain.ingest import Signal
from opsbrain.verdict import Diagnosis

NODE = "pod0/node35"
OTHER = "pod0/node36"
NPU = f"{NODE}/npu3"
LINK = f"{NODE}/l1sw2~pod0/l2plane2/sw05"
OTHER_LINK = f"{OTHER}/l1sw2~pod0/l2plane2/sw05"
JOB = {"train": [f"pod0/node{n}" for n in range(32, 46)]}


def _stub_diagnosis(inc: Incident) -> Diagnosis:
    """A stand-in for the model, by the strongest evidence the incident holds (the grouping is under test)."""
    first = {s.kind: s for s in reversed(inc.signals)}
    if "dev:80E01801" in first:
        return Diagnosis("hbm_uce", f"{first['dev:80E01801'].component}/hbm", 0.95)
    if "os:panic" in first:
        return Diagnosis("node_crash", first["os:panic"].component, 0.95)
    down = first.get("sw:down") or first.get("port:down")
    if down is not None:
        return Diagnosis("link_flap", down.component, 0.9)
    return Diagnosis("unknown", None, 0.3)


def _detector(diagnose: Any = None, reorder_s: float = 3.0) -> Any:
    """A detector on a hand-driven clock; ``feed`` runs the timers due before a signal's arrival."""
    now = [0.0]
    timers: list[tuple[float, int, Any]] = []

    def schedule(delay: float, fn: Any) -> None:
        timers.append((now[0] + delay, len(timers), fn))

    def run_until(t: float) -> None:
        while timers and min(timers)[0] <= t:
            due = min(timers)
            timers.remove(due)
            now[0] = max(now[0], due[0])
            due[2]()
        now[0] = max(now[0], t)

    def on_diagnose(inc: Incident) -> None:
        inc.diagnoses.append((diagnose or _stub_diagnosis)(inc))

    det = Detector(DetectorParams(reorder_s=reorder_s), lambda: now[0], schedule, on_diagnose, JOB, another_fault)
    raw = det.feed

    def feed(*sigs: Signal) -> None:
        for sig in sigs:
            run_until(sig.t)
            raw(sig)

    det.feed = feed  # type: ignore[method-assign]
    det.run_until = run_until  # type: ignore[attr-defined]
    return det


def _flap(det: Any, link: str = LINK, times: tuple[float, ...] = (500.0, 530.0, 560.0, 590.0)) -> None:
    node = link.split("~")[0].rsplit("/", 1)[0]
    for t in times:
        det.feed(Signal(t, "sw:down", link, link.split("~")[0], 2, "sw down"),
                 Signal(t, "swfault:08520003", node, node, 1, "plugin relays the link's alarm"))
    det.feed(Signal(500.0, "job:stalled", "train", None, 2, "train: stalled"))


def _uce(t: float = 620.0) -> list[Signal]:
    """An HBM UCE as the twin reports it: the job's crash event naming the rank's node first (it arrives first),
    then the device event, the runtime's error (a process line: no part, its host) and the plugin's relay."""
    return [Signal(t, "job:crash", NODE, None, 2, "train: crash"),
            Signal(t, "dev:80E01801", NPU, NPU, 2, "Event id=0x80e01801"),
            Signal(t, "rt:507053", None, NODE, 2, "rtStreamSynchronize:ErrCode=507053"),
            Signal(t + 0.9, "plugin:80E01801", NPU, NODE, 1, "fault code [80E01801]")]


def _settled(det: Any) -> list[Incident]:
    det.run_until(10_000.0)
    return list(det.incidents)


def _by_root(det: Any) -> dict[str | None, set[str]]:
    det.run_until(10_000.0)
    return {i.diagnosis.component if i.diagnosis else None: {s.kind for s in i.signals} for i in det.incidents}


@pytest.mark.parametrize("flapping", [LINK, OTHER_LINK], ids=["same-node", "other-node-of-the-job"])
def test_an_hbm_error_beside_a_diagnosed_flap_is_its_own_incident_with_the_jobs_crash(flapping: str) -> None:
    det = _detector()
    _flap(det, flapping)
    det.feed(*_uce())
    got = _by_root(det)
    assert set(got) == {flapping, f"{NPU}/hbm"}, got
    assert got[f"{NPU}/hbm"] == {"job:crash", "dev:80E01801", "rt:507053", "plugin:80E01801"}
    assert "dev:80E01801" not in got[flapping] and "job:crash" not in got[flapping]
    flap = next(i for i in det.incidents if i.diagnosis.fault_class == "link_flap")
    assert flap.nodes == {flapping.split("~")[0].rsplit("/", 1)[0]}  # the rank's crash report did not widen it


def test_the_flaps_later_relays_stay_with_the_flap_not_with_the_newer_incident_on_its_node() -> None:
    det = _detector()
    _flap(det)
    det.feed(*_uce())
    det.feed(Signal(650.0, "sw:down", LINK, LINK.split("~")[0], 2, "sw down"))
    det.feed(Signal(650.0, "swfault:08520003", NODE, NODE, 1, "plugin relays the link's alarm"))
    det.feed(Signal(651.5, "sw:up", LINK, LINK.split("~")[0], 0, "sw up"))
    det.feed(Signal(651.5, "swfault:08520003", NODE, NODE, 1, "plugin relays the link's recovery"))
    det.feed(Signal(660.0, "sw:down", LINK, LINK.split("~")[0], 2, "sw down"))
    det.feed(Signal(665.0, "sw:up", LINK, LINK.split("~")[0], 0, "sw up"))
    det.feed(Signal(660.0, "swfault:08520003", NODE, NODE, 1, "the relay of 660 s, delivered late"))
    got = _by_root(det)
    assert "swfault:08520003" not in got[f"{NPU}/hbm"], got


def test_what_the_root_holds_or_its_class_explains_still_joins() -> None:
    det = _detector()  # a crashed node holds its NPUs: their errors join the crash
    det.feed(Signal(500.0, "os:panic", NODE, NODE, 2, "Kernel panic"))
    det.feed(Signal(520.0, "dev:80E01801", NPU, NPU, 2, "Event id=0x80e01801"))
    assert len(_settled(det)) == 1

    det = _detector()  # not diagnosed yet (within collect_s): one event's reports are collected together
    det.feed(Signal(500.0, "sw:down", LINK, LINK.split("~")[0], 2, "sw down"))
    det.feed(Signal(501.0, "dev:80E01801", NPU, NPU, 2, "Event id=0x80e01801"))
    assert len(_settled(det)) == 1

    det = _detector(diagnose=lambda inc: Diagnosis("unknown", None, 0.3))  # an answer that explains nothing yet
    det.feed(Signal(500.0, "sw:down", LINK, LINK.split("~")[0], 2, "sw down"))
    det.feed(Signal(520.0, "dev:80E01801", NPU, NPU, 2, "Event id=0x80e01801"))
    assert len(_settled(det)) == 1

    det = _detector()  # a kind the knowledge base gives the root's class no role, but no primary one either
    _flap(det)
    det.feed(Signal(600.0, "rt:sync_failed", None, NODE, 2, "rtStreamSynchronize failed"))
    assert len(_settled(det)) == 1


def test_the_knowledge_base_says_which_kinds_are_another_classs_fault() -> None:
    assert another_fault("dev:80E01801", "link_flap")  # the HBM UCE's primary event
    assert another_fault("rt:507053", "link_down")
    assert not another_fault("dev:80E01801", "hbm_uce")
    assert not another_fault("dev:80E01801", "hbm_row_exhaustion")  # a secondary signature of that class
    assert not another_fault("swfault:08520003", "hbm_uce")  # the link-down alarm every link event prints
    assert not another_fault("rt:sync_failed", "link_flap")  # ambiguous: no class's primary evidence
    assert not another_fault("no:such_kind", "link_flap")


SCENARIO = f"""\
apiVersion: opsbrain/v1
kind: ChaosScenario
metadata: {{name: uce-beside-flap, description: an HBM UCE on a node of the job whose link is flapping}}
spec:
  duration: 3600
  seed: 9
  topology: {{pods: 1, spares: 2}}
  workloads:
    - {{name: train, kind: training, first_node: 32, nodes: 14}}
  faults:
    - {{at: 500, kind: link_flap, target: {LINK}, params: {{flaps: 20}}}}
    - {{at: 620, kind: hbm_uce, target: {NPU}/hbm}}
  expectations:
    - {{fault: 0, diagnosis: link_flap, component: {LINK}}}
    - {{fault: 1, diagnosis: hbm_uce, component: {NPU}/hbm, ttr_max_s: 120}}
"""


def test_the_uce_beside_the_flap_is_diagnosed_and_recovered_on_its_own(tmp_path: Any) -> None:
    from opsbrain import chaos
    from opsbrain.scenario.loader import load_scenario
    from opsbrain.scenario.plan import build_plan

    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    sc, p = load_scenario(str(path))
    j = chaos.run(build_plan(sc, str(p)))
    uce = next(i for i in j["incidents"] if i["injected"] and i["injected"]["kind"] == "hbm_uce")
    assert uce["correct"] and uce["incident_ids"], (uce["diagnosis"], uce["incident_ids"])
    assert all(e["met"] for e in j["expectations"]), j["expectations"]
