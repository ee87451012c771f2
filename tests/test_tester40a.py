"""Session 40 (tester40a): a blind look at public Ascend text from LLaMA-Factory, DeepSpeed, transformers,
PaddleCustomDevice, mmcv and ms-swift / MindSpeed threads. Reading fixes: CPython's
``importlib.metadata.PackageNotFoundError`` ("No package metadata was found for <name>", a subclass of
ModuleNotFoundError raised when a distribution is not installed; cpython Lib/importlib/metadata/__init__.py,
https://docs.python.org/3/library/importlib.metadata.html) is a missing package of the environment, as
"No module named" is; a lowercase toolkit file name is no ASCEND_* variable; torch_npu's allocator
fallback warning on expandable segments is no driver failure (open-mmlab/mmcv#3216)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

# https://github.com/huggingface/transformers/pull/36696 (a user's comment: flash_attention_2 on an Ascend host)
PASTE = (
    "it throws an error of `importlib.metadata.PackageNotFoundError: No package metadata was found for flash_attn`:\n"
    "```\n"
    "Traceback (most recent call last):\n"
    '  File "/mnt/ascend/flash_attn_test.py", line 8, in <module>\n'
    "    model = AutoModelForCausalLM.from_pretrained(\n"
    "            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
    '  File "/mnt/ascend/conda/arc/lib/python3.11/site-packages/transformers/models/auto/auto_factory.py", line 600,'
    " in from_pretrained\n"
    "    return model_class.from_pretrained(\n"
)


@pytest.mark.parametrize("line", [
    "importlib.metadata.PackageNotFoundError: No package metadata was found for flash_attn",
    "No package metadata was found for flash_attn",  # the message wrapped onto a line of its own
])
def test_a_missing_distribution_is_an_environment_text(line: str) -> None:
    assert "cfg:env" in [s.kind for s in parse_line(line)]


def test_the_transformers_paste_reads_as_config_error_from_the_signals(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "paste.log"
    f.write_text(PASTE)
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert (d["fault_class"], d["decided_by"]) == ("config_error", "signals")
    assert "cfg:env" in [e["kind"] for e in d["evidence_lines"]]


# https://github.com/open-mmlab/mmcv/issues/3216 (mmcv's environment report on a ModelArts notebook, then the error)
MMCV_ENV = (
    "/home/ma-user/anaconda3/envs/PyTorch-2.1.0/lib/python3.9/site-packages/torch_npu/utils/path_manager.py:82: "
    "UserWarning: Warning: The /usr/local/Ascend/ascend-toolkit/8.0.RC2/aarch64-linux/ascend_toolkit_install.info "
    "owner does not match the current user.",
    "[W compiler_depend.ts:631] Warning: expandable_segments feature is not supportted                     and the "
    "possible cause is that driver and firmware packages do not match. (function operator())",
)


@pytest.mark.parametrize("line", MMCV_ENV)
def test_a_toolkit_file_name_and_the_allocator_fallback_warning_give_no_signal(line: str) -> None:
    # the CANN environment variables are named in capitals (ASCEND_TOOLKIT_HOME); a lowercase file name of the
    # toolkit is none of them. The allocator's warning turns a feature off and goes on (Ascend/pytorch
    # torch_npu/csrc/core/npu/NPUCachingAllocator.cpp, CachingAllocatorConfig, TORCH_NPU_WARN_ONCE).
    assert parse_line(line) == []


def test_an_ascend_environment_variable_is_still_read() -> None:
    assert "cfg:env" in [s.kind for s in parse_line("ERROR: ASCEND_TOOLKIT_HOME is not set")]


def test_the_mmcv_report_reads_as_the_missing_npu_operator(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "mmcv.log"
    f.write_text("\n".join(MMCV_ENV) + "\n# [Bug] RuntimeError: nms_impl: implementation for device npu:0 not found.\n")
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert (d["fault_class"], d["decided_by"]) == ("framework_error", "signals")
