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


def test_where_no_error_names_a_part_no_warning_is_on_another_part() -> None:
    """A collective's timeout naming no part beside the warning naming the peer it waited for (a CANN document's
    HCCL timeout, dev e021): the peer's warning stays in the verdict, and names its root device."""
    from opsbrain.diagnosis.engine import lone_warnings

    sigs = [_sig("hccl:EI0002", 2, None), _sig("hccl:remote", 1, "90.90.92.240/npu1")]
    assert lone_warnings(sigs) == []
    sigs.append(_sig("sw:down", 2, "hosta/l1sw2"))
    assert [s.kind for s in lone_warnings(sigs)] == ["hccl:remote"]


def test_diagnose_logs_leaves_a_lone_warning_out_of_the_verdict_and_says_so() -> None:
    """The whole input's verdict leaves out what the bundle's incidents leave out (session 34)."""
    import io

    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    text = ("[WARNING] DRV(1187,dmp_daemon):2025-03-01-00:01:41.859.365 [dms_fault.c:688][dev5]Event id=0x80e01805, "
            "assertion=occur\n"
            "2025-03-01 00:10:00.000 gz-l2p2-sw05 %%01IFNET/2/linkDown_active(l): The interface status changes. "
            "(ifName=UB0/0/36, AdminStatus=UP, OperStatus=DOWN)\n")
    d = diagnose_logs("-", load_engine(), None, stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert d["fault_class"] != "hbm_ce_storm", d
    assert any(e.startswith("1 warning on a part without an error left out of the verdict") for e in d["evidence"])
    assert not any("0x80E01805" in e.upper() and e.startswith("1 x") for e in d["evidence"]), d["evidence"]
