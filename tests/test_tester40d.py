"""Session 40 (tester40d): a blind look at MindSpore-family and Ascend serving text (mindspore-lab mindone /
mindocr / mindcv, MindSpore docs, vllm-ascend, sglang, torchair, xDiT). Reading fix: a MindSpore warning that an
environment variable is unset or empty and which default it takes instead is no missing environment
(mindspore-ai/mindspore, mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc and
ascend_runtime_core.cc, ``GetDumpPath``: ``The environment variable 'MS_OM_PATH' is not set, the files will save to
the process local path, as ./rank_id/...`` and ``Environment variable 'RANK_ID' is empty, using the default value:
0``, both MS_LOG(WARNING))."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

# https://github.com/mindspore-lab/mindone/issues/207 (Stable Diffusion 1.5 inference on Ascend; the run then fails,
# the traceback is cut before its exception)
MS_OM_PATH = ("[WARNING] DEVICE(28702,fffe6742d1e0,python):2023-11-01-14:25:31.969.610 "
              "[mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:801] GetDumpPath] The "
              "environment variable 'MS_OM_PATH' is not set, the files will save to the process local path, as "
              "./rank_id/exec_order/...")
# the same MindSpore helper (GetDumpPath), the rank-id fallback
RANK_ID = ("[WARNING] DEVICE(28702,fffe6742d1e0,python):2023-11-01-14:25:31.969.600 "
           "[mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:790] GetDumpPath] "
           "Environment variable 'RANK_ID' is empty, using the default value: 0")

MINDONE_207 = (
    "   In file /home/ma-user/work/mindone/examples/stable_diffusion_v2/ldm/modules/encoders/text_encoder.py:172/"
    "        x = self.transformer_layer(x)/\n"
    "\n"
    + MS_OM_PATH + "\n"
    "[ERROR] DEVICE(28702,fffe6742d1e0,python):2023-11-01-14:25:31.979.197 "
    "[mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:906] DumpDebugInfoFile] Execute "
    "order has saved at /home/ma-user/work/mindone/examples/stable_diffusion_v2/rank_0/exec_order/kernel_graph_7.csv\n"
    "Traceback (most recent call last):\n"
    '  File "text_to_image.py", line 497, in <module>\n'
    "    main(args)\n"
    '  File "text_to_image.py", line 255, in main\n'
    "    uc = model.get_learned_conditioning(tokenized_negative_prompts)\n"
)


@pytest.mark.parametrize("line", [MS_OM_PATH, RANK_ID])
def test_an_environment_default_taken_is_no_missing_environment(line: str) -> None:
    assert "cfg:env" not in [s.kind for s in parse_line(line)]


@pytest.mark.parametrize("line", [
    "[ERROR] launcher: environment variable ASCEND_HOME_PATH is not set",
    "RuntimeError: the environment variable RANK_TABLE_FILE is not set, please set it",
    "[WARNING] GetDumpPath] The environment variable 'MS_OM_PATH' is not set, the files will save to the process "
    "local path; libascend_hal.so: cannot open shared object file: No such file or directory",
])
def test_a_missing_variable_still_reads_as_the_environment(line: str) -> None:
    assert "cfg:env" in [s.kind for s in parse_line(line)]


def test_the_mindone_paste_is_no_config_error(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "paste.log"
    f.write_text(MINDONE_207)
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert d["fault_class"] != "config_error"
    assert "cfg:env" not in [e["kind"] for e in d["evidence_lines"]]
