# ruff: noqa: E501  (real log lines, kept whole)
"""MindSpore's start-up environment check warns when a path string is not in a variable; it checks the string, not
the library, and a run that finds its operators another way warns and trains (session 50; :data:`opsbrain.ingest.
benign.BENIGN`, mindspore/python/mindspore/run_check/_check_version.py ``AscendEnvChecker._check_env``)."""

from __future__ import annotations

from opsbrain.ingest.text import ingest_text

TBE = "[WARNING] ME(7763:281472998555824,MainProcess):2024-12-03-14:44:58.669.269 [mindspore/run_check/_check_version.py:396] Can not find the tbe operator implementation(need by mindspore-ascend). Please check whether the Environment Variable PYTHONPATH is set. For details, refer to the installation guidelines: https://www.mindspore.cn/install"
"""mindspore-courses/step_into_llm@72124832 Season1.step_into_chatgpt/1.Transformer/transformer-new.ipynb (a run that
trained on Ascend)."""
DRIVER_SO = "[WARNING] ME(18680:139900608063296,MainProcess):2023-10-31-12:31:20.144.71 [mindspore/run_check/_check_version.py:466] Can not find driver so(need by mindspore-ascend). Please check whether the Environment Variable LD_LIBRARY_PATH is set. For details, refer to the installation guidelines: https://www.mindspore.cn/install"
"""mindspore-lab/mindocr docs/en/tutorials/frequently_asked_questions.md (the warnings above an export's error)."""
MISSING = "ImportError: libascend_hal.so: cannot open shared object file: No such file or directory"
"""What a library really missing says (its own reading stays)."""


def _kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text)[0]]


def test_the_path_string_checks_give_no_signal() -> None:
    assert _kinds(TBE) == [] and _kinds(DRIVER_SO) == []
    assert _kinds(TBE.replace("Can not find", "Cannot find")) == []  # the later releases' spelling


def test_a_library_really_missing_keeps_its_reading() -> None:
    assert _kinds(MISSING) != []
    assert _kinds(TBE + "\n" + MISSING) == _kinds(MISSING)
