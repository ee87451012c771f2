"""Fuzz the CLI with mutated inputs of every kind it reads; count outcomes (issue 18).

Each case mutates a real input (a built-in scenario, runbook, knowledge-base class, vendor file, trace, replay
mapping, journal, incident file, log excerpt, compressed log, archived bundle) or an option value, runs the command
in-process and classifies the outcome:
``ok`` (exit 0/1), ``refused`` (exit 2 with one stderr line), ``refused_unnamed`` (exit 2 but the line does not name
the input file), ``multiline`` (exit 2 with more than one stderr line), ``traceback`` (an exception escaped) or
``hang`` (longer than the time limit; interrupted by a timer).

    python tests/fuzz_cli.py --cases 2000 [--seed 0] [--timeout 30] [--kinds scenario,journal]

The property tests (tests/test_hardening_props.py) use the same generators with hypothesis.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]

HOSTILE: list[Any] = [
    9e18, -1, 0, 1e30, 1e-6, float("nan"), float("inf"), -float("inf"), 2**64, 10**400, "", "x" * 50_000,
    "../../etc/passwd", "<script>alert(1)</script>", None, [], {}, True, "\x00", "\u202e\u0000", "1e309",
    "[" * 300, {"a": {"b": {"c": {"d": {}}}}}, [[[[[[]]]]]], "*/5 * * * *", "ünïcødé", -2**63, 2**63,
]
BOMB_YAML = "".join(
    ["a: &a [x, x, x, x, x, x, x, x, x]\n"]
    + [f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)])


class Hang(BaseException):
    """Raised by the timer: a case ran longer than the limit (a BaseException: nothing in opsbrain catches it)."""


@dataclass
class Case:
    kind: str
    args: list[str]
    file: str | None = None  # the input file an error line should name
    note: str = ""
    multi: bool = False  # a validate command: one line per error, each naming the file


@dataclass
class Outcome:
    status: str
    code: int | None
    seconds: float
    stderr: str = ""
    detail: str = ""


def run_case(case: Case, home: Path, timeout: float = 30.0, stdin: bytes | None = None) -> Outcome:
    """Run one CLI case in-process under a timer (SIGALRM; main thread only); ``stdin``: bytes it reads."""
    from opsbrain.cli import cli

    runner = CliRunner()

    def on_alarm(_s: int, _f: Any) -> None:
        raise Hang

    old = signal.signal(signal.SIGALRM, on_alarm)
    cwd = os.getcwd()
    os.chdir(home)  # relative output names an option case makes (topology --export-graphml 0) land there
    signal.setitimer(signal.ITIMER_REAL, timeout)
    t0 = time.perf_counter()
    try:
        res = runner.invoke(cli, case.args, env={"OPSBRAIN_HOME": str(home), "OPSBRAIN_DEBUG": ""},
                            catch_exceptions=True, input=stdin)
    except Hang:
        return Outcome("hang", None, time.perf_counter() - t0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        os.chdir(cwd)
    took = time.perf_counter() - t0
    err = res.stderr
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        tb = "".join(traceback.format_exception(res.exception))
        return Outcome("traceback", None, took, err, tb[-2000:])
    code = res.exit_code
    if code == 2:
        lines = [x for x in err.splitlines() if x.strip()]
        if not lines or "Traceback" in err or (len(lines) > 1 and not (
                case.multi and all(x.startswith("opsbrain: error: ") for x in lines))):
            return Outcome("multiline", code, took, err)
        if case.file is not None and any(case.file not in x and Path(case.file).name not in x for x in lines):
            return Outcome("refused_unnamed", code, took, err)
        return Outcome("refused", code, took, err)
    if code in (0, 1):
        return Outcome("ok", code, took, err)
    return Outcome(f"exit_{code}", code, took, err)


# ---- mutation ----------------------------------------------------------------------------------------------
def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:20]):
            out += _paths(v, (*prefix, i))
    return out


def _set(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = doc
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value
    return doc


def mutate_doc(doc: Any, rng: random.Random, n: int | None = None) -> Any:
    """``doc`` with 1-3 random edits: a node replaced by a hostile value, deleted, renamed, nested deep or
    doubled."""
    doc = copy.deepcopy(doc)
    for _ in range(n or rng.randint(1, 3)):
        paths = _paths(doc)
        path = rng.choice(paths)
        op = rng.random()
        if op < 0.6 or not path:
            doc = _set(doc, path, copy.deepcopy(rng.choice(HOSTILE)))
        elif op < 0.7:
            parent = doc
            for p in path[:-1]:
                parent = parent[p]
            if isinstance(parent, dict):
                parent.pop(path[-1], None)
            elif isinstance(parent, list) and parent:
                parent.pop(min(path[-1], len(parent) - 1))
        elif op < 0.8:
            deep: Any = "x"
            for _ in range(rng.choice([10, 70, 500])):
                deep = [deep]
            doc = _set(doc, path, deep)
        elif op < 0.9:
            node = doc
            for p in path:
                node = node[p]
            doc = _set(doc, path, [copy.deepcopy(node)] * rng.randint(2, 50))
        else:
            node = doc
            for p in path[:-1]:
                node = node[p]
            if isinstance(node, dict):
                node[rng.choice(["unknown", "x" * 300, "\u0000", "level", "kind"])] = rng.choice(HOSTILE)
    return doc


def mutate_text(text: str, rng: random.Random) -> str:
    """Text-level damage: truncation, junk bytes, an alias bomb, deep flow nesting, a NUL, a huge line."""
    op = rng.randrange(7)
    if op == 0 and text:
        return text[: rng.randrange(len(text))]
    if op == 1:
        k = rng.randrange(len(text) + 1)
        return text[:k] + rng.choice(["\udcff", "\x00", "\ufffd", "\t:\n- ", "{{", "]]", "&x *x"]) + text[k:]
    if op == 2:
        return BOMB_YAML + text
    if op == 3:
        return "[" * rng.choice([100, 5000, 200_000]) + text
    if op == 4:
        return text + "\n" + "y" * rng.choice([10_000, 2_000_000])
    if op == 5:
        return text.replace(":", "", 1)
    return text + "\n" + "\n".join(rng.choice(["? ", "- - - -", "!!python/object:os.system", "%TAG"]) * 3)


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """Byte-level damage to an archive or a compressed log: flipped bytes, cut spans, a truncation."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        k = rng.randrange(len(b)) if b else 0
        op = rng.random()
        if op < 0.6 and b:
            b[k] = rng.randrange(256)
        elif op < 0.85:
            del b[k: k + rng.randint(1, 64)]
        else:
            del b[k:]
    return bytes(b)


