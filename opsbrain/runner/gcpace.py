"""The garbage collector's pace during a long simulated run (session 37).

A year's replay keeps millions of objects alive (log lines, signals, metric segments) and makes millions more that
die young (events, closures). At CPython's default first-generation threshold (700 allocations) the young ones that
outlive a collection are promoted, and the full collections their promotions set off walk every live object: 54 of
them took ~29 of the replay's ~153 CPU seconds. Collecting the youngest generation every :data:`GEN0_THRESHOLD`
allocations lets most of them die first (8 full collections, ~5 s) at the same peak memory. Collection never changes
what a run computes, only when unreachable cycles are freed."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

GEN0_THRESHOLD = 10_000
"""reason: measured on the published trace's replay (benchmarks/bench_replay.py; docs/replay.md, session 37): GC time
34 s at 700, 14 s at (700, 10, 100), 9 s at 10,000; peak RSS 1,146 MB in each."""


@contextmanager
def long_run_gc() -> Iterator[None]:
    """Collect the youngest generation every :data:`GEN0_THRESHOLD` allocations inside the block; the thresholds as
    they were after it."""
    old = gc.get_threshold()
    if old[0]:  # (a threshold of 0, automatic collection switched off, stays off)
        gc.set_threshold(max(old[0], GEN0_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)
