"""A parallel layout the launcher rejects is the job's configuration (opsbrain.ingest.parsers.framework)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


@pytest.mark.parametrize("line", [
    # vLLM ModelConfig.verify_with_parallel_config (vllm/config.py)
    "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (3).",
    # MindSpeed-MM troubleshooting guide (corpus part O, o014)
    "RuntimeError: tp_size exceeds num_key_value_heads",
    # MindSpore error-analysis tutorial, distributed parallel "no policy configuration" (corpus part P, p036)
    "[ERROR]The strategy is ((8, 1)), shape 4 can not be divisible by strategy value 8",
])
def test_a_rejected_parallel_layout_is_a_setting(line: str) -> None:
    sigs, _ = ingest_text(line + "\n")
    assert "cfg:env" in {s.kind for s in sigs}


@pytest.mark.parametrize("line", [
    "INFO 08-13 15:31:21 [config.py:1] tensor_parallel_size=4 pipeline_parallel_size=1",  # a launch banner
    "RuntimeError: stack expects each tensor to be equal size, but got [8193] at entry 0 and [8246] at entry 1",
])
def test_a_layout_named_without_a_rejection_is_not(line: str) -> None:
    sigs, _ = ingest_text(line + "\n")
    assert "cfg:env" not in {s.kind for s in sigs}


@pytest.mark.parametrize("line", [
    # an argument list printed at launch (no INFO level on the line): names, not a rejection
    "Namespace(tensor_model_parallel_size=8, pipeline_model_parallel_size=2, invalid_grad_skip=False)",
    "[WARNING] args: tensor_parallel_size=4 " + "x=1 " * 60 + "max_model_len must be set by the user",
])
def test_a_banner_with_a_rejection_word_elsewhere_is_not(line: str) -> None:
    sigs, _ = ingest_text(line + "\n")
    assert "cfg:env" not in {s.kind for s in sigs}


def test_the_layout_regex_is_linear_in_a_long_line() -> None:
    """A 40 kB line of layout words with no rejection (and the reverse): an unbounded gap on both sides scans to the
    line's end from every layout word, quadratic (seconds); bounded, milliseconds. Checked by how the time grows
    (best of three at 1,250 and 5,000 words: 4x linear, 16x quadratic), not by a wall-clock bar a loaded machine can
    miss (session 38: 0.51 s against a 0.5 s bar under a full suite and five other jobs)."""
    import time

    from opsbrain.ingest.parsers.framework import RE_PARALLEL_LAYOUT

    def best(text: str) -> float:
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            assert RE_PARALLEL_LAYOUT.rx.search(text) is None
            times.append(time.perf_counter() - t0)
        return min(times)

    for word in ("tp_size ", "must be "):
        small, large = best(word * 1250), best(word * 5000)
        assert large < 10 * small + 0.005, (word, small, large)


@pytest.mark.parametrize(("line", "sev"), [
    # MindCluster device plugin (Go logger: bracketed stamp, bracketed level), ascend-device-plugin#66
    ("[2026-04-28 07:59:11.955139][WARN]     261     dcmi/dcmi.go:1466    get cur vDev's activity info failed", 1),
    ("[2026-04-28 07:59:07.028433][INFO]     261     server/manager.go:615    Received update trigger, processing", 0),
    # xLLM / ATB C++ logger, xllm#498
    ("[2025-12-08 11:52:44.735471] [error] [69197] [operation_util.h:156] rankSize [16] is invalid", 2),
    # Python logging's default format (lmdeploy), Ascend/pytorch#54
    ("2024-10-21 10:42:00,218 - lmdeploy - ERROR - model_agent.py:489 - Rank[2] failed.", 2),
])
def test_a_level_right_after_a_time_stamp_is_the_lines_level(line: str, sev: int) -> None:
    from opsbrain.ingest.parsers.ctx import stated_level

    assert stated_level(line, None) == sev


def test_a_setting_and_a_failure_far_apart_on_one_line_are_not_one_clause() -> None:
    """CFG_SETTING shares the layout regex's bounded gap (linear in the line; the unbounded one took ~70 ms on a
    4 kB non-ASCII line): a setting and a failing word a clause apart still count, far apart they do not."""
    from opsbrain.ingest.parsers.framework import CFG_SETTING

    assert CFG_SETTING.search("Failed to parse config file: /path/to/acl.json")
    assert not CFG_SETTING.search("config file loaded " + "配置 " * 200 + " one step failed")
