"""MindIE LLM's documented out-of-memory and HBM multi-bit ECC codes read as the causes they name (session 48, the
lead; :data:`opsbrain.ingest.parsers.mindie.LLM_CAUSES`, from Ascend/MindIE-LLM mindie_llm/utils/log/error_code.py).
The lines are ``ErrorCodeException``'s message as that file builds it (``<NAME> fault happened, error code:
<code>.``)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def _kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


@pytest.mark.parametrize(("line", "kind"), [
    ("RuntimeError: TEXT_GENERATOR_OUT_OF_MEMORY fault happened, error code: MIE05E01000A.", "mem:oom"),
    ("RuntimeError: ATB_MODELS_OUT_OF_MEMORY fault happened, error code: MIE05E000005.", "mem:oom"),
    ("RuntimeError: TEXT_GENERATOR_HBM_MULTI_BIT_ECC_ERROR fault happened, error code: MIE05E01000B.", "ecc:uce"),
])
def test_a_documented_cause_code_reads_as_its_cause(line: str, kind: str) -> None:
    assert {kind, f"err:{line.rsplit(' ', 1)[1].rstrip('.')}"} <= _kinds(line)


@pytest.mark.parametrize("line", [
    "RuntimeError: TEXT_GENERATOR_PD_PULL_KV_ERROR fault happened, error code: MIE05E01001A.",
    "RuntimeError: BACKEND_CONFIG_INVALID fault happened, error code: MIE05E020000.",
])
def test_the_other_codes_name_no_cause(line: str) -> None:
    kinds = _kinds(line)
    assert not kinds & {"mem:oom", "ecc:uce", "ecc:ce"}
