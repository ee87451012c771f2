"""Session 44 (orch44): does paging at once on a refused scale-in (orch43) lose recoveries the approval wait found?

rb-hbm-uce on a 20-node job the policy may not shrink (``training_scale_in_max_share`` 4%: one node is 5%), no spare
in the pod (a node crash at t=100 s took the only one), every restart that keeps the HBM's node failing (the
restarts that swap it for a spare work): the ladder reaches its last rung, the scale-in, at t=979 s. The crashed node
comes back to the pool after a reboot; its crash lasts ``--crash-s`` (600 s: back at t=1,300 s, within the 600 s
approval wait; longer: after it). Printed per crash length: the response's outcome, rung, human steps, the job's state
at 6 h and when it first ran again, now (paged at once) and as before orch43 (the refusal check off: the approval
waited for, a spare coming free meanwhile taken).

    PYTHONPATH=. .venv/bin/python benchmarks/refused_scale_in_wait.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import simpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from faultlib.control import ActionResult  # noqa: E402
from faultlib.durations import at_medians  # noqa: E402
from faultlib.engine import Simulation  # noqa: E402
from faultlib.injection.spec import FaultSpec  # noqa: E402
from faultlib.simparams import SimParams  # noqa: E402
from faultlib.topology import Topology, TopologyParams  # noqa: E402
from faultlib.workloads.training import TrainingJob  # noqa: E402
from opsbrain.recovery import Orchestrator, RecoveryParams, load_runbooks  # noqa: E402
from opsbrain.recovery.workload_actions import WorkloadActions  # noqa: E402
from opsbrain.verdict import Diagnosis  # noqa: E402


def world(before_orch43: bool, crash_s: float, approval_s: float = 600.0, until_s: float = 6 * 3600,
          **overrides: Any) -> dict[str, Any]:
    """Run the world to ``until_s``: the orchestrator, the simulation, the job, the crashed node ``a`` (incident
    "A") and the HBM's node ``b`` (incident "B"); ``overrides`` are RecoveryParams fields."""
    orig = WorkloadActions.scale_in_refused
    if before_orch43:
        WorkloadActions.scale_in_refused = lambda self, name, params, ctx: None  # type: ignore[method-assign]
    try:
        params = RecoveryParams(approval_median_s=approval_s, approval_sigma=0.0, training_scale_in_max_share=0.04,
                                **overrides)
        sim = Simulation(params=at_medians(SimParams()), seed=3, topology=Topology.build(TopologyParams(), pods=1))
        nodes = sim.topology.nodes()
        job = TrainingJob("llm", nodes[:20], sim.params.training.model_copy(update=params.job_launch_overrides()))
        sim.add_workload(job)
        sim.control.set_spares([nodes[-1]])
        a, b = job.nodes[2], job.nodes[5]
        sim.inject(FaultSpec(at_s=100, kind="node_crash", target=a, duration_s=crash_s))
        sim.inject(FaultSpec(at_s=600, kind="hbm_uce", target=f"{b}/npu3/hbm"))
        orch = Orchestrator(sim, load_runbooks(), params=params)
        sim.run(110)
        orch.handle("A", Diagnosis("node_crash", a, 0.95))
        sim.run(610)
        c, real = sim.control, sim.control.restart_job

        def failing(name: str, target: str) -> simpy.Process:
            def body() -> Any:
                yield sim.env.timeout(60.0)
                return ActionResult(name, target, "failed", sim.now - 60.0, sim.now, {"reason": "test"})
            return sim.env.process(body())

        def restart_job(job_: str, source: str = "persistent", replace: dict[str, str] | None = None,
                        scope: str = "job") -> simpy.Process:
            return real(job_, source, replace, scope) if replace and b in replace else failing("restart_job", job_)

        c.restart_job = restart_job  # type: ignore[method-assign]
        c.restart_process = lambda job_, instance=None: failing("restart_process", job_)  # type: ignore[method-assign]
        orch.handle("B", Diagnosis("hbm_uce", f"{b}/npu3/hbm", 0.95))
        sim.run(until_s)
        return {"orch": orch, "sim": sim, "job": job, "a": a, "b": b}
    finally:
        WorkloadActions.scale_in_refused = orig  # type: ignore[method-assign]


def run(before_orch43: bool, crash_s: float, approval_s: float = 600.0, **overrides: Any) -> dict[str, Any]:
    w = world(before_orch43, crash_s, approval_s, **overrides)
    orch, sim, job = w["orch"], w["sim"], w["job"]
    inc = orch.incident("B")
    back = next((f["at_s"] for f in orch.follow_ups("A") if f["type"] == "returned_to_spares"), None)
    ran = next((e.t for e in sim.telemetry.events if e.kind == "resumed" and e.t > 610), None)
    wait = next((a for a in inc["actions"] if a["action"] == "waiting_for_spare"), None)
    waited = (f"{wait['status']} t={wait['start_s']:.0f}-{wait['end_s']:.0f} s" if wait is not None else None)
    return {"outcome": inc["outcome"], "rung": inc["rung"], "human_steps": inc["human_steps"],
            "job_at_6h": job.state, "runs_again_at_s": ran, "spare_back_at_s": back, "waiting_for_spare": waited}


if __name__ == "__main__":
    for crash_s in (600.0, 1200.0, 2400.0, 5000.0):
        for label, old in (("now", False), ("before orch43", True)):
            print(f"crash {crash_s:.0f} s, {label}: {run(old, crash_s)}")
