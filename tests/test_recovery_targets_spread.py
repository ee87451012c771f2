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
