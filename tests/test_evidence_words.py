"""Evidence lines word a signal kind without the code table's unfilled message fields."""

from __future__ import annotations

import pytest

from faultlib.telemetry import formats as fmt
from opsbrain.diagnosis.engine import describe_kind


@pytest.mark.parametrize("code", sorted(fmt.HCCL_CODES))
def test_a_documented_hccl_code_is_worded_by_its_first_sentence_without_placeholders(code: str) -> None:
    words = describe_kind(f"hccl:{code}")
    assert code in words and "{" not in words and "}" not in words
    assert fmt.HCCL_CODES[code].split(". ")[0].rstrip(".") in words


def test_an_hccl_kind_without_a_table_row_is_worded_from_its_name() -> None:
    assert describe_kind("hccl:notify_timeout") == "collective error: notify timeout"


def test_a_nan_gradient_alone_is_never_a_confident_silent_corruption() -> None:
    """Megatron's NaN check is the only trace silent corruption leaves, but the job's data and settings print the same
    line (MindSpeed's FAQ: --append-eod with pad == eos): without the NPU silent check, at most 0.6."""
    import tempfile
    from pathlib import Path

    from opsbrain.diagnosis.engine import SDC_UNCONFIRMED_CAP
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    text = ("AssertionError: Rank 13: found NaN in local grad norm in backward pass before data-parallel communication "
            "collective. Device: 5, node: node-15-11\n")
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "train.log"
        f.write_text(text)
        d = diagnose_logs(str(f), load_engine())["diagnosis"]
    assert d["confidence"] <= SDC_UNCONFIRMED_CAP
    if d["fault_class"] == "silent_data_corruption":
        assert any("does not name its cause" in e for e in d["evidence"])


def test_every_kind_the_knowledge_base_names_is_worded_in_evidence() -> None:
    """Session 33: evidence read '1 x rt:sync_failed on npu3', '1 x msg:host_crash', '1 x port:up': the ingestion
    layer's kinds, where the knowledge base's signal signatures word each kind ("stream synchronize failed"). Now
    those words, with the kind beside them for grep; a documented message category is worded by its name."""
    from opsbrain.kb.loader import load_kb

    kinds = {s.kind for c in load_kb() for s in c.signatures.signals}
    assert kinds
    for kind in sorted(kinds):
        words = describe_kind(kind)
        assert words != kind and not words.startswith(f"{kind} "), (kind, words)
    assert describe_kind("rt:sync_failed") == "stream synchronize failed (rt:sync_failed)"
    assert describe_kind("msg:host_crash") == "host crash message (msg:host_crash)"
    assert describe_kind("port:up") == "switch port back up"


def test_a_documented_runtime_code_the_twin_does_not_word_is_named_from_the_code_table() -> None:
    """Session 33: a real plog's retCode 0x7100002 (ACL 207001) read '1 x runtime error 207001 (runtime error)':
    knowledge_base/codes.yaml names it ACL_ERROR_RT_MEMORY_ALLOCATION."""
    from opsbrain.diagnosis.knowledge import documented_rows

    named = {k: str(r["name"]) for ks, r in documented_rows() for k in ks if k.startswith("rt:") and r.get("name")}
    assert named
    for kind, name in sorted(named.items())[:200]:
        if kind[3:].isdigit() and int(kind[3:]) not in fmt.RUNTIME_CODES:
            assert describe_kind(kind) == f"runtime error {kind[3:]} ({name})", kind
    assert describe_kind("rt:207001") == "runtime error 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION)"


def test_evidence_words_come_from_the_compiled_knowledge_base_as_from_the_validated_one() -> None:
    """The words are compiled with the knowledge base (a bundle diagnosis imports no pydantic nor YAML for them):
    the compiled tables equal what the validated knowledge base and codes.yaml give."""
    from opsbrain.kb.compiled import code_names, compiled_kb, kind_words
    from opsbrain.kb.loader import load_kb

    ckb = compiled_kb()
    assert ckb.kind_words == kind_words(load_kb()) and ckb.kind_words
    assert ckb.code_names == code_names() and ckb.code_names["rt:207001"] == "ACL_ERROR_RT_MEMORY_ALLOCATION"
