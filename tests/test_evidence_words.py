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
