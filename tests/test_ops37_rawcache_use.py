"""Session 37 (ops37): the raw-array cache (opsbrain.rawcache) keeps the files used last, not those written last.

Before, :func:`rawcache.store` kept the two newest files of a kind by modification time and :func:`rawcache.read`
left that time alone: a copy that every run reads (the model in use) but that was written before two others (a
model tried once, then another) was the one deleted, and the next run decoded its source again. A read now marks
the file used (its modification time set to now), so the pruning goes by last use.
"""

from __future__ import annotations

import os
import time
from array import array
from pathlib import Path

from opsbrain import rawcache


def _put(cache: Path, digest: str, at: float) -> Path:
    path = rawcache.path_for(cache, "model-arrays-", digest)
    rawcache.store(path, digest, {"what": digest}, {"x": array("d", [1.0, 2.0])})
    os.utime(path, (at, at))
    return path


def test_a_copy_read_since_keeps_its_place_over_one_written_later(tmp_path: Path) -> None:
    now = time.time()
    used = _put(tmp_path, "a" * 40, now - 300.0)  # written first ...
    other = _put(tmp_path, "b" * 40, now - 200.0)  # ... another written later, never read again
    got = rawcache.read(used, "a" * 40)  # ... the first one read by this run
    assert got is not None and list(got[1]["x"]) == [1.0, 2.0]
    assert used.stat().st_mtime > other.stat().st_mtime
    third = _put(tmp_path, "c" * 40, now)  # a third made: one of the three goes
    assert used.is_file() and third.is_file() and not other.exists()


def test_a_copy_that_does_not_match_is_not_marked_used(tmp_path: Path) -> None:
    path = _put(tmp_path, "a" * 40, time.time() - 300.0)
    before = path.stat().st_mtime_ns
    assert rawcache.read(path, "d" * 40) is None
    assert path.stat().st_mtime_ns == before
