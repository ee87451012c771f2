"""Session 40 (tester40c): a blind look at Chinese-language Ascend threads and pages (hiascend case library and
forum, MindSpore docs, lmdeploy / gpustack / PaddleCustomDevice / sherpa-onnx / vllm-ascend issues). Reading
fixes: vLLM's Ray set-up saying the cluster holds fewer devices than the parallel sizes ask for (vllm-project/vllm
vllm/executor/ray_utils.py @01eec54927dd101d2d1e8dbf96e35b69699a0b4f, initialize_ray_cluster and
_wait_until_pg_ready) is the job's or the cluster's set-up (``cfg:device``), and gets past the line gate; MindSpore's
allocation-failure title "Memory not enough:" (mindspore-ai/mindspore mindspore/ccsrc/runtime/graph_scheduler/actor/
actor_common.h @94bdab39f64433c95bd69e5aeee25c5473917353, SET_OPCONTEXT_MEMORY_ALLOC_FAIL_BY_STRATEGY) is device
memory exhausted (``mem:oom``) even when a paste cuts the message after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from opsbrain.ingest.parsers import parse_line

# https://github.com/gpustack/gpustack/issues/4171 (the first node's model log of a two-node vLLM deployment on
# Ascend; the second node never joined the Ray cluster)
RAY_NODE1 = (
    "Started a local Ray instance.\n"
    "No current placement group found. Creating a new placement group.\n"
    "The number of required NPUs exceeds the total number of available NPUs in the placement group.\n"
    "Waiting for creating a placement group of specs.\n"
)


@pytest.mark.parametrize("line", [
    # gpustack/gpustack#4171, as vLLM's initialize_ray_cluster logs it
    "The number of required NPUs exceeds the total number of available NPUs in the placement group.",
    # the same function's ValueError when the driver's node has no device (vllm/executor/ray_utils.py)
    "ValueError: Current node has no NPU available. current_node_resource={'CPU': 192.0}. vLLM engine cannot start "
    "without NPU.",
])
def test_a_ray_cluster_short_of_devices_is_the_set_up(line: str) -> None:
    assert "cfg:device" in [s.kind for s in parse_line(line)]


def test_the_words_alone_are_no_device_shortfall() -> None:
    # a sentence about something else that happens to say "available" gives no set-up signal
    assert "cfg:device" not in [s.kind for s in parse_line("INFO 09-23 03:01:22 NPUs available: 8")]


# https://www.hiascend.com/forum/thread-02104167040379530004-1-1.html (MindFormers qwen2_7b on Ascend; the paste is
# cut after MindSpore's title)
MS_CUT = ("MemBufByEagerFree] AllocDeviceMemByEagerFree failed, alloc size : 0. [ERRORI RUNTIME FRAMEWORK(1739195, "
          "ffff8535b0e0,python) :2024-10-09- 14:12:37.081.857 [mindspore/ccsrc/runtime/graph_scheduler/actor/"
          "data_prepare_actor.cc:129] SyncTensorData] #umsg#Memory not enough:#")


@pytest.mark.parametrize("line", [
    MS_CUT,
    # the whole message as MindSpore prints it (actor_common.h)
    "RuntimeError: Memory not enough: Device(id:0) memory isn't enough and alloc failed, kernel name: "
    "Default/MatMul-op1, alloc size: 2147483648B.",
])
def test_mindspore_memory_not_enough_is_device_memory(line: str) -> None:
    assert "mem:oom" in [s.kind for s in parse_line(line)]


def test_the_ray_paste_reads_as_config_error_from_the_signals(tmp_path: Path) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    (tmp_path / "node1.log").write_text(RAY_NODE1)
    d = diagnose_logs(str(tmp_path / "node1.log"), load_engine())["diagnosis"]
    assert "cfg:device" in [e["kind"] for e in d["evidence_lines"]]
    assert (d["fault_class"], d["decided_by"]) == ("config_error", "signals")  # before: framework_error 0.54, text
