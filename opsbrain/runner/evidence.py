"""Where a run's evidence lines landed: after the run's log bundles are written (``chaos run --bundle-dir``), each
journal signal line is looked up in its incident's bundle and gets ``file`` (the bundle file's path) and ``line``
(1-based), so a report names the evidence as ``file:line`` an operator can open. A line the bundle does not hold
(an event of the scheduler, not a log line) keeps no location."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

MIN_CONTAINED = 20
"""Characters a signal text needs before it is looked for inside a longer bundle line (shorter texts would match
by chance); a bundle line that is the signal text exactly always matches."""


def _bundle_lines(root: Path) -> list[tuple[str, int, str]]:
    out: list[tuple[str, int, str]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        for f in sorted(filenames):
            p = Path(dirpath) / f
            if f == "bundle.json" or p.is_symlink():
                continue
            try:
                text = p.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            rel = str(p.relative_to(root))
            out.extend((rel, n, ln.rstrip("\r")) for n, ln in enumerate(text.split("\n"), 1) if ln.strip())
    return out


def locate(signals: list[dict[str, Any]], root: Path) -> int:
    """Add ``file``/``line`` to each signal line found in the bundle at ``root``; returns how many were found."""
    lines = _bundle_lines(root)
    exact: dict[str, tuple[str, int]] = {}
    for rel, n, ln in lines:
        exact.setdefault(ln, (rel, n))
    found = 0
    for s in signals:
        text = str(s.get("text") or "")
        hit = exact.get(text)
        if hit is None and len(text) >= MIN_CONTAINED:
            hit = next(((rel, n) for rel, n, ln in lines if text in ln), None)
        if hit is not None:
            s["file"], s["line"] = str(root / hit[0]), hit[1]
            found += 1
    return found


def locate_run_evidence(journal: dict[str, Any]) -> None:
    """:func:`locate` for every incident of ``journal`` that has a written bundle (``journal["bundles"]``)."""
    paths = {b["incident"]: Path(b["path"]) for b in journal.get("bundles") or [] if "error" not in b}
    for inc in journal.get("incidents") or []:
        root = paths.get(inc.get("id"))
        if root is not None and root.is_dir() and inc.get("signals"):
            locate(inc["signals"], root)
