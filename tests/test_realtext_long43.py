"""The real-text fallback on a long input (session 43, textgate43): a whole log is read by the lines that state a
failure and their neighbours, not by every word of a run that went on (realtext.LONG_INPUT, FAILURE_STATED)."""

from __future__ import annotations

import io

import pytest

from opsbrain.diagnosis.realtext import LONG_INPUT, NEAR_LINES, shows_failure
from tests.textviews import view_of

PRINT = "npu not support graph capture. current compilation level : CompilationLevel.NO_COMPILATION"
"""vllm-ascend's unlevelled print in a serve log that went well (the blind check's b43d-01)."""


def _serve_log(n: int) -> list[str]:
    """``n`` lines of a vLLM serve start-up at INFO, with two WARNING lines, the unlevelled print and, at the end,
    four unlevelled progress lines among them."""
    out = [f"INFO 03-11 06:18:{i % 60:02d} [launcher.py:34] Route: /v1/route{i}, Methods: POST" for i in range(n)]
    out[3] = "WARNING 03-11 06:17:38 [arg_utils.py:1473] Setting max_num_batched_tokens to 2048 for OPENAI_API_SERVER."
    out[9] = ("WARNING 03-11 06:18:25 [topk_topp_sampler.py:46] FlashInfer is not available. Falling back to the "
              "PyTorch-native implementation of top-p & top-k sampling.")
    out[n // 2] = PRINT
    for k in range(4):
        out[n - 4 + k] = f"Loading safetensors checkpoint shards: {25 * (k + 1)}% Completed | {k + 1}/4"
    return out



def test_an_error_word_in_an_unlevelled_print_is_no_failure_of_a_long_log() -> None:
    long = view_of(_serve_log(LONG_INPUT + 40), "x.log")
    assert long.long and not shows_failure([], long) and long.lines() == []
    short = view_of(_serve_log(12), "x.log")  # a pasted excerpt keeps the rule the model was fitted with
    assert not short.long and shows_failure([], short) and PRINT in [t for _f, _n, t in short.lines()]


def test_a_failure_at_the_end_of_a_long_log_is_read_by_its_lines_and_their_neighbours() -> None:
    fault = ["Loading the model's tokenizer from /models/qwen",
             "Traceback (most recent call last):",
             '  File "/usr/local/lib/python3.10/site-packages/vllm/entrypoints/api_server.py", line 12, in <module>',
             "ValueError: max_model_len (32768) is larger than the maximum number of tokens (26240)"]
    view = view_of(_serve_log(LONG_INPUT + 40) + fault, "x.log")
    got = [t for _f, _n, t in view.lines()]
    assert shows_failure([], view)
    # the traceback and the NEAR_LINES kept lines before it (the fault's first line among them), the lines after it;
    # the warnings and the print, far back, are not read
    assert got == [f"Loading safetensors checkpoint shards: {25 * (k + 1)}% Completed | {k + 1}/4"
                   for k in range(5 - NEAR_LINES, 4)] + [x.strip() for x in fault]


@pytest.mark.parametrize(("line", "states"), [
    ("RuntimeError: Orchestrator initialization failed: Dummy run failed", True),
    ("[ERROR] HCCL(164818,python):2025-08-27-20:10:17:012.787 [config.cc:58][166173][CfgGetClusterInfo]call trace: "
     "hcclRet - >7", True),
    ("[E828 01:40:01.863734538 compiler_depend.ts:429] RopeOperation setup failed!", True),
    ("E0101 12:00:00.000000 1234 file.cc:12] Check failed: ok", True),
    ("Traceback (most recent call last):", True),
    ("kubelet: Error: failed to create containerd task", True),
    ("  exitcode  : 1 (pid: 23273) error", True),
    ("errorCode=0x2a            # 507018 ACL_ERROR_RT_AICPU_EXCEPTION", True),
    ("[drvCreateVdevice]ioctl failed, devid(0), ret(8).", True),
    ("simpler_init failed with code 507899, prepare_callable failed -1,", True),
    ("EZ1001: (PID:696) 2025-10-17-16:26:11.426.903 Assert ((executor) != nullptr) failed", True),
    (PRINT, False),
    ("Device not found or invalid.", False),
    ("the job exited with code 0 after the error was retried", False),
    ("ret=0, no error", False),
])
def test_which_lines_state_a_failure(line: str, states: bool) -> None:
    from opsbrain.diagnosis.realtext import FAILURE_STATED

    assert bool(FAILURE_STATED.search(line)) is states


def test_a_long_healthy_serve_log_is_no_text_answer() -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb import SignatureMatcher, load_kb
    from opsbrain.kb.training import load_engine

    text = "\n".join(_serve_log(LONG_INPUT + 40)) + "\n"
    d = diagnose_logs("-", load_engine(), SignatureMatcher(load_kb()), stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown" and d["decided_by"] == "signals"