def dump(doc: Any, fmt: str) -> str:
    """``doc`` as JSON or YAML text (too deep for the YAML writer: JSON, which is YAML too)."""
    try:
        if fmt == "json":
            return json.dumps(doc, default=str)
        return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=10_000)
    except RecursionError:
        return "[" * 5000 + "]" * 5000


# ---- input kinds -------------------------------------------------------------------------------------------
@dataclass
class Kind:
    name: str
    fmt: str  # yaml | json | text | csv | option | bytes
    bases: Callable[[Path], list[Any]]
    command: Callable[[Path, Path], list[str]]  # (input file, work dir) -> args
    weight: int = 1
    suffix: str = ""
    multi: bool = False
    folder: str | None = None  # copy this folder of the repository beside the input (the input replaces one file)


def _yaml_files(folder: str, n: int = 4) -> Callable[[Path], list[Any]]:
    def bases(_work: Path) -> list[Any]:
        files = sorted((REPO / folder).glob("*.yaml"))[:n]
        return [yaml.safe_load(f.read_text()) for f in files]

    return bases


def _vendor(prefix: str) -> Callable[[Path], list[Any]]:
    def bases(_work: Path) -> list[Any]:
        return [json.loads((REPO / "tests/fixtures/vendor_small" / f).read_text())
                for f in (f"{prefix}_good.json",)]

    return bases


def _trace(_work: Path) -> list[Any]:
    return [[{"node_id": f"n{i % 3}", "event_time": 100.0 * i, "event_type": "fault_start" if i % 2 == 0 else
              "fault_end", "fault_type": {"Level": "Hardware Failure", "Class": "GPU",
                                          "Desc": "GPU DBE(Double Bit ECC) > Threshold"}} for i in range(6)]]


