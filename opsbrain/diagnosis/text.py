"""Diagnose from text as operators paste it: any bytes in, an answer out (never an exception).

Lines are cut to :data:`MAX_LINE` characters, undecodable bytes replaced, and at most :data:`MAX_LINES` lines are
read. Time stamps in the common Ascend layouts are parsed so that the incident keeps its shape in time; lines
without one take the time of the line before.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Any

from opsbrain.diagnosis.signals import MAX_LINE, Signal, parse_line

MAX_LINES = 200_000
MAX_BYTES = 64 << 20

_TIME_FORMATS = [
    (re.compile(r"(\d{4}-\d\d-\d\d)-(\d\d:\d\d:\d\d)\.(\d{3})"), lambda m: f"{m[1]} {m[2]}.{m[3]}"),
    (re.compile(r"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:[.,](\d{1,6}))?"), lambda m: f"{m[1]} {m[2]}.{m[3] or 0}"),
    (re.compile(r"(\d{4})/(\d\d)/(\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?"),
     lambda m: f"{m[1]}-{m[2]}-{m[3]} {m[4]}.{m[5] or 0}"),
]


def parse_time(line: str) -> float | None:
    """Seconds since the epoch of the first time stamp in ``line`` (naive, as logged), or None."""
    for rx, norm in _TIME_FORMATS:
        m = rx.search(line)
        if m:
            try:
                return datetime.fromisoformat(norm(m)).timestamp()
            except ValueError:
                continue
    return None


def read_text(path: str | Path) -> str:
    """A file's text, whatever it holds (binary junk, other encodings); refuses links and huge files."""
    from opsbrain.errors import InputError

    p = Path(path)
    if p.is_symlink():
        raise InputError("refusing to follow a symbolic link", file=str(p))
    try:
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise InputError(f"file is {size} bytes, more than the {MAX_BYTES} read", file=str(p))
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", file=str(p)) from None
    except IsADirectoryError:
        raise InputError("is a directory (use --bundle for a log bundle)", file=str(p)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(p)) from None
    return data.decode("utf-8", errors="replace")


def signals_from_text(text: str) -> tuple[list[Signal], dict[str, Any]]:
    """Signals in pasted text, with their times relative to the first time stamp."""
    out: list[Signal] = []
    t0: float | None = None
    last = 0.0
    lines = 0
    cut = 0
    for raw in text.splitlines()[:MAX_LINES]:
        lines += 1
        if len(raw) > MAX_LINE:
            cut += 1
        line = raw[:MAX_LINE].replace("\x00", "")
        ts = parse_time(line)
        if ts is not None:
            t0 = ts if t0 is None else t0
            last = max(0.0, ts - t0)
        out.extend(parse_line(line, last))
    return out, {"lines": lines, "lines_cut": cut, "signals": len(out)}
