"""``sweep run`` on a real source keeps its collection history in the run store (tester AC, 06): a restart kept the
schedule but dropped the 24-h history, so two new HBM UCEs in 24 h fell from Critical to Warning."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from opsbrain.service.scheduler import SweepService, TriggerSpec
from opsbrain.sources import keep
from opsbrain.sources.base import ReadingsSource
from opsbrain.sources.readings import KEEP_RECENT, CollectionHistory, Readings
from opsbrain.sources.service import SourcePod
from opsbrain.store import RunStore

HBM = "n1/npu3/hbm"
T0 = 1_796_400_000.0


class SeqSource(ReadingsSource):
    """Readings of one HBM stack whose lifetime UCE count steps as given, one collection every 300 s."""

    def __init__(self, counts: list[float], t0: float = T0, name: str = "prometheus http://n1:8082/metrics") -> None:
        super().__init__()
        self.name = name
        self.seq: Iterator[tuple[float, float]] = iter((t0 + 300.0 * i, c) for i, c in enumerate(counts))

    def collect(self) -> Readings:
        t, c = next(self.seq)
        return Readings(t, npu_temp_c={"n1/npu3": 45.0}, hbm_ue_total={HBM: c},
                        optics={"n1/npu3/port/xcvr": {"rx_dbm": [-2.0, -2.1]}},
                        module_link={"n1/npu3/port/xcvr": "n1/npu3/port"}, link_oper_down={"n1/npu3/port": False})


def uce(svc: SweepService) -> str:
    report, _ = svc.pod.sweep()
    return next((f.severity for f in report.findings if f.check == "hbm_uce"), "OK")


def service(store: RunStore, src: ReadingsSource) -> SweepService:
    return SweepService(SourcePod(src, name="lab"), store, TriggerSpec("interval", "300.0"))


def test_a_restart_keeps_two_new_uces_in_24_h_critical(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    first = service(store, SeqSource([0.0, 1.0, 3.0]))
    assert [uce(first) for _ in range(3)] == ["OK", "Alarm", "Critical"]
    again = SeqSource([3.0, 3.0], t0=T0 + 900.0)  # the same source after a restart, the same page
    svc = service(store, again)
    assert svc.pod.source.kept is not None and svc.pod.source.kept.restored == 3
    assert uce(svc) == "Critical"  # 3 new within 24 h of the first kept collection, as before the restart
    cov = svc.pod.status()["coverage"]
    assert cov["collections_kept"] == 4 and cov["history_s"] == pytest.approx(900.0)
    kept = cov["history_kept"]
    assert kept["restored"] == 3 and "table sweep_collections" in kept["store"] and "64 MiB" in kept["bounds"]
    assert [t for _, t, _ in store.load_collections("sweep-lab")] == [T0 + 300.0 * i for i in range(4)]


def test_another_sources_rows_are_not_reloaded_and_are_replaced(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    uce(service(store, SeqSource([0.0, 1.0])))
    other = service(store, SeqSource([5.0], t0=T0 + 900.0, name="prometheus http://n2:8082/metrics"))
    assert other.pod.source.kept.restored == 0 and other.pod.source.kept.other_source == 1
    assert uce(other) == "Warning"  # lifetime errors, none new: nothing of n1's history is n2's
    assert {s for s, _, _ in store.load_collections("sweep-lab")} == {"prometheus http://n2:8082/metrics"}


def test_a_fast_schedule_is_thinned_not_unbounded() -> None:
    h = CollectionHistory(max_age_s=86_400.0, max_items=40)
    for i in range(2000):
        h.add(Readings(T0 + 2.0 * i))
    assert len(h.items) <= 41 and h.thinned_s == pytest.approx(86_400.0 / (40 - KEEP_RECENT))
    assert [x.t for x in h.items[-KEEP_RECENT:]] == [T0 + 2.0 * i for i in range(2000 - KEEP_RECENT, 2000)]


def test_the_stored_bytes_are_bounded_oldest_dropped_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = RunStore(tmp_path)
    one = len(keep.encode(SeqSource([0.0]).collect()))
    monkeypatch.setattr(keep, "MAX_BYTES", one * (KEEP_RECENT + 4))
    svc = service(store, SeqSource([0.0] * (KEEP_RECENT + 10)))
    for _ in range(KEEP_RECENT + 10):
        svc.pod.sweep()
    src = svc.pod.source
    rows = store.load_collections("sweep-lab")
    assert sum(len(b) for _, _, b in rows) <= keep.MAX_BYTES and src.kept.dropped_for_size >= 6
    assert [t for _, t, _ in rows] == [x.t for x in src.history.items]  # the store and the memory agree
    assert rows[-1][1] == T0 + 300.0 * (KEEP_RECENT + 9)


def test_a_kept_collection_round_trips() -> None:
    r = SeqSource([2.0]).collect()
    r.optics["n1/npu3/port/xcvr"]["rx_dbm"].append(float("nan"))
    back = keep.decode(keep.encode(r))
    assert back.t == r.t and back.hbm_ue_total == r.hbm_ue_total and back.link_oper_down == r.link_oper_down
    assert back.optics["n1/npu3/port/xcvr"]["rx_dbm"][:2] == [-2.0, -2.1] and back.npu_temp_c == {}
    with pytest.raises(ValueError):
        keep.decode(b"not zlib")


def test_a_store_that_cannot_be_written_does_not_stop_the_sweep(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from opsbrain.store import StoreError

    store = RunStore(tmp_path)
    svc = service(store, SeqSource([0.0, 1.0, 3.0]))
    uce(svc)

    def full(*_a: object) -> int:
        raise StoreError("run store error: database or disk is full; free disk space and run the command again")

    monkeypatch.setattr(store, "save_collections", full)
    assert uce(svc) == "Alarm" and "disk is full" in svc.pod.status()["coverage"]["history_kept"]["error"]
    monkeypatch.undo()
    assert uce(svc) == "Critical" and svc.pod.status()["coverage"]["history_kept"]["error"] is None
    assert len(store.load_collections("sweep-lab")) == 3  # the collection the full disk refused was written later
