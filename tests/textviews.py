"""The text fallback's view of some lines, as the ``--logs`` reader builds it (shared by the tests that check which
lines the view keeps as failing), and the signal kinds the parsers give one line."""

from __future__ import annotations

from collections.abc import Iterable

from opsbrain.diagnosis.realtext import TextView
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.surface import plain


def view_of(text: str | Iterable[str], source: str | None = None) -> TextView:
    """A :class:`TextView` fed ``text`` (one string, split into lines, or the lines) line by line, numbered from 1."""
    view = TextView()
    for i, raw in enumerate(text.splitlines() if isinstance(text, str) else text, 1):
        line, head = plain(raw)
        view(line, source, i, head)
    return view


def line_kinds(line: str) -> list[str]:
    """The kinds of the signals the parsers give ``line`` (read alone, no file)."""
    return [s.kind for s in parse_line(line)]
