"""Collective stalls of a training job: running, stalled and down, and how a stall ends.

A job NPU / die / HBM / node that leaves service kills its rank: the peers hang in their collectives (stall,
then timeout) until the job is restarted. A stall whose cause disappears before ``hang_timeout_s`` ends with an
HCCL operator retry: re-executions at ``op_retry_hold_s`` after the failure and every ``op_retry_interval_s``
after that (the retry grid, :meth:`CollectiveStalls._next_attempt_s`); the first one that finds the path alive
re-executes the collective in flight (the step's finished compute is kept). A dead path counts its failed
re-executions: after ``op_retry_max_cnt`` the error surfaces and the job goes down. Every stall, whatever its
cause, makes the peers print their HCCL notify-wait reports; the hang timeout prints EI0002.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from typing import Any

from faultlib import ids
from faultlib.telemetry import formats as fmt
from faultlib.workloads.base import report_peer_waits
from faultlib.workloads.training_model import EPS, StepTimeModel


class CollectiveStalls(StepTimeModel):
    """The running / stalled / down state machine with the HCCL operator retry and the hang timeout."""

    @abstractmethod
    def _schedule_boundary(self) -> None:
        """Take the pending checkpoint at the next step boundary (:mod:`faultlib.workloads.training_checkpoints`)."""

    def _enter_running(self, event: str | None, **detail: Any) -> None:
        """Run again (or stall at once if a cause is present)."""
        self._advance()
        cause, step_s, over = self._assess()
        if cause is not None:
            self._step_s = self._step_s or self._nominal_s
            self._begin_stall(cause, announce=False)
            if event:
                self._event(event, **detail)
            self._event("stalled")
            return
        self._step_s = step_s
        self._set("running", 1.0 / step_s)
        if self._ckpt_pending:
            self._schedule_boundary()
        self._publish_ranks(over)
        if event:
            self._event(event, step_time_s=round(step_s, 6), **detail)

    def _begin_stall(self, cause: tuple[str, str, int], announce: bool) -> None:
        """Collectives stop: arm the hang timer. The step's finished compute is kept: an HCCL operator retry
        re-executes only the collective in flight (at the first re-execution instant after the cause clears,
        :meth:`_next_attempt_s`); a timeout and restart instead go back to a checkpoint."""
        self._advance()
        self._stall_frac = self._pos - math.floor(self._pos + EPS) if self.state == "running" else 0.0
        self._bump("stall", "resume", "boundary")
        self._resume_pending = False
        self._timer_expired = False
        self._stall_t = self._sim.now
        self._counts["stalls"] += 1
        self._set("stalled", 0.0)
        g = self._gen["stall"]
        self._after(self.p.hang_timeout_s, self._on_hang_timer, g)
        self._resume_pending = True  # the first re-execution is tried whatever the path's state then
        self._retries = 0  # re-executions that found the path still dead (MaxCnt bounds them)
        self._after(self.p.op_retry_hold_s, self._on_resume, self._gen["resume"])
        self._after(self._sim.params.faults.peer_timeout_report_s, self._on_peer_report, g)
        if announce:
            self._event("stalled")

    def _on_peer_report(self, g: int) -> None:
        """Peers of a stall report their notify-wait timeout in their plog, naming the node they wait for: the
        same lines for every cause (a hung or dead rank, a dead path), as HCCL does not know the cause."""
        if g != self._gen["stall"] or self.state != "stalled":
            return
        cause = self._assess()[0]
        if cause is None:
            return
        waited = ids.node_of(cause[1]) or self.nodes[0]
        report_peer_waits(self._sim, [n for n in self.nodes if n != waited], waited)

    def _next_attempt_s(self) -> float:
        """Delay to the next HCCL re-execution instant: ``stall + hold + k * interval``, the first not in the past."""
        p, now = self.p, self._sim.now
        first = self._stall_t + p.op_retry_hold_s
        if now <= first:
            return first - now
        k = math.ceil((now - first) / p.op_retry_interval_s - EPS)
        return max(0.0, first + k * p.op_retry_interval_s - now)

    def _on_hang_timer(self, g: int) -> None:
        if g != self._gen["stall"] or self.state != "stalled":
            return
        cause = self._assess()[0]
        if cause is None:
            self._timer_expired = True  # the retry is already under way
            return
        self._timeout(cause)

    def _timeout(self, cause: tuple[str, str, int]) -> None:
        self._advance()
        self._counts["timeouts"] += 1
        _kind, cid, remote = cause
        culprit = ids.node_of(cid) or self.nodes[0]
        reporter = next((n for n in self.nodes if n != culprit), culprit)
        r = self.nodes.index(reporter) * (len(self.ranks) // len(self.nodes))
        if r == remote and len(self.ranks) > 1:
            r = (remote + 1) % len(self.ranks)
        waited = self._sim.now - self._stall_t
        self._go_down()
        self._log(reporter, "ERROR", f"[rank{r}]: RuntimeError: " + fmt.hccl_message(
            "EI0002", remote=remote, base=f"streamID:3, taskID:50, taskType:Notify Wait, rank:{r}",
            task="notify wait", group=f"rankSize:{len(self.ranks)}"))
        self._event("timeout", waited_s=round(waited, 6), rank=r)

    def _retries_exhausted(self, cause: tuple[str, str, int]) -> None:
        """MaxCnt re-executions found the path dead: the collective's error surfaces and the processes exit (the
        job is down until online recovery or a restart brings it back)."""
        self._advance()
        _kind, cid, remote = cause
        culprit = ids.node_of(cid) or self.nodes[0]
        reporter = next((n for n in self.nodes if n != culprit), culprit)
        r = self.nodes.index(reporter) * (len(self.ranks) // len(self.nodes))
        self._counts["crashes"] += 1
        self._go_down()
        dev = self._sim.topology.npus_of(reporter)[0]
        self._log(reporter, "ERROR", f"[rank{r}]: RuntimeError: " + fmt.hccl_message(
            "EI0006", reason=f"This node (server {fmt.host_ip(reporter)}, device ID {fmt.device_index(dev)}) "
            f"detects that srcRank ({r}) fails to connect to dstRank ({remote})"))
        self._event("crash", rank=r, node=reporter)

    def _go_down(self) -> None:
        self._advance()
        if self.state == "checkpointing":
            self._ckpt_pending = True  # the aborted write is retried once the job runs again
        self._bump("stall", "resume", "boundary", "write", "op")
        self._resume_pending = False
        self._set("down", 0.0)

    def _refresh(self) -> None:
        """Re-derive rate / stall after a plant or job change."""
        if self.state not in ("running", "stalled"):
            return
        self._advance()
        cause, step_s, over = self._assess()
        if self.state == "running":
            if cause is not None:
                self._begin_stall(cause, announce=True)
                return
            if abs(step_s - self._step_s) > 1e-12:
                self._step_s = step_s
                self._set("running", 1.0 / step_s)
                if self._ckpt_pending:
                    self._schedule_boundary()
            self._publish_ranks(over)
            return
        # stalled
        if cause is None and not self._resume_pending:
            self._resume_pending = True
            self._bump("resume")
            self._after(self._next_attempt_s(), self._on_resume, self._gen["resume"])

    def _on_resume(self, g: int) -> None:
        """An HCCL re-execution: it completes if the path is alive now, else the collective waits for the next one
        (scheduled when the cause clears) or the hang timeout."""
        if g != self._gen["resume"] or self.state != "stalled":
            return
        self._resume_pending = False
        cause = self._assess()[0]
        if cause is not None:
            if self._timer_expired:
                self._timeout(cause)
            elif cause[0] == "path":  # a failed link: the re-execution fails too and counts against MaxCnt
                self._retries += 1
                if self._retries >= self.p.op_retry_max_cnt:
                    self._retries_exhausted(cause)
                else:
                    self._resume_pending = True
                    self._bump("resume")
                    self._after(self.p.op_retry_interval_s, self._on_resume, self._gen["resume"])
            return
        self._bump("stall")
        self._enter_running("resumed", after="retry", stalled_s=round(self._sim.now - self._stall_t, 6))
