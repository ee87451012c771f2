"""HCCL operator retry (CANN ``HCCL_OP_RETRY_PARAMS``) as a workload's launch configuration and its re-execution grid.

A collective whose path fails is re-executed ``HoldTime`` after the failure is detected and every ``IntervalTime``
after that, at most ``MaxCnt`` times; the first re-execution that finds the path alive completes the collective, and
when all of them found it dead the error surfaces (CANN HCCL user guide: HCCL_OP_RETRY_ENABLE / HCCL_OP_RETRY_PARAMS,
hcclug_000105 / hcclug_000106; facts.md §8). The three values are configuration, not durations of the plant: the
time a stall lasts comes from when the path returns (a drawn re-route), placed on this grid.

:class:`OpRetryParams` is the parameter group both workloads inherit (``InferenceParams``, ``TrainingParams``); the
training job's grid is ``CollectiveStalls._next_attempt_s`` (faultlib/workloads/training_stalls.py), the service's
:func:`reexecution_offsets_s`.
"""

from __future__ import annotations

from faultlib.params import P, ParamGroup

RETRY_DOC = "CANN HCCL user guide, HCCL_OP_RETRY_PARAMS (hcclug_000106), facts.md §8"


class OpRetryParams(ParamGroup):
    """HCCL operator-retry configuration a workload is launched with (CANN defaults)."""

    op_retry_hold_s: float = P(
        5.0, "s", "HCCL operator retry HoldTime: from the detected failure of a collective to its first "
        "re-execution; CANN default 5000 ms, range 0-60,000 ms (" + RETRY_DOC + "). The retry applies on Atlas A3 "
        "training and inference products to HCCL operators expanded on the AI CPU, in single-operator, graph and "
        "aclgraph mode (CANN HCCL operator support table for Atlas A3, hcclug_000113 / hcclug_000134), and to fused "
        "compute-communication (MC2) operators compiled with AICORE_EXCEPTION_RESTART (Ascend C operator guide, "
        "fused-operator re-execution); not to operators expanded on the vector cores (AIV), for which the table "
        "lists no retry. Assumed: the instance's EP collectives are of the first two kinds", ge=0, le=60)
    op_retry_interval_s: float = P(
        1.0, "s", "HCCL operator retry IntervalTime: between two re-executions of the same collective; CANN default "
        "1000 ms, range 0-60,000 ms (" + RETRY_DOC + ")", gt=0, le=60)
    op_retry_max_cnt: int = P(
        1, "re-executions", "HCCL operator retry MaxCnt: a collective whose path failed is re-executed at most this "
        "many times, then the error surfaces and the processes exit (a training job goes down: the next rung is "
        "online recovery, process-level then job-level restart); CANN default 1, range 1-10 (" + RETRY_DOC + ")",
        ge=1, le=10)


def reexecution_offsets_s(p: OpRetryParams) -> list[float]:
    """Seconds from the detected failure to each re-execution: ``hold + k * interval`` for ``k < MaxCnt``."""
    return [p.op_retry_hold_s + k * p.op_retry_interval_s for k in range(p.op_retry_max_cnt)]
