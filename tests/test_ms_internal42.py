"""Session 42: MindSpore's internal-exception title (``MS_INTERNAL_EXCEPTION``) is the framework's own verdict that
an error is its own unexpected one (``fw:internal``, a primary sign of framework_error)."""

from __future__ import annotations

from opsbrain.ingest.parsers import parse_line

# The title and its note as MindSpore prints them (its unit test of the format:
# https://github.com/mindspore-ai/mindspore/blob/master/tests/ut/cpp/utils/log_adapter_test.cc, TestInternalException;
# the same block in a public MindSpore graph-mode report: "RuntimeError: Miss argument input for parameter:offset").
TITLE = "- Framework Unexpected Exception Raised:"
NOTE = ("This exception is caused by framework's unexpected error. Please create an issue at "
        "https://gitee.com/mindspore/mindspore/issues to get help.")


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_the_title_names_the_frameworks_own_error() -> None:
    assert kinds(TITLE) == ["fw:internal"]
    assert "fw:internal" in kinds("Framework Unexpected Exception Raised:")  # a report that drops the dash


def test_other_lines_of_the_block_are_not_the_title() -> None:
    assert "fw:internal" not in kinds(NOTE)
    assert "fw:internal" not in kinds("- C++ Call Stack: (For framework developers)")
    assert "fw:internal" not in kinds("Observe MindSpore error: `Framework Unexpected Exception Raised` in graph mode")


def test_the_class_knows_the_kind() -> None:
    from opsbrain.kb.loader import load_kb

    kb = load_kb()
    roles = {s.kind: s.role for s in kb.classes["framework_error"].signatures.signals}
    assert roles["fw:internal"] == "primary"
