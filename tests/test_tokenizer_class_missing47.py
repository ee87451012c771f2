"""A tokenizer class the installed transformers does not have is the versions installed (cfg:version), not the
program (session 47, tester47o). transformers' AutoTokenizer raises ``ValueError: Tokenizer class <name> does not
exist or is not currently imported.`` (models/auto/tokenization_auto.py); the line below is verbatim from
vllm-ascend#8213 (https://github.com/vllm-project/vllm-ascend/issues/8213, MiniMax-M2.7 naming ``TokenizersBackend``,
a transformers v5 class). Before this change the excerpt read framework_error at 0.50 (blind b47o-03)."""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.parsers import parse_line

LINE = ("(ApiServer_0 pid=44574) ValueError: Tokenizer class TokenizersBackend does not exist or is not currently "
        "imported.")
# the issue's excerpt as posted (blind b47o-03), lines joined to stay within the line length
TRACE = "\n".join([
    "(ApiServer_0 pid=44574)   File \"/vllm-workspace/vllm/vllm/renderers/hf.py\", line 601, in from_config",
    "(ApiServer_0 pid=44574)     cached_get_tokenizer(",
    "(ApiServer_0 pid=44574)   File \"/vllm-workspace/vllm/vllm/tokenizers/registry.py\", line 221, in get_tokenizer",
    "(ApiServer_0 pid=44574)     tokenizer = tokenizer_cls_.from_pretrained(tokenizer_name, *args, **kwargs)",
    "(ApiServer_0 pid=44574)   File \"/vllm-workspace/vllm/vllm/tokenizers/hf.py\", line 110, in from_pretrained",
    "(ApiServer_0 pid=44574)     raise e",
    "(ApiServer_0 pid=44574)   File \"/vllm-workspace/vllm/vllm/tokenizers/hf.py\", line 85, in from_pretrained",
    "(ApiServer_0 pid=44574)     tokenizer = AutoTokenizer.from_pretrained(",
    "(ApiServer_0 pid=44574)   File \"/usr/local/python3.11.14/lib/python3.11/site-packages/transformers/models/auto/"
    "tokenization_auto.py\", line 1153, in from_pretrained",
    "(ApiServer_0 pid=44574)     raise ValueError(",
    LINE,
]) + "\n"


def test_the_missing_tokenizer_class_is_the_installed_versions() -> None:
    assert "cfg:version" in [s.kind for s in parse_line(LINE)]


def test_a_tokenizer_that_exists_is_no_reading() -> None:
    assert "cfg:version" not in [s.kind for s in parse_line("INFO tokenizer class Qwen2Tokenizer loaded")]


def test_the_issue_excerpt_reads_config_error(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(TRACE.encode()))["diagnosis"]
    assert d["fault_class"] == "config_error", (d["fault_class"], d["confidence"], d.get("evidence_lines"))
