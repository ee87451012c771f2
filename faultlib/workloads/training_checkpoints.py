"""Checkpoints of a training job: a persistent write every ``ckpt_interval_s`` at the next step boundary (a
stall while it lasts; a lost storage path fails it with the storage client's I/O error and it is retried after
the next interval), and the in-memory checkpoint every ``mem_ckpt_every_steps``, each node's shard replicated on
its peer (``mem_ckpt_peer``: by default the node half the job away, another rack; lost only when a node and its
peer both lost their host memory)."""

from __future__ import annotations

import math

from faultlib.workloads.training_model import EPS
from faultlib.workloads.training_params import storage_io_s
from faultlib.workloads.training_stalls import CollectiveStalls


class Checkpoints(CollectiveStalls):
    """Persistent and in-memory checkpoints on top of the stall state machine."""

    def _schedule_ckpt(self) -> None:
        self._bump("ckpt")
        self._after(self.p.ckpt_interval_s, self._on_ckpt_timer, self._gen["ckpt"])

    def _on_ckpt_timer(self, g: int) -> None:
        if g != self._gen["ckpt"]:
            return
        self._ckpt_pending = True
        if self.state == "running":
            self._schedule_boundary()

    def _schedule_boundary(self) -> None:
        """A checkpoint is taken at the next step boundary."""
        self._advance()
        self._bump("boundary")
        wait = (math.ceil(self._pos - EPS) - self._pos) * self._step_s
        self._after(wait, self._on_boundary, self._gen["boundary"])

    def _on_boundary(self, g: int) -> None:
        if g != self._gen["boundary"] or self.state != "running" or not self._ckpt_pending:
            return
        self._advance()
        if abs(self._pos - round(self._pos)) > 1e-6:
            self._schedule_boundary()
            return
        self._pos = float(round(self._pos))
        self._ckpt_pending = False
        if not self._storage_ok():
            self._schedule_ckpt()
            lost = next(n for n in self.nodes if not self._sim.state.is_up(f"{n}/qingtian"))
            self._io_error(lost)
            self._event("checkpoint_failed", source="persistent", node=lost)
            return
        write_s = storage_io_s(self._sim, self.p, len(self.nodes), "write")
        self._bump("write")
        self._set("checkpointing", 0.0)
        self._sim.trace.record(self._sim.now, "job_checkpoint_start", self.name, step=int(self._pos))
        self._after(write_s, self._on_written, self._gen["write"], int(self._pos), write_s)

    def _on_written(self, g: int, step: int, write_s: float) -> None:
        if g != self._gen["write"] or self.state != "checkpointing":
            return
        self._advance()
        self._last_persistent = step
        self._counts["persistent_ckpts"] += 1
        sim = self._sim
        sim.trace.record(sim.now, "job_checkpoint", self.name, step=step, write_s=round(write_s, 6))
        self._schedule_ckpt()
        self._enter_running(None)
        sim.telemetry.job_event(self.name, "checkpoint", step=step, source="persistent", write_s=round(write_s, 6))

    def _write_failed(self, node: str) -> None:
        """The storage path of a writing node went away mid-write (its Qingtian card carries the VPC plane and the
        storage client): the write fails with the I/O error the storage client returns and is retried after the
        next interval; training goes on from the in-memory copy."""
        self._advance()
        self._bump("write")
        self._io_error(node)
        self._event("checkpoint_failed", source="persistent", node=node)
        self._schedule_ckpt()
        self._enter_running(None)

    def _io_error(self, node: str) -> None:
        """The storage client's I/O error as the writer on ``node`` (the node whose storage path is lost) prints it,
        prefixed with that writer's rank: each rank writes its own shard (a distributed checkpoint), so the error is
        the node's, not rank 0's (before session 35 it was printed as rank 0's on the job's first node, and a sound
        node's storage path was blamed)."""
        self._log(node, "ERROR", f"[rank{self._rank_for(node)}]: OSError: [Errno 5] Input/output error")

    def replica_peers(self) -> dict[str, str]:
        """Each job node -> the node holding the replica of its in-memory checkpoint shard (``mem_ckpt_peer``)."""
        n = len(self.nodes)
        k = n // 2 if self.p.mem_ckpt_peer == "half" else 1
        return {nd: self.nodes[(i + k) % n] for i, nd in enumerate(self.nodes)}

    def _memory_ok(self) -> bool:
        """The in-memory checkpoint survives unless some node and its replica peer both lost host memory."""
        lost = self._nodes_lost
        return not any(nd in lost and peer in lost for nd, peer in self.replica_peers().items())

    @property
    def last_persistent_step(self) -> int:
        return self._last_persistent

    def current_step(self) -> int:
        """The step in flight (its number as the training log prints it: steps done + 1)."""
        if self.state in ("new",):
            return 0
        self._advance()
        return int(math.floor(self._pos + EPS)) + 1

    @property
    def last_memory_step(self) -> int:
        """Step of the newest in-memory checkpoint (every ``mem_ckpt_every_steps`` since the processes started)."""
        if self.state in ("new",):
            return 0
        self._advance()
        k = self.p.mem_ckpt_every_steps
        return max(self._run_base, int(math.floor(self._pos + EPS)) // k * k)
