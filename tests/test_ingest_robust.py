"""Reading does not depend on the surface form of our corpus (issue 14): collector prefixes, colours, line ends,
host and device spellings, time-stamp layouts, unrelated lines, reordering and cuts keep what a DEV-split excerpt
says (opsbrain.ingest.variants). The TEST split is never read here."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opsbrain.ingest import ingest_text
from opsbrain.ingest.surface import plain
from opsbrain.ingest.timestamps import parse_stamp
from opsbrain.ingest.variants import KINDS, cut
from opsbrain.ingest.where import device_in
from opsbrain.kb.realeval import default_corpus_dir, load_corpus

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_robust.py"


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_robust", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _dev() -> list[dict[str, Any]]:
    return [e for e in load_corpus(default_corpus_dir()) if e["split"] == "dev"]


DEV = _dev()


@pytest.mark.parametrize(("line", "body"), [
    ("\x1b[31m[ERROR]\x1b[0m HCCL(1,):2024-05-01-10:11:12.123.456 [a.cc:1] x",
     "[ERROR] HCCL(1,):2024-05-01-10:11:12.123.456 [a.cc:1] x"),
    ("2024-05-01T10:11:12.123456789Z stdout F RuntimeError: NPU out of memory.", "RuntimeError: NPU out of memory."),
    # kubectl logs --timestamps (RFC3339Nano, no stream column) before any text, not only a bracketed layout
    ("2024-05-01T10:11:12.000000137Z RegisterAscendBinary aiv ret 107000", "RegisterAscendBinary aiv ret 107000"),
    ("2024-05-01T10:11:12.5+08:00 plain words", "plain words"),
    ("[pod/train-0-worker-3/main] [ERROR] RUNTIME(9,p):2024-05-01-10:11:12 x",
     "[ERROR] RUNTIME(9,p):2024-05-01-10:11:12 x"),
    ("[pod/a-b/c] 2024-05-01T10:11:12Z stderr F   File \"x.py\", line 3", "  File \"x.py\", line 3"),
    ("worker-3: |  0  |  0   |  4   |  LINK_DOWN  |", "|  0  |  0   |  4   |  LINK_DOWN  |"),
    ("May  1 10:11:12 [ERROR] HCCL(1,):x", "[ERROR] HCCL(1,):x"),
    ("[2024-05-01-10:11:12.123.456] [ERROR] GE(1,p):x", "[ERROR] GE(1,p):x"),
    # an ascend-dmi report's indented verdict and its *** detail behind a journal head: the head goes, the indent
    # (part of the report's layout) stays
    ("Dec 02 10:00:00 dn360 ascend-dmi[77]:         FAIL", "        FAIL"),
    ("Dec 02 10:00:00 dn360 ascend-dmi[77]:         *** Device 4: a timeout error occurred.",
     "        *** Device 4: a timeout error occurred."),
])
def test_collector_heads_and_colours_come_off(line: str, body: str) -> None:
    assert plain(line)[0] == body


@pytest.mark.parametrize("line", [
    "May  1 10:11:12 dn360 kernel: [ 12.3] EDAC MC0: 1 UE multi-bit ECC",  # syslog: its parsers read the head
    "2024-05-01 10:11:12 ERROR worker failed",  # a logging head the level reader uses
    "2024-05-01T10:11:12Z no fraction: a program's own stamp",
    "RuntimeError: [ERROR] something",  # an exception name is not a host
    "[3] bare index",
    "EI0002: [PID: 2969] 2025-10-11-15:09:34.713.335 The wait execution of the Notify register times out.",
])
def test_lines_whose_head_a_parser_reads_are_left_alone(line: str) -> None:
    assert plain(line) == (line, "")


def test_a_yearless_stamp_takes_the_year_of_the_dated_ones() -> None:
    text = ("May  1 10:11:10 [ERROR] aclrtSetDevice(deviceId) failed: 507033\n"
            "[ERROR] RecentErrMsg: [PID: 1] 2026-05-01-10:11:12.809.770 Memory_Allocation_Failure(EL0004): Failed\n")
    sigs, _ = ingest_text(text)
    assert parse_stamp("May  1 10:11:10 x")[1] is False
    assert sigs and max(s.t for s in sigs) < 60  # not 26 years apart


@pytest.mark.parametrize("line", ["devicePhyId[5] x", "deviceLogicId=5 y", "logicDevId[5]", "device_id=5"])
def test_device_fields_as_ascend_tools_spell_them(line: str) -> None:
    assert device_in(line) == 5


def _reading(text: str) -> tuple[set[str], set[int]]:
    sigs, _ = ingest_text(text)
    kinds = {s.kind for s in sigs if not s.kind.startswith("level:")}
    devs = {int(c.rsplit("npu", 1)[1].split("/")[0]) for s in sigs if (c := s.component) and "npu" in c
            and c.rsplit("npu", 1)[1].split("/")[0].isdigit()}
    return kinds, devs


SHAPE_KINDS = sorted(k for k in KINDS if not k.startswith(("host:", "reorder")))


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(i=st.integers(0, max(0, len(DEV) - 1)), kind=st.sampled_from(SHAPE_KINDS), seed=st.integers(0, 1000))
def test_a_variant_gives_the_same_signals(i: int, kind: str, seed: int) -> None:
    """Signal kinds and devices read from a DEV excerpt do not change with its surface form (host variants, which
    change components by design, are checked at the diagnosis level below)."""
    text = str(DEV[i]["text"])
    new = KINDS[kind](text, random.Random(seed))
    if new is None:
        return
    assert _reading(new) == _reading(text), kind


def test_a_cut_that_keeps_the_key_lines_keeps_them() -> None:
    lines = ["[INFO] a", "[ERROR] RUNTIME(1,p):2024-05-01-10:11:12 x", "[INFO] b"]
    text = "\n".join(lines) + "\n"
    assert cut(text, {2}, head=True) == "\n".join(lines[:2]) + "\n"
    assert cut(text, {2}, head=False) == "\n".join(lines[1:]) + "\n"


def test_variants_keep_class_and_root_on_a_deterministic_dev_subset() -> None:
    """Every third DEV excerpt answered right today, under every variant (one seed): class and root device kept.
    The full figures: benchmarks/bench_robust.py."""
    from opsbrain.kb import SignatureMatcher, load_kb
    from opsbrain.kb.training import load_engine

    bench = _bench()
    engine, matcher = load_engine(), SignatureMatcher(load_kb())
    base = bench.right_today(engine, matcher)[::3]
    assert len(base) >= 10
    broken, pairs = [], 0
    for e in base:
        for kind, text in bench.variants_of(e, 0):
            pairs += 1
            cls, dev, _ = bench._answer(text, engine, matcher)
            if cls != e["class"] or (e["device"] is not None and dev != e["device"]):
                broken.append((e["id"], kind, cls, dev))
    assert pairs >= 10 * len(base)
    # at most one pair in 200: a variant cut down to one generic line (k001's lone ``RuntimeError: bIndex is out of
    # range``) is read near the abstention bar, and which side of the config/framework line it falls on moves with
    # each retrain (session 28: 1 of ~1,300 pairs); more than that is a regression of the reading, not of one line
    assert len(broken) <= pairs // 200, broken
