"""``diagnose --bundle``'s fast paths leave every answer as the plain per-line paths give it.

The reader's block scan (:func:`opsbrain.bundle.stamps.block_scan`: one regex pass a file for levels and time stamps)
is switched off, the reader keeps a record of every line (not only of those the shared block scan of the parsers and
the matcher keeps: ``keep``), and the rank collector's early return for lines it has nothing to read in is switched
off, and the whole report (incidents, diagnosis, knowledge, root cluster, counts) and every line read must be the
same, on:

- the hand-written bundles of tests/fixtures/bundles;
- a built-in scenario's exported bundle, as written and with noise added to its files (stamp-like text, impossible
  dates, stamps past the searched head, continuation lines, blank lines, a non-ASCII line);
- ascend-fd's own test inputs (../shared/reference/ascend-fd-fixtures), when present.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose as D
from opsbrain.bundle import diagnose_bundle, scan_bundle
from opsbrain.bundle import timed as T
from opsbrain.ingest import ranks

FIX = Path(__file__).parent / "fixtures" / "bundles"
ASCEND_FD = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "ascend-fd-fixtures"


@pytest.fixture(scope="module")
def tools() -> tuple[Any, Any]:
    """The shipped engine and a matcher with whatever vendor knowledge the data directory holds."""
    from opsbrain.kb import SignatureMatcher, load_imported, load_kb
    from opsbrain.kb.training import load_engine

    return load_engine(), SignatureMatcher(load_kb(), load_imported(strict=False))


def _answers(path: Path, engine: Any, matcher: Any) -> tuple[str, list[tuple[Any, ...]], str]:
    rep = diagnose_bundle(path, engine, matcher)
    rep.pop("timing_s")
    read = scan_bundle(path)
    lines = [(ln.t, ln.origin, ln.source, ln.level, ln.text, ln.file, ln.line, ln.job) for ln in read.lines]
    return json.dumps(rep, sort_keys=True, default=str), lines, repr(read.ranks)


def _same_both_ways(path: Path, engine: Any, matcher: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    fast = _answers(path, engine, matcher)
    with monkeypatch.context() as m:
        m.setattr(T, "style_ready", lambda style: False)  # every file line by line
        m.setattr(D, "_keep", lambda matcher: None)  # a record of every line, the block scan over all of them
        m.setattr(ranks, "_IDENTITY_WORDS", re.compile(""))  # every plog line through _identity
        plain = _answers(path, engine, matcher)
    assert fast[0] == plain[0]
    assert fast[1] == plain[1]
    assert fast[2] == plain[2]
    return fast[1]


@pytest.mark.parametrize("name", sorted(p.name for p in FIX.iterdir() if p.is_dir()))
def test_hand_written_bundles(name: str, tools: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    assert _same_both_ways(FIX / name, *tools, monkeypatch) or name == "broken"


@pytest.fixture(scope="module")
def scenario_bundle(tmp_path_factory: pytest.TempPathFactory, tools: tuple[Any, Any]) -> Path:
    from opsbrain import chaos
    from opsbrain.runner.run import run_plan

    out = tmp_path_factory.mktemp("bundles")
    journal = run_plan(chaos.plan("hbm-uce-training"), tools[0], bundle_dir=out)
    return Path(next(b for b in journal["bundles"] if b["incident"].startswith("f"))["path"])


NOISE = [
    "continuation of the line before, no time stamp",
    "   ",
    "",
    "[ERROR] RUNTIME(1,python):2025-13-01-00:00:00.000.000 [x.cc:1][2]month 13",
    "[INFO] HCCL(7,python):2025-03-01-24:00:00.000.000 [x.cc:1][2]hour 24, then 2025-03-01 00:00:01.5 in the text",
    "[WARN ] " + "x" * 90 + "2025-03-01-00:00:02.000.000 past the searched head",
    "2025-03-01 00:00:03 an ISO stamp without a fraction",
    "[2025/03/01 00:00:04.12] a hwlog stamp with two fraction digits",
    "Mar  1 00:00:05 host kernel: a syslog stamp",
    "[ERROR] HCCL(9,python):2025-03-01-00:00:06.000.000 [x.cc:1][2]recv fail, rankNum[8], rank[1]",
    "[error]\tlower-case level 2025-02-29 00:00:07 (no such day in 2025)",
    "0000-01-01 00:00:08 year zero",
]


def test_scenario_bundle_as_written_and_with_noise(scenario_bundle: Path, tools: tuple[Any, Any],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(_same_both_ways(scenario_bundle, *tools, monkeypatch)) > 10  # no closing plog lines, no job events
    rng = random.Random(14)
    files = sorted(p for p in scenario_bundle.rglob("*") if p.is_file() and p.suffix in (".log", ".txt", ""))
    for p in files:
        lines = p.read_text().split("\n")
        for _ in range(8):
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(NOISE))
        p.write_text("\n".join(lines))
    noisy = files[0]
    noisy.write_text(noisy.read_text() + "\n2025-03-01 00:00:09 caf\u00e9 (a non-ASCII line: read line by line)\n")
    assert len(_same_both_ways(scenario_bundle, *tools, monkeypatch)) > 10


@pytest.mark.skipif(not ASCEND_FD.is_dir(), reason="../shared/reference/ascend-fd-fixtures is absent")
@pytest.mark.parametrize("case", ["st_event_timeout_testcase", "st_module_testcase", "st_testcase",
                                  "st_transport_init_testcase"])
def test_ascend_fd_fixtures(case: str, tools: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    assert _same_both_ways(ASCEND_FD / case, *tools, monkeypatch)


def test_the_replay_reads_the_detectors_compiled_defaults(tmp_path: Path) -> None:
    from opsbrain.detection import DetectorParams
    from opsbrain.kb.compiled import compiled_kb

    assert vars(compiled_kb(tmp_path).detector_params) == DetectorParams().model_dump()


def test_a_bundle_diagnosis_imports_no_pydantic_numpy_or_bundle_writer(tmp_path: Path) -> None:
    import subprocess
    import sys

    cmd = [sys.executable, "-X", "importtime", "-m", "opsbrain", "diagnose", "--bundle", str(FIX / "hbm-uce-real")]
    env = {"OPSBRAIN_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    subprocess.run(cmd, capture_output=True, env=env, check=False)  # compiles the caches
    run = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    imported = {ln.rsplit("|", 1)[-1].strip() for ln in run.stderr.splitlines() if ln.startswith("import time:")}
    assert "incident" in run.stdout and "opsbrain.bundle.reader" in imported, run.stdout + run.stderr
    unwanted = {"pydantic", "numpy", "pandas", "sklearn", "scipy", "faultlib.params", "opsbrain.bundle.writer",
                "opsbrain.bundle.export"}
    assert not imported & unwanted


# ---- a bundle whose files carry container heads reads as the bundle without them ------------------------------
def _with_heads(src: Path, dst: Path) -> Path:
    """``src`` copied with a CRI head on every line of its log files (``kubectl logs --prefix`` over it in the
    plogs, an ANSI colour around the level in the device-plugin log), as a collection from containers leaves them.
    A head's stamp is the time the reader gives its line in ``src`` (a line without a stamp of its own takes the
    head's, as from pasted text: here the time it took from the line before); the lines it leaves out get none."""
    import shutil
    from datetime import datetime, timedelta

    read = scan_bundle(src)
    origin = datetime.fromisoformat(read.report["time_origin"])
    when = {(ln.file, ln.line): origin + timedelta(seconds=ln.t) for ln in read.lines}
    shutil.copytree(src, dst)
    for p in sorted(dst.rglob("*")):
        if not p.is_file() or p.suffix in (".json", ".csv", ".md"):
            continue
        rel = str(p.relative_to(dst))
        pod = "[pod/train-0/main] " if "plog" in p.name else ""
        lines = p.read_text().split("\n")
        if "devicePlugin" in p.name:
            lines = [ln.replace("[ERROR]", "\x1b[31m[ERROR]\x1b[0m", 1) for ln in lines]
        out = []
        for i, ln in enumerate(lines, 1):  # a line the reader leaves out (untimed, read twice) keeps no head
            dt = when.get((rel, i))
            out.append(f"{pod}{dt:%Y-%m-%dT%H:%M:%S.%f}123Z stdout F {ln}" if dt is not None else ln)
        p.write_text("\n".join(out))
    return dst


