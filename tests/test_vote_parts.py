"""The knowledge base's vote leaves out a warning on a part without an error (session 33, engine._vote_features),
but only a warning that names a part: a warning naming none is on no other part (a pasted black-box record's
``msg:device_lost`` beside its ``drv:error``, wrapped or bare, must weigh the same)."""

from __future__ import annotations

from opsbrain.diagnosis.engine import _vote_features
from opsbrain.ingest.signal import Signal


def _sig(kind: str, severity: int, component: str | None) -> Signal:
    return Signal(0.0, kind, component, None, severity, kind)


def test_a_warning_that_names_no_part_stays_in_the_vote() -> None:
    sigs = [_sig("msg:device_lost", 1, None), _sig("drv:error", 2, None)]
    feats = {"kb:x": 1.0, "other": 2.0}
    assert _vote_features(feats, sigs) is feats


def test_a_warning_on_another_part_leaves_the_vote() -> None:
    sigs = [_sig("dev:80E01805", 1, "hostb/npu5"), _sig("sw:down", 2, "hosta/l1sw2")]
    feats = {"kb:x": 1.0, "other": 2.0}
    out = _vote_features(feats, sigs)
    assert out is not feats and out["other"] == 2.0 and "kb:x" not in out
