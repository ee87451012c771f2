"""Readings written from session 55's later blind looks (tester55g, tester55h), each on its real lines.

- Hydra's footer ``Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace.`` is a run notice, not
  a missing variable (ji-huazhong/verl@6ae8a79 bugfix.md: b55g-04, b55g-05 read config_error from it).
- A path of the wrong kind (``IsADirectoryError`` / ``NotADirectoryError``) is the job's arguments (b55g-08).
- An error that names its fix as a setting of the configuration (MindSpeed's ``Please set micro_batch_size or set
  use_flash_attn=True in config.``) is the job's settings (b55g-10).
- llama.cpp's ``KV cache shifting is not supported for this context, disabling KV cache shifting`` is a start-up
  notice (b55h-07: a llama-server that went on to serve read framework_error 0.64).
- uv's ``can't be installed because it doesn't have a source distribution or wheel for the current platform`` is the
  requirements and the platform (b55h-10: itove/ascend, triton 3.0.0 on an aarch64 host).
"""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from tests.textviews import line_kinds as kinds

HYDRA = "Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace."
MINDSPORE_DIR = ("IsADirectoryError: For 'save_checkpoint', the parameter `ckpt_file_name`: "
                 "/home/ma-user/work/model_new is a directory, it must be a file name.")
SET_IN_CONFIG = "RuntimeError: Please set micro_batch_size or set use_flash_attn=True in config."
KV_SHIFT = "common_init_from_params: KV cache shifting is not supported for this context, disabling KV cache shifting"
KV_SHIFT_W = ("0.00.333.397 W common_init_from_params: KV cache shifting is not supported for this context, "
              "disabling KV cache shifting")
UV = ("error: Distribution `triton==3.0.0 @ registry+https://pypi.org/simple` can't be installed because it doesn't "
      "have a source distribution or wheel for the current platform")


def _diagnose(engine: Any, lines: list[str]) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO("\n".join(lines).encode()))["diagnosis"]


def test_hydras_footer_is_a_notice(engine: Any) -> None:
    assert BENIGN.search(HYDRA) and kinds(HYDRA) == []
    assert BENIGN.search("  " + HYDRA + "  ")
    assert not BENIGN.search("Set the environment variable HYDRA_FULL_ERROR=1 for a complete stack trace. KeyError: x")
    # ji-huazhong/verl@6ae8a79 bugfix.md (b55g-04): the footer under a RoPE split error fixed in code
    split = ("RuntimeError: split_with_sizes expects split_sizes to sum exactly to 448 (input tensor's size at "
             "dimension 0), but got split_sizes=[56, 56]")
    assert _diagnose(engine, [split, "", HYDRA])["fault_class"] == "framework_error"


def test_a_path_of_the_wrong_kind_is_the_jobs_arguments() -> None:
    for line in (MINDSPORE_DIR, "IsADirectoryError: [Errno 21] Is a directory: '/data/models/qwen'",
                 "NotADirectoryError: [Errno 20] Not a directory: '/data/x'",
                 "OSError: [Errno 21] Is a directory: 'a'"):
        assert "cfg:env" in kinds(line), line
    assert "cfg:env" not in kinds('    raise IsADirectoryError("For x")')  # a frame's source line


def test_an_error_naming_a_setting_in_the_config() -> None:
    assert "cfg:env" in kinds(SET_IN_CONFIG)
    assert "cfg:env" in kinds("ValueError: please specify `tokenizer_path` in the configuration file")
    assert "cfg:env" not in kinds("INFO please set x in config")  # no failure stated
    assert "cfg:env" not in kinds("RuntimeError: Please set the tensor in place.")


def test_llama_cpps_kv_shift_notice_gives_nothing() -> None:
    for line in (KV_SHIFT, KV_SHIFT_W, "0.00.333.389 W get_kv_self: llama_context_base does not have a KV cache"):
        assert BENIGN.search(line) and kinds(line) == []


def test_uvs_missing_wheel_is_the_installation() -> None:
    assert "cfg:env" in kinds(UV)


# Weigaa/qwen30b_tpu_verl@7cc4a888 pure-highkv-mode3-1.txt (b55d-01): a run that finished, then TBE's teardown
FINISHED = ["(TaskRunner pid=1096669) Epoch 0 completed in 526.64 seconds.",
            "[main] After run_ppo, program should exit soon"]
TBE_GONE = ["(WorkerDict pid=1099129) [ERROR] TBE Subprocess[task_distribute] raise error[], main process "
            "disappeared!"] * 3
DAEMON = [
    "(WorkerDict pid=1099129) Process ForkServerProcess-10:",
    "(WorkerDict pid=1099129) Traceback (most recent call last):",
    '(WorkerDict pid=1099129)   File "/usr/local/python3.11.13/lib/python3.11/multiprocessing/process.py", line 314, '
    "in _bootstrap",
    "(WorkerDict pid=1099129)     self.run()",
    '(WorkerDict pid=1099129)   File "/usr/local/Ascend/ascend-toolkit/latest/python/site-packages/tbe/common/'
    'repository_manager/utils/common.py", line 110, in daemon_process',
    "(WorkerDict pid=1099129)     os.kill(mgr_pid, signal.SIGKILL)",
    "(WorkerDict pid=1099129) ProcessLookupError: [Errno 3] No such process",
]


def test_the_tbe_daemons_teardown_after_its_main_process_is_gone_is_no_failure(engine: Any) -> None:
    assert _diagnose(engine, FINISHED + TBE_GONE + DAEMON)["fault_class"] == "unknown"


def test_the_same_traceback_without_the_main_process_gone_is_read(engine: Any) -> None:
    d = _diagnose(engine, FINISHED + DAEMON)
    assert any(e["kind"] == "py:ProcessLookupError" for e in d["evidence_lines"])


def test_another_exception_after_the_tbe_lines_is_read(engine: Any) -> None:
    other = [line.replace("ProcessLookupError: [Errno 3] No such process",
                          "RuntimeError: ACL stream synchronize failed, error code:507035") for line in DAEMON]
    assert _diagnose(engine, FINISHED + TBE_GONE + other)["fault_class"] != "unknown"
