"""link_downs from a port's link state: npu-exporter's ``npu_chip_info_link_status`` and ``hccn_tool -i N -link -g``
give the state now, not the downs of 24 h, so a real source counts the state's UP->DOWN changes across its kept
collections (opsbrain/sources/readings.py ``state_downs``): a flapping port seen by periodic collections is counted,
as a lower bound (a down and up again between two collections is not seen), and the coverage output says so."""

from __future__ import annotations

import time
from pathlib import Path

from opsbrain.ingest.commands import parse_command_outputs
from opsbrain.sources.base import link_downs_note
from opsbrain.sources.commands import readings_of
from opsbrain.sources.exporter import COVERS, parse_page
from opsbrain.sources.readings import CollectionHistory, Readings, snapshot_from
from opsbrain.sweeps import SweepParams
from tests.test_exporter_series import MS, NOW, by, family, sweep

PORT = "w/npu5/port"


def states(*seq: bool | None, step: float = 300.0, port: str = PORT) -> list[Readings]:
    """One collection per value, ``step`` s apart (True: DOWN, False: UP, None: the port not read)."""
    return [Readings(NOW + k * step, link_oper_down={} if v is None else {port: v}, covers={"link_downs"})
            for k, v in enumerate(seq)]


def test_up_down_changes_are_counted_and_rated() -> None:
    flaps = states(False, True, False, True, False, True, False, True, False, True)  # 5 downs seen
    f = by(sweep(*flaps), "link_downs")[PORT]
    assert f.severity == "Alarm" and f.data == {"downs": 5, "lower_bound": True}
    assert f.evidence.startswith("at least 5 link-down events in the last 45 min")
    assert "a lower bound" in f.evidence and "between two readings is not seen" in f.evidence
    assert "a missing or unread state is neither UP nor DOWN" in f.evidence
    three = by(sweep(*flaps[:6]), "link_downs")[PORT]
    assert three.severity == "Warning" and three.data["downs"] == 3


def test_what_is_not_a_down_seen() -> None:
    assert by(sweep(*states(True, True, True, True)), "link_downs") == {}       # down all along: when is unknown
    assert by(sweep(*states(False, False, False)), "link_downs") == {}          # up all along
    # not read in between: UP, -, DOWN is one down; a port missing from the newest collection is not swept
    s = snapshot(states(False, None, True, None, False, True, False, True))
    assert s.link_downs.tolist() == [3.0] and s.link_downs_from_states is not None
    # not read is unknown, neither UP nor DOWN: DOWN, -, DOWN and UP, -, UP are no down
    assert snapshot(states(True, None, True, None, True)).link_downs.tolist() == [0.0]
    assert snapshot(states(False, None, False, True)).link_downs.tolist() == [1.0]


def snapshot(seq: list[Readings], p: SweepParams | None = None) -> object:
    hist = CollectionHistory()
    snap = None
    for r in seq:
        snap = snapshot_from(r, hist, p or SweepParams())
    return snap


def test_changes_older_than_the_window_drop_out() -> None:
    p = SweepParams()
    seq = states(False, True, False, True, False, True, step=3600.0)  # 3 downs over 5 h
    late = Readings(seq[-1].t + p.link_down_window_s - 1.5 * 3600.0, link_oper_down={PORT: True})
    s = snapshot([*seq, late], p)  # the first two changes are more than 24 h before the last collection
    assert s.link_downs.tolist() == [1.0]  # the DOWN seen at hour 5 (UP at 4): the DOWNs at 1 and 3 fell out


def test_records_and_changes_are_not_added() -> None:
    """A port with ``-link_stat -g`` records and a ``-link -g`` state: the larger of the two counts, never their sum
    (the records hold the downs the state changes show)."""
    now = time.time()
    ctime = time.ctime

    def collected(k: int, down: bool, recs: int) -> Readings:
        t = now - 3000 + 600 * k
        text = (f"hccn_tool -i 5 -link -g\nlink status: {'DOWN' if down else 'UP'}\n"
                "hccn_tool -i 5 -link_stat -g\n[devid 5]link change records :\n"
                + "".join(f"[devid 5]    {ctime(t - 60 * j - 30)}    LINK DOWN\n" for j in range(recs)))
        return readings_of([parse_command_outputs(text, "w")], t)

    seq = [collected(0, False, 0), collected(1, True, 1), collected(2, False, 1), collected(3, True, 4)]
    s = snapshot(seq)
    assert s.link_downs.tolist() == [4.0] and s.link_downs_from_states is None  # the records say more
    seq = [collected(0, False, 0), collected(1, True, 0), collected(2, False, 0), collected(3, True, 0),
           collected(4, False, 0), collected(5, True, 0)]
    f = by(sweep(*seq), "link_downs")["w/npu5/port"]
    assert f.data == {"downs": 3, "lower_bound": True}


def test_exporter_link_status_pages_over_time() -> None:
    assert "link_downs" in COVERS
    pages = []
    for k, v in enumerate([1.0, 0.0, 1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 0.0, -1.0, 0.0, 1.0, 0.0]):  # -1: unknown
        page = family("npu_chip_info_link_status", {5: v, 0: 1.0}, "the npu link status")
        pages.append(parse_page(page.replace(f" {MS}\n", f" {MS + k * 300_000}\n"), "w", now=NOW + k * 300))
    f = by(sweep(*pages), "link_downs")
    assert list(f) == ["w/npu5/port"] and f["w/npu5/port"].severity == "Alarm" and f["w/npu5/port"].data["downs"] == 5


def test_coverage_says_the_count_is_a_lower_bound(tmp_path: Path) -> None:
    hist = CollectionHistory()
    for r in states(False, True, False):
        hist.add(r)
    note = link_downs_note(hist)
    assert "3 collections over 0.2 h" in note and "lower bound" in note and "between two collections" in note
    one = CollectionHistory()
    one.add(states(False)[0])
    assert "need two or more" in link_downs_note(one)

    from opsbrain.sources.commands import CommandDirSource

    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "link.txt").write_text("hccn_tool -i 5 -link -g\nlink status: UP\n")
    src = CommandDirSource(tmp_path)
    from opsbrain.sources import sweep_source

    sweep_source(src)
    assert "need two or more" in src.coverage()["link_downs"]
