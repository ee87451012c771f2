"""Session 40's hardening review (review40): hostile and odd input to the operator entry points."""

from __future__ import annotations

import time
import zlib
from collections import Counter

from opsbrain.bundle import walk as W
from opsbrain.ingest import MAX_LINE


def test_packed_long_line_unpacks_in_linear_time(monkeypatch) -> None:
    """A packed file's single long line (a 200 MB line without a break) is unpacked a chunk at a time without
    joining each chunk to all the line before it: before, every step copied and split the whole line so far (time
    quadratic in its length: 8 MB in 1 KiB steps took many seconds)."""
    monkeypatch.setattr(W, "UNPACK_STEP", 1024)
    line = b"x" * (8 << 20)
    f = W._File("x.log", None, packed=zlib.compress(line + b"\nend\n"))  # type: ignore[arg-type]
    start = time.perf_counter()
    out = list(f.stream())
    assert time.perf_counter() - start < 2.0
    assert [len(s) for s in out] == [len(line), 3, 0]


def test_long_line_judged_on_its_scanned_part() -> None:
    """A line over MAX_LINE is cut before it is judged for junk (as --logs judges it): a NUL past the part scanned
    no longer makes the whole line malformed, and a 200 MB line is not searched whole."""
    scan = object.__new__(W._Scan)
    scan.malformed, scan.cut = Counter(), Counter()
    f = W._File("x.log", None, held=[])  # type: ignore[arg-type]
    raw = "a" * (MAX_LINE + 10) + "\x00"
    assert scan.clean(f, raw) == "a" * MAX_LINE
    assert scan.cut["x.log"] == 1 and not scan.malformed


def test_real_eval_of_a_directory_without_excerpts_is_bad_input(tmp_path) -> None:
    """``kb eval --real DIR`` (and ``--healthy``) on a directory holding no excerpt: exit 2 naming it; before, it
    scored nothing and exited 1 ("below the bar") as if the diagnosis had failed."""
    from click.testing import CliRunner

    from opsbrain.cli import cli

    (tmp_path / "empty").mkdir()
    (tmp_path / "none.yaml").write_text("[]\n")
    for args in (["--real", str(tmp_path / "empty")], ["--healthy", str(tmp_path / "empty")],
                 ["--real", str(tmp_path / "none.yaml")]):
        res = CliRunner().invoke(cli, ["kb", "eval", *args, "--data-dir", str(tmp_path / "home")])
        assert res.exit_code == 2, (args, res.output)
        assert "no excerpt to score" in res.output


def test_real_eval_label_with_a_line_break_is_refused(tmp_path) -> None:
    """A label (or id) with a line break or a control character would break the per-class table and drive the
    terminal: refused with the excerpt's path."""
    import pytest

    from opsbrain.errors import InputError
    from opsbrain.kb.realeval import load_corpus

    (tmp_path / "a.yaml").write_text('- {id: a1, source: s, label: "x\\ny", confidence: firm, basis: b, trap: false, '
                                     'root: null, text: "some line"}\n')
    with pytest.raises(InputError, match=r"\[0\]\.label: label must be one line"):
        load_corpus(tmp_path)


def test_screen_keeps_a_regex_with_the_ascii_flag_on_non_ascii_lines() -> None:
    """With ``re.ASCII`` a non-ASCII letter is no word character for ``re``: ``\\bfoo\\b`` holds in ``中foo中``.
    The stand-in copy turns ``中`` into a word character, so the screen ruled the line out (a missed match);
    such a regex is no longer read on the stand-in copy (session 39's standin analysis assumes Unicode classes)."""
    import re

    from opsbrain.multiscan import Screen

    for rx in (re.compile(r"\bfoo\b", re.ASCII), re.compile(r"(?a)\bfoo\b")):
        for line in ("中foo中 x", "éfooé"):
            assert rx.search(line)
            got = Screen([rx, re.compile("unrelated")]).possible(line)
            assert got is None or 0 in got[0], (rx.pattern, line)


def test_a_spare_taken_by_a_waiter_is_not_returned_to_the_pool_as_well(topo1) -> None:  # type: ignore[no-untyped-def]
    """Session 39's waiter wake-up (d0a5451): a pool node whose chip a response isolated (npu_off_bus on the spare)
    comes back; a node-crash response waiting for a spare takes it, and the same plant change then returned it to
    the pool for the isolating response: the node was in the pool and in the job at once (double-booked)."""
    from faultlib.health import Health
    from faultlib.injection.spec import FaultSpec
    from opsbrain.recovery import Orchestrator, load_runbooks
    from opsbrain.verdict import Diagnosis
    from tests.test_returning_spare import NO_SCALE_IN, _world

    sim, job, spare = _world(topo1)
    chip, crashed = f"{spare}/npu1", job.nodes[4]
    faults = ((50, "offbus", "npu_off_bus", chip, 1e9), (100, "crash", "node_crash", crashed, 36000.0))
    for at, _name, kind, target, lasts in faults:
        sim.inject(FaultSpec(at_s=at, kind=kind, target=target, duration_s=lasts))
    orch = Orchestrator(sim, load_runbooks(), params=NO_SCALE_IN)
    for at, name, kind, target, _lasts in faults:  # each diagnosed 10 s after it
        sim.run(at + 10)
        orch.handle(name, Diagnosis(kind, target, 0.95))
    sim.run(2000)
    assert spare in sim.control.spares and spare not in job.nodes  # its chip out: not schedulable, the crash waits
    sim.state.set_health(chip, Health.HEALTHY, cause="replaced")
    sim.run(4 * 3600)
    assert spare in job.nodes  # the waiter took it at once (session 39)
    assert spare not in sim.control.spares  # and it is not in the pool as well


def test_a_live_log_is_read_as_it_was_when_the_read_began(tmp_path) -> None:
    """``diagnose --logs FILE`` on a log still being written: before, the read followed the writes (a debug log
    written faster than it is parsed, ~2 MB/s, kept the command going up to the 4 GB total cap: a hang). Now the
    file is read up to the size it had when opened, and the answer says how much was written since."""
    from opsbrain.ingest.text import TextStats, read_members

    p = tmp_path / "live.log"
    p.write_bytes(b"first line\n" * 1000)
    stats = TextStats()
    gen = read_members(p, "live.log", stats)
    _label, _rel, u = next(gen)
    head = u.read(100)
    with p.open("ab") as f:
        f.write(b"written later\n" * 1000)
    rest = u.read()
    assert b"later" not in head + rest and len(head + rest) == 11000
    assert next(gen, None) is None
    assert any("14000 bytes written after the read began" in x for x in stats.not_read), stats.not_read
