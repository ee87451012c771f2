"""An operator's options for the day/night switch (scenario fields, bench flags; defaults unchanged).

Weights from a serving peer (``weights_from="peer"``, checkpoint-engine's P2P mode): an added instance pays the peer
figure for its node's bytes when an instance of its role serves, and falls back to the EMS pool when none does.
Live migration at dusk (``dusk_inflight="migrate"``, Llumnix): the in-flight sequences' KV moves at the Llumnix rate
instead of the drain waiting for the longest output."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.workloads.elastic import ElasticInferenceService
from faultlib.workloads.inference import InferenceParams, paper_layout
from faultlib.workloads.switch import drain_s, migrate_s
from faultlib.workloads.weight_load import node_bytes
from opsbrain.ops.scenario_run import run_schedule_block
from opsbrain.ops.schedule import OVERLAPPED
from opsbrain.ops.schedule_run import ScheduleSetup, run_schedule
from opsbrain.ops.setup import ops_params
from opsbrain.scenario.superpod import ScheduleBlock

P = InferenceParams()
SEED = 5


def _service(crash_prefill: bool = False) -> tuple[Simulation, ElasticInferenceService]:
    sim = Simulation(ops_params(), seed=SEED, pods=1)
    pre, dec = paper_layout(sim.topology, 0, sim.params.inference)
    svc = ElasticInferenceService("serve", pre, dec, sim.params.inference)
    svc.weights_source = "peer"
    sim.add_workload(svc)
    if crash_prefill:  # no prefill instance serves: nothing to copy the weights from
        for n in (n for ns in pre for n in ns):
            sim.inject(FaultSpec(at_s=1.0, kind="node_crash", target=n))
    return sim, svc


def _add_prefill(sim: Simulation, svc: ElasticInferenceService) -> dict:
    out: dict = {}

    def later():  # type: ignore[no-untyped-def]
        yield sim.env.timeout(10.0)
        _q, proc = svc.add_instance("prefill", ["pod0/node32", "pod0/node33"])
        out.update((yield proc))

    sim.env.process(later())
    sim.run(12000.0)
    return out


def _expected(name: str, share: float) -> float:
    """The first draw of stream ``name`` in a fresh simulation of the same seed, at ``share`` of its median."""
    sim = Simulation(ops_params(), seed=SEED, pods=1)
    return sim.durations.draw(f"inference.{name}", getattr(sim.params.inference, name), share)


def test_a_serving_peer_gives_the_peer_figure_for_the_nodes_bytes() -> None:
    sim, svc = _service()
    out = _add_prefill(sim, svc)
    assert out["ok"] and out["action"] == "add_instance(peer)"
    share = node_bytes(P, 16, 8, 2, "resident") / (P.total_params_b * P.bytes_per_param * 1e9 / P.peer_load_ref_nodes)
    assert share == pytest.approx(16 * (17.1 + 653.9 / 32) / 335.5, rel=1e-9)  # ~1.79 of the 2-node figure
    assert out["weights_s"] == pytest.approx(_expected("peer_load_s", share), rel=1e-9)
    assert svc.peer_fallbacks == 0


def test_without_a_serving_peer_the_load_falls_back_to_the_ems_pool() -> None:
    sim, svc = _service(crash_prefill=True)
    out = _add_prefill(sim, svc)
    assert out["ok"]
    resident = node_bytes(P, 16, 8, 2, "resident") / (P.total_params_b * P.bytes_per_param * 1e9)
    assert out["weights_s"] == pytest.approx(_expected("ems_cold_start_s", resident), rel=1e-9)
    assert svc.peer_fallbacks == 1


def test_the_switch_with_peer_weights_shortens_only_the_dawn_leg() -> None:
    base = ScheduleSetup(handback_checkpoint="memory-last-step", ops=OVERLAPPED)
    ems = run_schedule(base, 3)
    peer = run_schedule(ScheduleSetup(handback_checkpoint="memory-last-step", ops=OVERLAPPED,
                                      weights_source="peer"), 3)
    assert peer["node_switch_s"]["training"] == ems["node_switch_s"]["training"]  # dusk loads no serving weights
    for role in ("decode", "prefill"):
        key = f"to inference: {role}_weights"
        assert peer["stages_s"][key][0] < ems["stages_s"][key][0] / 3
    assert max(peer["node_switch_s"]["inference"]) < max(ems["node_switch_s"]["inference"])
    assert peer["peer_fallbacks"] == 0 and ems["peer_fallbacks"] == 0


def test_the_scenario_field_defaults_to_ems_and_reaches_the_switch() -> None:
    assert ScheduleBlock().weights_from == "ems"
    with pytest.raises(ValidationError):
        ScheduleBlock(weights_from="obs")  # type: ignore[arg-type]
    block = {"operation": "overlapped", "handback_checkpoint": "memory-last-step"}
    ems = run_schedule_block(ScheduleBlock(**block), [3])
    peer = run_schedule_block(ScheduleBlock(**block, weights_from="peer"), [3])
    assert peer["to_training_s"] == ems["to_training_s"]
    assert peer["to_inference_s"]["p90"] < ems["to_inference_s"]["p90"]


def test_migration_moves_each_npus_in_flight_kv_at_the_llumnix_rate() -> None:
    sim, svc = _service()
    sim.run(60.0)
    q = "serve/decode0"
    batch = svc.decode_batch_per_npu(q)
    npus = 160
    served = svc.instances()[q]["tokens_per_s"] / npus
    assert batch == pytest.approx(served * svc.tpot_at(sim.now), rel=1e-6)  # Little's law: in flight = rate x time
    assert 0 < batch <= svc.roof.decode_max_batch(npus)
    kv_gb = batch * (P.prompt_tokens + P.output_tokens / 2) * P.kv_bytes_per_token / 1e9
    fresh = Simulation(ops_params(), seed=SEED, pods=1)
    expected = fresh.durations.draw("switch.kv_migrate_s_per_gb", fresh.params.switch.kv_migrate_s_per_gb, kv_gb)
    got = migrate_s(sim, svc, q)
    assert got == pytest.approx(expected + sim.params.switch.kv_migrate_downtime_s, rel=1e-9)
    assert got < drain_s(sim, svc, q)  # the KV of the NPU's sequences moves faster than the longest output ends
    assert svc.decode_batch_per_npu("serve/prefill0") == 0.0 and migrate_s(sim, svc, "serve/prefill0") == 0.0


def test_migration_at_dusk_shortens_only_the_dusk_leg() -> None:
    base = {"handback_checkpoint": "memory-last-step", "ops": OVERLAPPED}
    drain = run_schedule(ScheduleSetup(**base), 3)
    mig = run_schedule(ScheduleSetup(**base, dusk_inflight="migrate"), 3)
    assert mig["node_switch_s"]["inference"] == drain["node_switch_s"]["inference"]
    assert mig["stages_s"]["to training: drain"][0] < drain["stages_s"]["to training: drain"][0] / 10
    assert max(mig["node_switch_s"]["training"]) < max(drain["node_switch_s"]["training"])
    assert ScheduleBlock().dusk_inflight == "drain"
    block = run_schedule_block(ScheduleBlock(operation="overlapped", dusk_inflight="migrate"), [3])
    assert block["to_training_s"]["max"] < run_schedule_block(ScheduleBlock(operation="overlapped"), [3])[
        "to_training_s"]["max"]


def test_the_scenario_counts_peer_loads_that_fell_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """``superpod run``'s schedule block reports the peer loads that found no serving peer (read from the EMS pool
    instead), as bench_switch does: 0 with the base group serving, every dawn load when no peer serves."""
    block = ScheduleBlock(operation="overlapped", handback_checkpoint="memory-last-step", weights_from="peer")
    assert run_schedule_block(block, [3])["peer_fallbacks"] == 0
    monkeypatch.setattr(ElasticInferenceService, "_peer", lambda self, inst: None)
    out = run_schedule_block(block, [3])
    assert out["peer_fallbacks"] >= 2  # the day's decode and prefill instances of the flex group
    assert run_schedule_block(ScheduleBlock(operation="overlapped", handback_checkpoint="memory-last-step"),
                              [3])["peer_fallbacks"] == 0  # ems: no peer load asked
