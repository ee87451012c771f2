"""The recovery-targets benchmark's spread interval: the bootstrap range of p90/p50 it prints beside each ratio."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from opsbrain import stats

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "recovery_targets.py"
_spec = importlib.util.spec_from_file_location("recovery_targets", _PATH)
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_no_spread_gives_a_point_interval() -> None:
    assert bench.spread_interval([17.0] * 20) == (1.0, 1.0)


def test_interval_brackets_the_ratio_and_is_reproducible() -> None:
    xs = list(np.random.default_rng(3).lognormal(np.log(30.0), 0.3, 20))
    ratio = stats.quantile(xs, 0.9) / stats.quantile(xs, 0.5)
    band = bench.spread_interval(xs)
    assert band is not None and band == bench.spread_interval(xs)
    lo, hi = band
    assert lo < ratio < hi
    assert lo >= 1.0  # p90 >= p50 in every resample


def test_interval_narrows_with_more_seeds() -> None:
    rng = np.random.default_rng(5)
    few = bench.spread_interval(list(rng.lognormal(np.log(30.0), 0.3, 20)))
    many = bench.spread_interval(list(rng.lognormal(np.log(30.0), 0.3, 400)))
    assert few is not None and many is not None
    assert many[1] - many[0] < (few[1] - few[0]) / 2


def test_too_few_values_give_no_interval() -> None:
    assert bench.spread_interval([5.0]) is None
    assert bench.spread_interval([]) is None


def test_ttr_path_splits_diagnosis_actions_and_the_workloads_own_resumption() -> None:
    run = {"ttr": 17.0, "ttdiag": 5.0, "actions": [
        ("reroute", "succeeded", 5.0, 15.5), ("restart_process", "skipped", 15.5, 15.5),
        ("reroute", "succeeded", 10.0, 16.0),  # a second instance: not counted again
        ("wait", "succeeded", 15.5, 25.5)]}  # ends after the recovery: not a part of it
    assert bench._path(run) == {"diagnosis": 5.0, "reroute": 10.5, "after the last action": 1.5}


def test_ttr_path_of_a_fault_that_healed_before_its_diagnosis() -> None:
    run = {"ttr": 5.0, "ttdiag": 26.0, "actions": [("drain_link", "succeeded", 26.0, 30.0)]}
    assert bench._path(run) == {"after the last action": 5.0}


def test_ttr_path_leaves_a_failed_attempt_in_the_rest() -> None:
    run = {"ttr": 87.0, "ttdiag": 5.0, "actions": [
        ("isolate_hbm_rows", "succeeded", 5.0, 5.7), ("restart_process", "failed", 5.0, 63.2)]}
    path = bench._path(run)
    assert "restart_process" not in path and abs(path["after the last action"] - 81.3) < 1e-9