def _read_as(path: Path, engine: Any, matcher: Any) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    rep = diagnose_bundle(path, engine, matcher)
    for k in ("timing_s", "bundle"):
        rep.pop(k)
    lines = [(ln.t, ln.origin, ln.source, ln.level, ln.text, ln.file, ln.line, ln.job)
             for ln in scan_bundle(path).lines]
    return json.loads(json.dumps(rep, sort_keys=True, default=str)), lines


@pytest.mark.parametrize("which", ["hbm-uce-real", "roce-down-single", "scenario"])
def test_a_bundle_with_cri_and_kubectl_heads_reads_as_without(which: str, scenario_bundle: Path, tmp_path: Path,
                                                              tools: tuple[Any, Any],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from opsbrain.bundle import walk
    from opsbrain.ingest.surface import may_carry

    # a run of repeated lines is folded as read (session 36), heads and all: a collector's heads (their own stamps)
    # make the copies differ, so both are read unfolded here (tests/test_repeats36.py: folding gives the same answer)
    monkeypatch.setattr(walk, "_folded", lambda u: (u.read(), None))

    src = scenario_bundle if which == "scenario" else FIX / which
    headed = _with_heads(src, tmp_path / "headed" / src.name)  # the same name: a bundle of one worker is named so
    assert may_carry((next(headed.rglob("plog-*.log"))).read_bytes())
    # (a plog of one line has no second head: any plog of several lines shows one; rglob's order is the disk's)
    assert any("\n[pod/train-0/main] 20" in p.read_text() for p in headed.rglob("plog-*.log"))
    want, want_lines = _read_as(src, *tools)
    got, got_lines = _read_as(headed, *tools)
    assert got_lines == want_lines  # every line's time, text, level, origin and place; the heads taken off
    assert got["diagnosis"] == want["diagnosis"] and got["incidents"] == want["incidents"]
    assert got["knowledge"] == want["knowledge"] and got["signals"] == want["signals"]
    untimed = got["lines"].pop("untimed"), want["lines"].pop("untimed")
    placed = got["lines"].pop("placed"), want["lines"].pop("placed")
    assert got["lines"] == want["lines"]
    assert untimed[0] <= untimed[1]  # a line counted untimed that took the time of the line before has a head's now
    assert placed[0] <= placed[1]  # and one placed at the file's first stamp, too


def test_a_heads_stamp_stands_in_for_a_line_without_one(tmp_path: Path) -> None:
    plog = tmp_path / "worker-0" / "process_log" / "run" / "plog" / "plog-1_20250301000000000.log"
    plog.parent.mkdir(parents=True)
    plog.write_text("2025-03-01T00:00:05.250000Z stderr F Traceback (most recent call last):\n"
                    "2025-03-01T00:00:06.500000Z stderr F [ERROR] RUNTIME(1,python):2025-03-01-00:00:07.000.000 "
                    "[x.cc:1]1 open device failed\n")
    read = scan_bundle(tmp_path)
    assert [(ln.text[:9], ln.level) for ln in read.lines] == [("Traceback", None), ("[ERROR] R", "ERROR")]
    assert read.lines[1].t - read.lines[0].t == pytest.approx(1.75)  # the head's stamp, then the line's own
    assert read.report["lines"]["untimed"] == 0


def test_nothing_inside_a_twin_bundle_names_the_injected_fault(tmp_path: Path) -> None:
    """The round trip's expectation (the injected fault, the simulation's diagnoses, the scenario) is a sidecar beside
    the bundle, not a file in it: a reader of the bundle cannot find the ground truth."""
    from opsbrain import chaos
    from opsbrain.bundle import check_bundle
    from opsbrain.bundle.writer import sim_sidecar
    from opsbrain.kb.training import load_engine
    from opsbrain.runner.run import run_plan

    engine = load_engine()
    journal = run_plan(chaos.plan("hbm-uce-training"), engine, bundle_dir=tmp_path / "b")
    paths = [Path(b["path"]) for b in journal["bundles"] if "error" not in b]
    assert paths
    for path in paths:
        text = "\n".join(f.read_text(errors="replace") for f in path.rglob("*") if f.is_file())
        assert "in_simulation" not in text and "hbm-uce-training" not in text and '"injected"' not in text
        assert "in_simulation" in sim_sidecar(path).read_text()
        chk = check_bundle(path, engine)
        assert chk["comparisons"] and chk["expectation"] == sim_sidecar(path).name  # the expectation, from beside it
        sim_sidecar(path).rename(tmp_path / "moved.json")
        assert check_bundle(path, engine)["expectation"] is None  # without it: said, not a vacuous "same"
