"""The imported knowledge's anchors are kept beside the screen plans: a process reads them instead of computing
~1,800 of them, and a kept list that does not fit is never used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opsbrain.kb import matcher


def test_kept_anchors_equal_computed_ones_and_a_bad_file_is_recomputed(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path))
    groups = [("Kernel panic - not syncing",), ("hccl", "notify wait timeout"), ("Event id=0x80e01801",)]
    want = [matcher._anchor(g) for g in groups]
    assert matcher._anchors(groups) == want  # computed and written
    files = list((tmp_path / "cache").glob("screen-anchors-*.json"))
    assert len(files) == 1
    assert matcher._anchors(groups) == want  # read back
    doc = json.loads(files[0].read_text())
    doc["plan"]["anchors"] = doc["plan"]["anchors"][:1]  # a list that does not fit the groups
    files[0].write_text(json.dumps(doc))
    assert matcher._anchors(groups) == want
    assert matcher._anchors(groups[:2]) == want[:2]  # other groups: another key, not the kept list
