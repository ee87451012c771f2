"""Review of session 38's A3 numbering (opsbrain/ingest/chipmap.py): a host whose npu-smi output, over several files,
disagrees with itself (the host's own ``npu-smi info -m`` beside one a container of it printed, or an A2 table beside
an A3 one) is read the same whatever the files' order, and no logic id takes a row one table gives and another
contradicts."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from test_a3_real_hosts38 import a2_map, a3_map  # noqa: E402

from opsbrain.ingest.chipmap import A3, ChipMapScan  # noqa: E402


def _scan(*files: list[str]) -> ChipMapScan:
    s = ChipMapScan()
    for f in files:
        s.feed(f)
    return s


def test_two_mapping_tables_that_disagree_give_no_row_of_either() -> None:
    host, container = a3_map([0, 1, 2, 3, 4, 5]), a3_map([4, 5])  # logic id 0: NPU 0's die 0, or NPU 4's
    for files in ((host, container), (container, host)):
        m = _scan(*files).result()
        assert m is not None and m.product == A3  # both show two Ascend910 dies an NPU ID
        assert m.chips == ()  # neither table's rows: the A3 rule, whatever the order
        assert "disagree" in m.by


def test_an_a2_table_beside_an_a3_table_shows_no_product_in_either_order() -> None:
    assert _scan(a3_map([0, 1]), a2_map(2)).result() is None
    assert _scan(a2_map(2), a3_map([0, 1])).result() is None


def test_the_same_table_twice_is_no_disagreement() -> None:
    m = _scan(a3_map([4, 5]), a3_map([4, 5])).result()
    assert m is not None and m.die_of(3) == (5, 1) and "disagree" not in m.by


def test_a_file_that_ends_inside_a_table_does_not_carry_it_into_the_next() -> None:
    cut = a3_map([0, 1])[:-1]  # no blank line after the last row
    m = _scan(cut, ["1 1 7 7 Ascend910"]).result()  # the next file's first line: no row of that table
    assert m is not None and m.die_of(7) != (1, 1) and dict((lid, (n, c)) for lid, n, c in m.chips).get(7) is None


def test_a_row_named_outside_the_910_family_is_no_disagreement() -> None:
    from test_a3_real_hosts38 import status_table

    odd = [r.replace("Ascend910           ", "-                   ", 1) if r.startswith("| 1 ") else r
           for r in status_table(2, 2, "Ascend910")]  # NPU 1's first row names no chip
    m = _scan(a3_map([0, 1]), odd).result()
    assert m is not None and m.a3
