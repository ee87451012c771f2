"""ATK's summary table (session 51, tester51m, :class:`opsbrain.ingest.testruns.AtkSummaryScan`): its head and rules
are no failing lines, nor are a performance table's rows (a measured time against a target); a row of an accuracy
table that says ``Failed`` keeps its reading."""

from __future__ import annotations

from tests.textviews import view_of

# flashserve/flash-linear-attention-npu#576 (2026-09-16, chunk_kda_fwd on A3, CANN 9.1.0): the table of a
# performance_device task whose cases all ran (cut, not edited)
PERFORMANCE = """\
----------+------------------+------------------+--------------------+
总用例数 | device性能通过率 | 平均device性能比 | device性能是否达标 |
----------+------------------+------------------+--------------------+
    20    |       0.0        |      0.0337      |       Failed       |
----------+------------------+------------------+--------------------+
"""

# flashserve/flash-linear-attention-npu#519 (2026-09-10, chunk_kda_fwd, CANN 9.1.0): an accuracy task's table
ACCURACY = """\
----------+------------------+------------------+--------------+----------------------+--------+--------------+
总用例数 | 执行成功用例个数 | 执行失败用例个数 | 通过用例个数 | 错误信息匹配用例个数 | 通过率 | 精度是否达标 |
----------+------------------+------------------+--------------+----------------------+--------+--------------+
    1     |        1         |        0         |      0       |          0           |  0.0   |    Failed    |
----------+------------------+------------------+--------------+----------------------+--------+--------------+
"""


def kept(text: str) -> list[int]:
    """The lines with an error word the fallback's view keeps (a rule line has no words to read)."""
    return [n for _f, n, _t in view_of(text).errors]


def test_a_performance_table_gives_the_fallback_no_line() -> None:
    assert kept(PERFORMANCE) == []  # before: the row (its "Failed") was read, config_error 0.38


def test_an_accuracy_table_keeps_only_its_failed_row() -> None:
    assert kept(ACCURACY) == [4]  # before: the head too ("执行失败用例个数", a column's name)


def test_a_passing_accuracy_row_is_no_failing_line() -> None:
    # the same table with the row of a case that passed (made in the shape check_atk_result.py reads: "Pass")
    row = ACCURACY.splitlines()[3]
    passing = ACCURACY.replace(row, row.replace("      0       |", "      1       |").replace("0.0 ", "100.0")
                               .replace("Failed", " Pass "))
    assert "Pass" in passing and "Failed" not in passing
    assert kept(passing) == []


def test_the_table_ends_at_a_line_without_a_bar() -> None:
    # vllm-project/vllm-ascend#15200 (2026-08-28): a runtime line after the table is read as before
    after = PERFORMANCE + ('For details, see the troubleshooting document on the Ascend official website. Search for '
                           'the keyword "AI Core Error".\n')
    assert kept(after) == [6]


# review51: loguru's default format ("{time:YYYY-MM-DD HH:mm:ss.SSS} | {level: <8} | {name}:{function}:{line} -
# {message}", loguru README), a line made here in it with aclnn's failure text, right after the table
LOGURU_AFTER = ("2026-09-16 10:21:33.512 | ERROR    | atk.executor:run:88 - RuntimeError: call aclnnChunkKdaFwd "
                "failed, error code is 561002\n")


def test_a_line_with_other_bars_after_the_table_is_no_row() -> None:
    assert kept(PERFORMANCE + LOGURU_AFTER) == [6]  # before: taken for a row of the performance table, left out
    assert kept(ACCURACY + LOGURU_AFTER) == [4, 6]


def test_the_table_patterns_stay_linear_on_long_lines() -> None:
    import time

    from opsbrain.ingest.testruns import AtkSummaryScan

    scan = AtkSummaryScan()
    assert scan.step(PERFORMANCE.splitlines()[1])
    t = time.perf_counter()
    assert not scan.step("---+" * 25_000 + "x")  # 100 KB: 8 s before (the rule pattern backtracked)
    assert not AtkSummaryScan().step("总用例数 |" * 16_000)  # repeated heads without 是否达标: 0.7 s before
    assert time.perf_counter() - t < 0.5
