"""Benchmark (session 43): the worst case of the built-in regexes on crafted lines.

Usage: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_regex_worst.py [--only NAME,...] [--sizes 4096,65536]
[--all] [--timeout 10] [--src TREE]``

Every regex the modules of ``opsbrain`` hold at import time (module globals, class attributes, tuples and dicts of
them, the parsers' screened regexes) is listed; the ones :func:`tests.regex_shape.shape_problems` flags (two long
repeats over the same characters with only optional items between, or a long repeat inside one) are attacked
(``--all``: every regex). The attack pumps a matching line: a few lines the regex matches (two, generated
by hypothesis' ``from_regex``), each cut at every point, with a run of one character (or of a short piece of the line
itself) inserted there, with and without the line's end (a near miss); the worst of these at 1,024 characters is then
timed at each of ``--sizes`` (``rx.search``, best of one run, interrupted after ``--timeout`` s: ``re`` checks
signals). Session 43 (redos43b): a regex with a long repeat of any character between words (``DMA.*timeout``, which
the shape check does not flag: a line of n ``DMA`` costs n scans to its end) is attacked too, with its word before the
repeat pumped, alone or before a line the regex matches (the line screen lets only a matching line through, and
``re`` still tries every word before reading the match at the end); the ``parse_line`` column times the parsers on
the worst of those lines and of the five slowest shapes at 4,096 characters (lines are cut there before the parsers
read them: the screen and the parsers' own readings included, best of 2). A regex a module names in its
``MATCH_ONLY`` is only matched at a position: its ``match`` is timed. Prints one row a regex, worst first:
seconds at each size, the parsers' seconds, and the line's shape. ``--src TREE`` imports
another source tree (the before figures). Figures only: no goal, no verdict; a regex whose time grows 16x from
4 KB to 64 KB is linear, 256x quadratic.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import pkgutil
import re
import signal
import sys
import time
import types
import warnings
from pathlib import Path
from typing import Any

PROBE = [" ", "\t", "a", "A", "0", "9", ".", "-", "_", "|", '"', "[", "]", ",", ":", "=", "/", "(", ")", "x", "\u3000"]


def regexes(package: Any) -> dict[tuple[str, int], str]:
    """Every (pattern, flags) held by ``package``'s modules, with one place that holds it."""
    from opsbrain.ingest.screen import _REGISTRY

    found: dict[tuple[str, int], str] = {}

    def walk(obj: Any, where: str, depth: int) -> None:
        if isinstance(obj, re.Pattern):
            if isinstance(obj.pattern, str):
                found.setdefault((obj.pattern, obj.flags), where)
        elif isinstance(getattr(obj, "key", None), tuple) and isinstance(getattr(obj, "pattern", None), str):
            found.setdefault((obj.pattern, obj.key[1]), where)
        elif depth < 4 and isinstance(obj, (list, tuple, set, frozenset)):
            for i, x in enumerate(obj):
                walk(x, f"{where}[{i}]", depth + 1)
        elif depth < 4 and isinstance(obj, dict):
            for k, x in obj.items():
                walk(x, f"{where}[{str(k)[:30]!r}]", depth + 1)

    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        try:
            mod = importlib.import_module(info.name)
        except Exception:  # noqa: BLE001 - an optional dependency: its regexes are not run either
            continue
        for name, obj in vars(mod).items():
            if isinstance(obj, types.ModuleType):
                continue
            if isinstance(obj, type) and obj.__module__ == mod.__name__:
                for n2, o2 in vars(obj).items():
                    walk(o2, f"{mod.__name__}.{name}.{n2}", 1)
            else:
                walk(obj, f"{mod.__name__}.{name}" + (" (match)" if name in getattr(mod, "MATCH_ONLY", ()) else ""), 0)
    for i, s in enumerate(_REGISTRY):
        found.setdefault(s.key, f"screened#{i}")
    return found


def dot_words(pattern: str, flags: int) -> list[str]:
    """The literal text before each long repeat of any character (``.``, a negated class) in ``pattern``:
    ``DMA`` of ``DMA.*timeout``."""
    parser: Any = importlib.import_module("re._parser")
    out: list[str] = []

    def seq(items: Any) -> None:
        items = list(items)
        for k, (op, arg) in enumerate(items):
            if op in (parser.MAX_REPEAT, parser.MIN_REPEAT):
                body = list(arg[2])
                if arg[1] >= 16 and len(body) == 1 and (body[0][0] == parser.ANY or (
                        body[0][0] == parser.IN and body[0][1] and body[0][1][0][0] == parser.NEGATE)):
                    j = k
                    while j > 0 and items[j - 1][0] == parser.LITERAL:
                        j -= 1
                    if j < k:
                        out.append("".join(chr(items[i][1]) for i in range(j, k)))
                seq(arg[2])
            elif op == parser.SUBPATTERN:
                seq(arg[-1])
            elif op == parser.BRANCH:
                for b in arg[1]:
                    seq(b)

    seq(parser.parse(pattern, flags))
    return sorted(set(out))


def word_pumps(words: list[str], exs: list[str]) -> list[tuple[str, str, str]]:
    """(head, pumped piece, tail) shapes of a word pumped, alone or before a line the regex matches."""
    return [("", p, tail) for w in words for p in (w, w + " ", w + "a") for tail in ["", *exs]]