def _incident(_work: Path) -> list[Any]:
    return [{"lines": [{"t": 1.0, "origin": "kernel", "source": "dmesg", "level": "error",
                        "text": "[ERROR] HBM multi-bit ECC error uncorrectable on device 3"},
                       "hccl: HCCL_E_TIMEOUT rank 2 timed out"]}]


def _logs(_work: Path) -> list[Any]:
    files = sorted((REPO / "tests/data/real_logs").rglob("*"))
    texts = [f.read_text(errors="replace")[:4000] for f in files if f.is_file() and f.suffix in ("", ".log", ".txt")]
    return texts[:4] or ["[ERROR] RUNTIME(1234): device 0 aicore timeout\n"]


def _archives(_work: Path) -> list[Any]:
    """The hand-written real-layout bundle as .tar.gz, .tar.xz and .zip (built in memory)."""
    import io
    import tarfile
    import zipfile

    src = REPO / "tests/fixtures/bundles/hbm-uce-real"
    out = []
    for mode in ("w:gz", "w:xz"):
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode=mode) as tf:
            tf.add(src, arcname="bundle")
        out.append(buf.getvalue())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(src.rglob("*")):
            if f.is_file():
                zf.write(f, f"bundle/{f.relative_to(src).as_posix()}")
    return [*out, buf.getvalue()]


def tar_bytes(members: dict[str, bytes], mode: str = "w:gz") -> bytes:
    """A tar (gzip-compressed by default) of the named bodies, made in memory."""
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tf:  # type: ignore[call-overload]
        for name, body in members.items():
            ti = tarfile.TarInfo(name)
            ti.size = len(body)
            tf.addfile(ti, io.BytesIO(body))
    return buf.getvalue()


def _nested(_work: Path) -> list[Any]:
    """The real-layout bundle gathered as per-worker archives inside one .tar.gz: worker-0 as a tar.gz named ``.gz``
    (told by its content), worker-1 as a .tar.gz holding one more archive (two levels down: listed, not read)."""
    tar = tar_bytes
    src = REPO / "tests/fixtures/bundles/hbm-uce-real"
    per = {w.name: {p.relative_to(src).as_posix(): p.read_bytes() for p in sorted(w.rglob("*")) if p.is_file()}
           for w in sorted(src.iterdir()) if w.is_dir()}
    names = sorted(per)
    outer = {f"bundle/{names[0]}.gz": tar(per[names[0]])}
    for n in names[1:]:
        outer[f"bundle/{n}.tar.gz"] = tar({**per[n], f"{n}/old.tar.gz": tar({"x.log": b"E x\n"})})
    return [tar(outer)]


def _misnamed(work: Path) -> list[Any]:
    """A real log's gzip named as an archive (``gzip -c x.log > x.tgz``): read as that text."""
    return _gz_logs(work)[:2]


def _gz_logs(work: Path) -> list[Any]:
    import gzip

    return [gzip.compress(t.encode("utf-8", "replace")) for t in _logs(work)]


def _mapping(_work: Path) -> list[Any]:
    """The shipped replay mapping (``chaos replay --mapping``), its first rows."""
    doc = yaml.safe_load((REPO / "opsbrain/scenario/replay_mapping.yaml").read_text())
    return [{"rows": doc["rows"][:6]}]


def _replay_mapping(f: Path, w: Path) -> list[str]:
    trace = w / "trace.json"
    if not trace.exists():
        trace.write_text(json.dumps(_trace(w)[0]))
    return ["chaos", "replay", str(trace), "--mapping", str(f)]


_JOURNAL: dict[str, Any] = {}


def journal_base(work: Path) -> list[Any]:
    """One real journal (a short built-in run, made once per process)."""
    if "j" not in _JOURNAL:
        from opsbrain import chaos

        _JOURNAL["j"] = json.loads(json.dumps(chaos.run(chaos.plan("hbm-uce-training"), home=work / "jhome")))
    return [_JOURNAL["j"]]


