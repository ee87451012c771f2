"""The ``vendor-default`` policy: an Ascend cluster's out-of-the-box fault handling, as a second baseline.

What MindCluster does with its defaults (parameters: :class:`~opsbrain.recovery.params.VendorParams`):

1. Detection by machine, no person: a device or switch fault code reaches ClusterD after
   ``fault_report_s``; a crashed host (no code) is declared lost after ``heartbeat_lost_s + node_lost_s``; a
   hang that reports no code waits for the collective timeout (``HCCL_EXEC_TIMEOUT``, the workload's
   ``hang_timeout_s``, 1800 s by default).
2. No diagnosis step: the fault code's handling level decides (the diagnosis' class stands in for that table).
   A link-level code is only reported at first: the policy waits for the job's own outcome, and a flap the job
   rode out stays a report.
3. Job-level rescheduling, the default mode: every pod of the job is stopped and the job restarts from its last
   *persistent* checkpoint, a node that left service swapped for a free one; CANN's default HCCL operator retry
   (HoldTime 5 s, MaxCnt 1) is left as launched, so a link fault the retry does not ride out takes the job down.
   Failed parts get the same field-repair ticket as under the manual policy (people replace hardware under
   every policy). A reschedule that fails is re-submitted after ``retry_delay_s``, ``retries`` times.

The repair ladder is the manual policy's (:class:`~opsbrain.recovery.manual.ManualPolicy`); only who detects,
how fast, and who does the steps differ.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import numpy as np
import simpy

from opsbrain.recovery.manual import NODE_LEVEL, ManualPolicy
from opsbrain.recovery.params import VendorParams
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.targets import Context

if TYPE_CHECKING:
    from faultlib.engine import Simulation

CODELESS = frozenset({"collective_timeout_sw", "silent_data_corruption", "npu_fail_slow",
                      "framework_error", "config_error"})
"""Classes that raise no device or switch fault code: MindCluster learns of them only when the job fails (a
stalled collective after ``HCCL_EXEC_TIMEOUT``)."""


LINK_LEVEL = frozenset({"link_flap", "link_down", "l1_switch_failure", "l2_switch_failure", "roce_port_down",
                        "optical_degradation", "dirty_connector"})
"""Link-level fault codes (0x81078603 port Up->Down and kin): only reported at first (a link down <= 20 s is
NotHandle, facts.md §3); the job's own outcome decides: it resumes (CANN's operator retry) or fails and is
rescheduled."""
REPORT_ONLY = frozenset({"link_flap", "optical_degradation", "dirty_connector"})
"""Link-level classes that stay reported only (no ticket, no restart) when the job came back by itself."""


class VendorDefaultPolicy(ManualPolicy):
    name = "vendor-default"
    person = False

    def __init__(self, sim: Simulation, params: VendorParams | None = None,
                 records: dict[str, IncidentRecord] | None = None) -> None:
        super().__init__(sim, params or VendorParams(), records)

    def _triage_s(self, rng: np.random.Generator) -> float:
        return 0.0  # the fault code's handling level decides; nobody reads logs

    def _repair(self, rec: IncidentRecord, ctx: Context, cls: str) -> Generator[simpy.Event, Any, Any]:
        """A link-level code waits for the job's outcome (stalled: the operator retry or the collective timeout
        decides); a flap the job rode out stays a report. Anything else: the manual policy's ladder."""
        if cls in LINK_LEVEL:
            while any(self._stalled(name) for name, _inst in ctx.workloads):
                yield self.sim.env.timeout(self.p.job_watch_s)
            if cls in REPORT_ONLY and all(ctx.workload_runs(n, i) for n, i in ctx.workloads):
                return True
        return (yield from super()._repair(rec, ctx, cls))

    def _stalled(self, name: str) -> bool:
        w = self.sim.workloads[name]
        return w.kind == "training" and getattr(w, "state", "") == "stalled"

    def _retry_delay_s(self, rng: np.random.Generator) -> float:
        return float(self.p.retry_delay_s)  # MindCluster's configured step-retry timeout

    def _detection(self, ctx: Context, rng: np.random.Generator, cls: str) -> tuple[float, str]:
        """Seconds until ClusterD acts: the node-loss path for a crashed host, the collective timeout for a
        code-less hang, else the fault-code report path."""
        p: VendorParams = self.p
        if cls in NODE_LEVEL:  # a crashed or hung host stops sending heartbeats
            return p.heartbeat_lost_s + p.node_lost_s.quantile(float(rng.standard_normal())), "node_heartbeat"
        timeouts = self._stall_timeouts(ctx)
        if cls in CODELESS and timeouts:
            return min(timeouts), "collective_timeout"
        return p.fault_report_s.quantile(float(rng.standard_normal())), "fault_code"
