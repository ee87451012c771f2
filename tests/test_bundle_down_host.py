"""A collection cannot log in to a host that is down (session 34, branch twin34).

Before: the twin's bundles held a crashed, not yet rebooted host's folder with npu-smi values read from the plant as if
the host were up (its ``npu_info_after.txt`` taken while it was stopped, its logs fetched while it answered nothing),
and ``render_twin_npu_smi`` rendered a stopped host's table. Now what a collection would have fetched from a host that
is down at that moment is absent (docs/bundles.md "A host that is down")."""

from __future__ import annotations

import json
from pathlib import Path

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology
from opsbrain.bundle.writer import write_bundle
from opsbrain.sources.commands import render_twin_npu_smi

NODE, PEER = "pod0/node35", "pod0/node36"


def _crashed(topo: Topology, until: float) -> Simulation:
    sim = Simulation(seed=5, topology=topo)
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=NODE, params={}, duration_s=None))
    sim.run(until)
    return sim


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def test_a_host_still_down_when_its_logs_are_fetched_has_no_folder(topo1: Topology, tmp_path: Path) -> None:
    sim = _crashed(topo1, 300)
    man = write_bundle(tmp_path / "b", sim, start_s=50, end_s=300, nodes=[NODE, PEER])
    files = _files(tmp_path / "b")
    assert not any(f.startswith("pod0-node35/") for f in files)  # not even the before check taken while it ran
    assert not any("lcne_log/pod0-node35-" in f for f in files)  # nor its board's L1 chips
    assert "pod0-node36/environment_check/npu_info_after.txt" in files  # the peer answered
    assert man["not_collected"] == {"pod0-node35": ["folder"]}
    assert set(man["workers"]) == {"pod0-node36"}
    on_disk = json.loads((tmp_path / "b" / "bundle.json").read_text())
    assert on_disk["not_collected"] == {"pod0-node35": ["folder"]}
    assert any(f.startswith("lcne_log/pod0-l2plane") for f in files)  # the L2 chips' port-down lines are theirs


def test_a_host_back_before_the_fetch_lacks_only_the_check_taken_while_it_was_down(topo1: Topology,
                                                                                   tmp_path: Path) -> None:
    sim = _crashed(topo1, 300)
    sim.state.set_health(NODE, Health.HEALTHY, cause="reboot")
    sim.run(400)
    man = write_bundle(tmp_path / "b", sim, start_s=50, end_s=400, nodes=[NODE], collect_s=150)
    files = _files(tmp_path / "b")
    assert "pod0-node35/environment_check/npu_info_before.txt" in files  # taken at 50 s, the host up
    assert "pod0-node35/environment_check/npu_info_after.txt" not in files  # 150 s: the host was down
    assert any(f.startswith("pod0-node35/crash/") for f in files)  # kdump's vmcore-dmesg, read after the reboot
    assert man["not_collected"] == {"pod0-node35": ["npu_info_after"]}


def test_a_bundle_of_running_hosts_says_nothing_was_missed(topo1: Topology, tmp_path: Path) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.run(200)
    man = write_bundle(tmp_path / "b", sim, start_s=50, end_s=200, nodes=[NODE])
    assert "not_collected" not in man
    assert {"npu_info_before.txt", "npu_info_after.txt"} <= {p.name for p in (tmp_path / "b").rglob("npu_info_*")}


def test_npu_smi_of_a_stopped_host_is_not_collected(topo1: Topology) -> None:
    sim = _crashed(topo1, 300)
    assert render_twin_npu_smi(sim, NODE) is None
    assert render_twin_npu_smi(sim, NODE, t=50) is not None  # before the crash it ran
    assert render_twin_npu_smi(sim, PEER) is not None
