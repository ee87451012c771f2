"""What a reboot of a node in service costs its workloads (session 36): the paper's inference layout on nodes 0-31
and an 8-node training job on nodes 32-39, durations at their medians; at 600 s one job node and one decode node are
rebooted (600 s). Prints the job's and the service's figures at 2,400 s, then restarts what is not running (the job
from its persistent checkpoint, the instance relaunched) and prints them at 6,000 s.

    PYTHONPATH=. .venv/bin/python benchmarks/reboot_in_service.py

Run it with another tree on ``PYTHONPATH`` for the before figures (docs/recovery.md, ``reboot_node``).
"""

from __future__ import annotations

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.topology import Topology, TopologyParams
from faultlib.workloads.inference import InferenceService, paper_layout
from faultlib.workloads.training import TrainingJob

T0 = 600.0


def figures(sim: Simulation, job: TrainingJob, svc: InferenceService, inst: str) -> str:
    a, s = job.accounting(), svc.accounting()
    plog = sum(1 for ln in sim.telemetry.logs if ln.t >= T0 and ln.source == "plog")
    return (f"t={sim.now:.0f} job {job.state} ettr {a['ettr']:.4f} stalled_s {a['stalled_s']:.0f} lost_npu_s "
            f"{a['lost_npu_s']:.0f} timeouts {a['timeouts']} restarts {a['restarts']} | {inst} "
            f"{svc.instances()[inst]['state']} lost_tokens {s['lost_tokens']:.4g} slo_violation_s "
            f"{s['slo_violation_s']:.0f} | peer plog lines {plog}")


def main() -> None:
    params = at_medians(apply_overrides(SimParams(), {"control.reset_failure_prob": 0.0,
                                                      "control.restart_failure_prob": 0.0}))
    sim = Simulation(params, seed=3, topology=Topology.build(TopologyParams(), pods=1))
    pre, dec = paper_layout(sim.topology)
    svc, job = InferenceService("serve", pre, dec), TrainingJob("train", sim.topology.nodes()[32:40])
    sim.add_workload(svc)
    sim.add_workload(job)
    inst = svc.instance_of(dec[2]) or ""
    sim.run(T0)
    sim.control.reboot_node(job.nodes[3])
    sim.control.reboot_node(dec[2])
    sim.run(2400)
    print(figures(sim, job, svc, inst))
    sim.run(2410)
    if svc.instances()[inst]["state"] != "running":
        sim.control.restart_instance("serve", inst)
    if job.state != "running":
        sim.control.restart_job("train", source="persistent")
    sim.run(6000)
    print(figures(sim, job, svc, inst))


if __name__ == "__main__":
    main()
