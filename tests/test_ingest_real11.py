"""Readings revised after session 31's tester (unseen public threads): advice and announcements that read like
faults, a progress bar before a line, and HCCL heads with a space between their bracketed fields. Every line is
copied from the thread its comment names."""

from __future__ import annotations

from opsbrain.diagnosis.realtext import excerpt_view
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.surface import plain


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_older_torch_npu_spelling_of_the_debug_advice_is_no_missing_environment() -> None:
    # vllm-project/vllm-ascend#1007 (torch_npu of v0.7.3: "pleace")
    line = ("ERROR 05-29 20:52:26 worker_base.py:581] Since the operator is called asynchronously, the stacktrace may "
            "be inaccurate. If you want to get the accurate stacktrace, pleace set the environment variable "
            "ASCEND_LAUNCH_BLOCKING=1.")
    assert "cfg:env" not in kinds(line)
    assert "cfg:env" not in kinds(line.replace("pleace", "please"))


def test_advice_to_set_an_environment_variable_is_no_missing_environment() -> None:
    # modelscope/ms-swift#1243: DeepSpeed's start-up warning without libaio
    advice = (" [WARNING]  If libaio is already installed (perhaps from source), try setting the CFLAGS and LDFLAGS "
              "environment variables to where it can be found.")
    assert "cfg:env" not in kinds(advice)
    # a line that says a variable is missing is still read (the advice rule takes off the advice only)
    assert "cfg:env" in kinds("RuntimeError: environment variable ASCEND_HOME_PATH not set, try setting the "
                              "environment variable before the run")


def test_an_error_message_announced_as_ignorable_is_benign() -> None:
    # sgl-project/sglang#3781: a healthy server start
    line = ("[2025-02-25 12:05:39 TP0] The following error message 'operation scheduled before its operands' "
            "can be ignored.")
    assert BENIGN.search(line)
    assert "ignored" not in excerpt_view(line)
    assert not BENIGN.search("[ERROR] the error message was not ignored")


def test_a_progress_bar_before_a_line_is_a_head() -> None:
    # modelscope/ms-swift#1243: tqdm's bar, then torch_npu's warning on the same line of the log
    line = ("Train:   0%|                                                        | 0/465 [00:00<?, ?it/s]"
            "[W AclInterface.cpp:181] Warning: 0Failed to find function aclrtCreateEventExWithFlag "
            "(function operator())")
    text, head = plain(line)
    assert text.startswith("[W AclInterface.cpp:181]") and head.endswith("?it/s]")
    bar_only = "Loading safetensors checkpoint shards: 100% 4/4 [00:03<00:00,  1.10it/s]"
    assert plain(bar_only) == (bar_only, "")


def test_a_spaced_hccl_thread_id_is_no_runtime_code() -> None:
    # vllm-project/vllm-ascend#9447: "[file:line] [tid]" with a space; the thread id is not ACL code 106335
    line = ("[ERROR] HCCL(106335,):2026-05-21-21:41:12.783.481 [adapter_hccp.cc:1238] [106335][BatchClose][RaSocket]"
            "errNo[0x000000000500000b] ra socket batch close fail. return[228202], num[1]")
    assert not any(k.startswith("rt:") for k in kinds(line))


def test_no_visible_device_is_the_environment() -> None:
    # vllm-project/vllm-ascend#14631: vLLM's check of the world size against the visible devices
    line = ("AssertionError: local_world_size (8) must be less than or equal to the number of visible devices (0).")
    assert "cfg:env" in kinds(line)
