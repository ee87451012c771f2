"""Session 40 (tester40a): a blind look at public Ascend text from LLaMA-Factory, DeepSpeed, transformers,
PaddleCustomDevice, mmcv and ms-swift / MindSpeed threads. One reading fix: CPython's
``importlib.metadata.PackageNotFoundError`` ("No package metadata was found for <name>", a subclass of
ModuleNotFoundError raised when a distribution is not installed; cpython Lib/importlib/metadata/__init__.py,
https://docs.python.org/3/library/importlib.metadata.html) is a missing package of the environment, as
"No module named" is."""

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


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_the_transformers_paste_reads_as_config_error_from_the_signals(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "paste.log"
    f.write_text(PASTE)
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert (d["fault_class"], d["decided_by"]) == ("config_error", "signals")
    assert "cfg:env" in [e["kind"] for e in d["evidence_lines"]]