def line_time(line: str) -> float:
    """Seconds of ``parse_line`` on ``line`` (best of 2)."""
    from opsbrain.ingest.parsers import parse_line

    best = float("inf")
    for _ in range(2):
        t = time.perf_counter()
        parse_line(line)
        best = min(best, time.perf_counter() - t)
    return best


def examples(pattern: str, flags: int, n: int = 2) -> list[str]:
    """A few short lines ``pattern`` matches (none when hypothesis cannot build one)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    out: list[str] = []
    try:
        strat = st.from_regex(re.compile(pattern, flags), fullmatch=False,
                              alphabet=st.characters(min_codepoint=9, max_codepoint=126))
    except Exception:  # noqa: BLE001
        return out

    @settings(max_examples=40, database=None, derandomize=True, suppress_health_check=list(HealthCheck), deadline=None)
    @given(strat)
    def draw(s: str) -> None:
        if "\n" not in s and len(s) <= 200 and len(out) < n * 3:
            out.append(s)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(Exception):
            draw()
    out.sort(key=len)
    return out[:n]


class _Late(Exception):
    pass


def _alarm(_sig: int, _frame: Any) -> None:
    raise _Late


def timed(rx: Any, line: str, limit: float) -> float:
    """Seconds of ``rx.search(line)``; ``inf`` past ``limit``."""
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    t = time.perf_counter()
    try:
        rx.search(line)
    except _Late:
        return float("inf")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return time.perf_counter() - t


def attacks(ex: str) -> list[tuple[str, str, str]]:
    """(head, pumped piece, tail) shapes of a line near ``ex`` (tail '' or the line's end)."""
    out = []
    for i in range(len(ex) + 1):
        pieces = set(PROBE) | {ex[i:j] for j in range(i + 1, min(len(ex), i + 4) + 1)}
        for p in pieces:
            for tail in ("", ex[i:]):
                out.append((ex[:i], p, tail))
    return out


def build(head: str, piece: str, tail: str, size: int) -> str:
    room = max(size - len(head) - len(tail), len(piece))
    return head + piece * (room // len(piece)) + tail


def worst(rx: Any, exs: list[str], probe_size: int = 1024, words: list[str] | None = None
          ) -> tuple[float, tuple[str, str, str], list[tuple[str, str, str]]]:
    """The slowest attack at ``probe_size`` characters: each timed once, the five slowest again (best of 3: a
    loaded machine's pauses are no regex's); and the five slowest shapes."""
    shapes = [shape for ex in exs or ["a"] for shape in attacks(ex)] + word_pumps(words or [], exs)
    first = [(timed(rx, build(*shape, probe_size), 0.5), shape) for shape in shapes]
    first.sort(key=lambda x: -x[0])
    again = [(min(timed(rx, build(*shape, probe_size), 0.5) for _ in range(3)), shape) for _t, shape in first[:5]]
    t, shape = max(again, key=lambda x: x[0], default=(0.0, ("", " ", "")))
    return t, shape, [sh for _t, sh in first[:5]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--sizes", default="4096,65536")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--timeout", type=float, default=10.0)
    ap.add_argument("--src", default="")
    args = ap.parse_args()
    sys.path.insert(0, args.src or str(Path(__file__).resolve().parents[1]))
    import opsbrain
    from tests.regex_shape import shape_problems

    sizes = [int(s) for s in args.sizes.split(",")]
    only = [s for s in args.only.split(",") if s]
    rows = []
    for (pattern, flags), where in regexes(opsbrain).items():
        if only and not any(o in where for o in only):
            continue
        try:
            flagged = shape_problems(pattern, flags)
        except Exception:  # noqa: BLE001
            flagged = ["unparsed"]
        words = dot_words(pattern, flags)
        if not (flagged or words or args.all or only):
            continue
        rx: Any = re.compile(pattern, flags)
        if where.endswith(" (match)"):  # a module's MATCH_ONLY regex: only matched at a position, never searched
            rx = types.SimpleNamespace(search=rx.match)
        exs = examples(pattern, flags)
        t512, shape, top = worst(rx, exs, words=words)
        parsers = max(line_time(build(*sh, 4096)) for sh in [*top, *word_pumps(words, exs)])
        times = []
        for size in sizes:
            times.append(timed(rx, build(*shape, size), args.timeout))
            if times[-1] == float("inf"):
                times += [float("inf")] * (len(sizes) - len(times))
                break
        rows.append((times[-1], where, times, parsers, shape))
        print(f"  {where}: {' / '.join(f'{t:.3g}' for t in times)} s, parse_line {parsers:.3g} s", file=sys.stderr,
              flush=True)
    rows.sort(key=lambda r: -r[0])
    print(f"{'regex':60} " + " ".join(f"{s:>9}" for s in sizes) + " parse_line  line")
    for _t, where, times, parsers, (head, piece, tail) in rows:
        cells = " ".join(f"{'>' + str(args.timeout) if t == float('inf') else f'{t:.4f}':>9}" for t in times)
        print(f"{where[:60]:60} {cells} {parsers:10.4f}  {head[:24]!r} + {piece!r}*n + {tail[:24]!r}")


if __name__ == "__main__":
    main()