KINDS: dict[str, Kind] = {k.name: k for k in [
    Kind("scenario", "yaml", _yaml_files("scenarios"), lambda f, w: ["chaos", "validate", str(f)], 3, ".yaml",
         True),
    Kind("scenario_dry", "yaml", _yaml_files("scenarios"), lambda f, w: ["chaos", "run", str(f), "--dry-run"], 2,
         ".yaml", True),  # a file's every error, one line each, as chaos validate (session 42, operator42)
    Kind("runbook", "yaml", _yaml_files("runbooks"), lambda f, w: ["runbooks", "validate", str(f)], 2, ".yaml",
         True),
    Kind("kb_class", "yaml", _yaml_files("knowledge_base/classes"), lambda f, w: ["kb", "validate", str(f.parent)],
         2, ".yaml", True, "knowledge_base/classes"),
    Kind("vendor_kg", "json", _vendor("kg"),
         lambda f, w: ["kb", "import", "mindcluster-kg", str(f), "--data-dir", str(w / "imp")], 2, ".json"),
    Kind("vendor_faultcode", "json", _vendor("faultcode"),
         lambda f, w: ["kb", "import", "mindcluster-faultcode", str(f), "--data-dir", str(w / "imp")], 2, ".json"),
    Kind("trace", "json", _trace, lambda f, w: ["chaos", "replay", str(f)], 2, ".json"),
    Kind("mapping", "yaml", _mapping, _replay_mapping, 1, ".yaml"),
    Kind("mapping_bare", "yaml", _mapping, _replay_mapping, 1, ""),  # read as YAML whatever its name
    Kind("journal", "json", journal_base, lambda f, w: ["report", str(f), "--out", str(w / "r.md")], 3, ".json"),
    Kind("journal_html", "json", journal_base, lambda f, w: ["report", str(f), "--out", str(w / "r.html")], 1,
         ".json"),
    Kind("incident", "json", _incident, lambda f, w: ["diagnose", str(f), "--data-dir", str(w / "home")], 2,
         ".json"),
    Kind("logs", "text", _logs, lambda f, w: ["diagnose", "--logs", str(f), "--data-dir", str(w / "home")], 1,
         ".log"),
    Kind("logs_gz", "bytes", _gz_logs, lambda f, w: ["diagnose", "--logs", str(f), "--data-dir", str(w / "home")],
         1, ".log.gz"),
    Kind("bundle_archive", "bytes", _archives,
         lambda f, w: ["diagnose", "--bundle", str(f), "--data-dir", str(w / "home")], 1, ".tar.gz"),
    Kind("logs_archive", "bytes", _archives,
         lambda f, w: ["diagnose", "--logs", str(f), "--data-dir", str(w / "home")], 1, ".tar.gz"),
    Kind("logs_nested", "bytes", _nested,
         lambda f, w: ["diagnose", "--logs", str(f), "--data-dir", str(w / "home")], 1, ".tar.gz"),
    Kind("bundle_nested", "bytes", _nested,
         lambda f, w: ["diagnose", "--bundle", str(f), "--data-dir", str(w / "home")], 1, ".tar.gz"),
    Kind("logs_misnamed", "bytes", _misnamed,
         lambda f, w: ["diagnose", "--logs", str(f), "--data-dir", str(w / "home")], 1, ".tgz"),
]}

OPTION_CASES: list[list[str]] = [
    ["chaos", "run", "hbm-uce-training", "--dry-run", "--seed", "{v}"],
    ["runs", "list", "--limit", "{v}"],
    ["sweep", "run", "--scenario", "noise-only-day", "--interval", "{v}", "--max-runtime", "0.5"],
    ["sweep", "run", "--scenario", "noise-only-day", "--max-runtime", "{v}", "--interval", "bad"],
    ["kb", "eval", "--noise-days", "{v}", "--runs-per-class", "0"],
    ["sweep", "once", "--at", "{v}", "--scenario", "noise-only-day"],
    ["chaos", "run", "{v}", "--dry-run"],
    ["topology", "--pods", "{v}"],
    ["report", "{v}", "--out", "-"],
    ["topology", "--export-graphml", "{v}"],
]
OPTION_VALUES = ["nan", "inf", "-1", "0", str(2**63), str(2**64), "1e309", "999999999999d", "0.000001s", "../x",
                 "../../etc/passwd", "x" * 5000, "", "/dev/null", "/dev/zero", "-", "1e-300", "1" * 400]


