"""Session 39's review (review39): defects found in the session's merged readings, each with its public source."""

from __future__ import annotations

from opsbrain.ingest.parsers import parse_line

RT = "[ERROR] RUNTIME(3101,python3):2026-01-02-03:04:05.678.901"


def kinds(line: str) -> set[str]:
    return {s.kind for s in parse_line(line)}


# The runtime's failed-task record (hicann/runtime @681ef761 src/runtime/core/src/engine/stars/stars_engine.cc
# ProcLogicCqReport) names the sqe type by the SQE header's type alone. On v100 that type is 0, printed "ffts", for
# a kernel task (task_info/davinci/davinci_kernel_task_v100.cc: sqe->header.type = RT_STARS_SQE_TYPE_FFTS; its
# timeout bit is TS_ERROR_AICORE_TIMEOUT or, for a Vector Core kernel, TS_ERROR_VECTOR_CORE_TIMEOUT) and for an FFTS+
# task as well (feature/ffts/ffts_task.cc FillFftsPlusSqe: sqeHeader->type = 0U; HCCL launches its collectives as
# FFTS+ tasks with a timeout of their own there), whose timeout bit is TS_ERROR_FFTSPLUS_TASK_TIMEOUT
# (SetStarsResultForFftsPlusTask), reported as ACL_ERROR_RT_FFTS_PLUS_TIMEOUT 507048 (errcode_manage.cc rtErrMap_).
# https://github.com/hicann/runtime/blob/681ef7610df13c8128982901142a2c869ddbb53e/src/runtime/feature/ffts/ffts_task.cc
FFTS_TIMEOUT = (f"{RT} [stars_engine.cc:1615]3101 ProcLogicCqReport:Task run failed, device_id=2, stream_id=5, "
                "task_id=17, sqe_type=0(ffts), errType=0x4(task timeout), sqSwStatus=0")


def test_an_ffts_sqe_timeout_is_no_ai_core_timeout_on_the_line_alone() -> None:
    # before the review: rt:507014 (an AI Core kernel's timeout), also for an HCCL FFTS+ task waiting on a peer
    assert not {k for k in kinds(FFTS_TIMEOUT) if k in ("rt:507014", "rt:507034")}


def test_the_v200_kernel_sqe_types_still_name_their_core() -> None:
    # v200's table names the core (task_recycle/v200/task_recycle_cqrpt_base.cc g_davidSqeTypeStr: aic, aiv, ...)
    aic = FFTS_TIMEOUT.replace("sqe_type=0(ffts)", "sqe_type=0(aic)")
    aiv = FFTS_TIMEOUT.replace("sqe_type=0(ffts)", "sqe_type=1(aiv)")
    assert "rt:507014" in kinds(aic) and "rt:507034" in kinds(aiv)
