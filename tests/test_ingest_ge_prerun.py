"""GE's graph pre-run (optimise and build before the first run) failing is a graph compile failure (session 46,
hixl46). GE's GraphManager::PreRun runs PreRunOptimizeOriginalGraph (prepare, infer shape, optimise),
PreRunOptimizeSubGraph (each engine's subgraph optimisation: fusion, lx buffer) and PreRunAfterOptimizeSubGraph
(Optimize2, Build) and logs ``Run %s failed for graph:%s.`` when one fails (mindspore-ai/graphengine
ge/graph/manager/graph_manager.cc @fde6b4c6; later ``[Run][PreRunOptimizeSubGraph] failed for graph:%s, ...``)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


# Ascend/modelzoo @2bcce1fa, job5c32ed15-job-ma-pwcnet-11-26-14-5.0-0-0-4-5-0_default-stdout.log (TF 1.15 PWC-Net)
PRERUN = ("[ERROR] GE(146,python):2020-12-05-11:55:24.241.908 [framework/domi/graph/manager/graph_manager.cc:685]789 "
          "PreRun: ErrorNo: -1(failed) Run PreRunOptimizeSubGraph failed for graph:ge_default_20201205115415.")


def test_a_failed_prerun_stage_is_a_graph_compile_failure() -> None:
    assert "op:compile" in kinds(PRERUN)


@pytest.mark.parametrize("level", ["WARNING", "INFO"])
def test_the_same_words_below_error_stay_quiet(level: str) -> None:
    assert "op:compile" not in kinds(PRERUN.replace("[ERROR]", f"[{level}]"))


@pytest.mark.parametrize("line", [
    # the thread's outer line: PreRun also creates the runtime context (rtCtxCreate), not only the graph's build
    "[ERROR] GE(146,python):2020-12-05-11:55:24.268.108 [framework/domi/graph/manager/graph_manager.cc:2542]789 "
    "ReturnError: ErrorNo: -1(failed) PreRun Failed, thread exit...",
    # the TF Adapter's callback on any failed RunGraphAsync, a run's too (tf_adapter/kernels/geop_npu.cc)
    "2020-12-05 11:55:27.268258: F tf_adapter/kernels/geop_npu.cc:570] GeOp7_0GEOP::::DoRunAsync Failed",
    # the stage's timing event on the same thread
    "[EVENT] GE(146,python):2020-12-05-11:55:24.241.892 [framework/domi/graph/manager/graph_manager.cc:599]789 "
    "PreRunOptimizeSubGraph:[GEPERFTRACE] The time cost of GraphManager::OptimizeSubgraph is [38716892] micro second.",
])
def test_lines_that_do_not_name_the_compile_stage_give_no_compile_failure(line: str) -> None:
    assert "op:compile" not in kinds(line)