def make_case(kind: Kind, work: Path, rng: random.Random, index: int) -> Case:
    """A mutated input of ``kind`` written under ``work``, and the command that reads it."""
    base = rng.choice(kind.bases(work))
    if kind.fmt == "bytes":  # an archive or a compressed log: damaged as bytes
        folder = work / f"case{index}"
        folder.mkdir(parents=True, exist_ok=True)
        f = folder / f"input{kind.suffix}"
        f.write_bytes(mutate_bytes(base, rng))
        return Case(kind.name, kind.command(f, folder), str(f))
    if kind.fmt == "text":
        text = mutate_text(base, rng)
    elif rng.random() < 0.75:
        try:
            text = dump(mutate_doc(base, rng), kind.fmt)
        except RecursionError:  # an edit doubled a node nested 500 deep: copying it overflows the harness's stack
            text = "[" * 5000 + "]" * 5000
    else:
        text = mutate_text(dump(base, kind.fmt), rng)
    folder = work / f"case{index}"
    folder.mkdir(parents=True, exist_ok=True)
    f = folder / f"input{kind.suffix}"
    if kind.folder is not None:  # the input replaces one file of a copied folder (kb validate reads them all)
        import shutil

        shutil.copytree(REPO / kind.folder, folder / "in")
        f = rng.choice(sorted((folder / "in").glob(f"*{kind.suffix}")))
    f.write_bytes(text.encode("utf-8", "surrogatepass"))
    return Case(kind.name, kind.command(f, folder), str(f), multi=kind.multi)


def option_case(rng: random.Random) -> Case:
    template = rng.choice(OPTION_CASES)
    value = rng.choice(OPTION_VALUES)
    return Case("option", [a.replace("{v}", value) for a in template], None, value[:40])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds after which a case counts as a hang")
    ap.add_argument("--kinds", default="", help="comma-separated input kinds (default: all, plus options)")
    ap.add_argument("--show", type=int, default=5, help="print this many failures of each class")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    names = [k for k in args.kinds.split(",") if k] or [*KINDS, "option"]
    weights = [KINDS[n].weight if n in KINDS else 2 for n in names]
    counts: Counter[tuple[str, str]] = Counter()
    shown: Counter[str] = Counter()
    slowest = (0.0, "")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="opsbrain-fuzz-") as tmp:
        work = Path(tmp)
        (work / "home").mkdir()
        for i in range(args.cases):
            name = rng.choices(names, weights)[0]
            case = option_case(rng) if name == "option" else make_case(KINDS[name], work, rng, i)
            out = run_case(case, work / "home", args.timeout)
            counts[(name, out.status)] += 1
            if out.seconds > slowest[0]:
                slowest = (out.seconds, f"{name} {case.args[:4]}")
            if out.status not in ("ok", "refused") and shown[out.status] < args.show:
                shown[out.status] += 1
                print(f"--- {out.status} ({name}, {out.seconds:.1f} s): {' '.join(case.args)[:300]}")
                print((out.detail or out.stderr)[-1500:])
            if name != "option" and case.file:
                import shutil

                shutil.rmtree(Path(case.file).parent, ignore_errors=True)
    total = Counter(s for (_k, s) in counts.elements())
    print(f"\n{args.cases} cases in {time.perf_counter() - t0:.0f} s (seed {args.seed}, hang limit "
          f"{args.timeout:g} s); slowest {slowest[0]:.1f} s ({slowest[1]})")
    for name in names:
        row = {s: n for (k, s), n in counts.items() if k == name}
        print(f"  {name:<18} " + ", ".join(f"{s} {n}" for s, n in sorted(row.items())))
    print("totals: " + ", ".join(f"{s} {n}" for s, n in sorted(total.items())))
    bad = sum(n for s, n in total.items() if s not in ("ok", "refused"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("OPSBRAIN_DEBUG", "")
    sys.exit(main())
