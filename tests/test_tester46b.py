"""Session 46 (tester46b): a blind look at multimodal, diffusion, video and speech runs on Ascend (torch_npu,
ComfyUI, sherpa-onnx, vllm-omni, mmcv). One reading fix: ``os:segfault`` is also read from ``core dumped``, the
suffix the shell prints after any signal that dumps core, so an abort (SIGABRT; glibc's strsignal text
"Aborted", signal/siglist.h) was explained as "crashed with a segmentation fault". Ascend/pytorch#7 shows
``Aborted (core dumped)`` after an ``init env failed`` error; the evidence now says the process crashed and dumped
core, without naming a signal the line does not name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.ingest.parsers import parse_line

# https://github.com/Ascend/pytorch/issues/7 (a maintainer: dependencies installed incompletely)
INIT_ENV_ABORT = (
    ">>> print(x)\n"
    "EH9999: Inner Error!\n"
    "EH9999  [Init][Env]init env failed![FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]\n"
    "        TraceBack (most recent call last):\n"
    "        build op model failed, result = 500001[FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]\n"
    "\n"
    "Aborted (core dumped)\n"
)


def test_an_abort_that_dumped_core_is_not_called_a_segmentation_fault(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    assert "os:segfault" in [s.kind for s in parse_line("Aborted (core dumped)")]
    f = tmp_path / "run.log"
    f.write_text(INIT_ENV_ABORT)
    got = diagnose_logs(str(f), engine)["diagnosis"]
    assert got["fault_class"] == "config_error"
    crash = [e for e in got["evidence"] if "(os:segfault)" in e]
    assert crash and "crashed with a segmentation fault" not in crash[0] and "dumped core" in crash[0]
