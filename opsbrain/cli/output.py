"""Tables for the terminal, for pipes and for programs: ``--output table|plain|json`` (``--json`` is ``json``).

- ``table``: columns fitted to the terminal width. A cell wraps only at spaces, so an id (``pod0/node26/l1sw0~
  pod0/l2plane0/sw00``) is never cut or split; when the columns cannot fit even then, every row is printed as a
  block of ``column: value`` lines instead. Colour only on a terminal, and never with ``NO_COLOR`` set.
- ``plain``: one header line, then one line per row, fields separated by tabs (tabs and newlines inside a value
  become spaces): for ``grep``, ``cut -f`` and ``awk -F'\\t'``. No title, no colour, no wrapping.
- ``json``: the command's own data (the table is not used).

Every reporting command renders through :class:`Table`, so a new command gets the same behaviour.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import click

FORMATS = ("table", "plain", "json")
MIN_WRAP = 12  # reason: narrower than this a prose column reads one word a line; the block layout reads better
GAP = "  "
STYLES = {"green": "32", "red": "31", "yellow": "33", "bold": "1", "dim": "2", "bold red": "1;31"}

output_option = click.option(
    "--output", "-o", "output", type=click.Choice(FORMATS), default=None,
    help="table (fitted to the terminal, ids never cut), plain (tab-separated, for grep/awk) or json "
    "(--json is the same as --output json).")


def resolve_format(output: str | None, as_json: bool) -> str:
    """The output format of ``--output`` / ``--json`` (default ``table``); both given and different: bad usage."""
    if as_json and output not in (None, "json"):
        raise click.UsageError(f"--json and --output {output} contradict each other")
    return "json" if as_json else (output or "table")


def terminal_width() -> int:
    """The terminal's width ($COLUMNS first, as the shell sets it); 100 when there is no terminal."""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    return shutil.get_terminal_size((100, 24)).columns


def colour_enabled() -> bool:
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def paint(text: str, style: str | None, colour: bool) -> str:
    code = STYLES.get(style or "")
    return f"\x1b[{code}m{text}\x1b[0m" if colour and code else text


@dataclass
class Column:
    name: str
    wrap: bool = False  # prose that may wrap at spaces; other columns (ids, numbers) keep their width
    right: bool = False


@dataclass
class Table:
    """Rows of cells (strings) under named columns; ``styles`` colour a cell on a terminal."""

    columns: list[Column]
    title: str | None = None
    rows: list[list[str]] = field(default_factory=list)
    styles: list[list[str | None]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, names: Sequence[str], title: str | None = None, wrap: Sequence[str] = (),
           right: Sequence[str] = ()) -> Table:
        return cls([Column(n, n in wrap, n in right) for n in names], title)

    def add(self, *cells: Any, styles: Sequence[str | None] | None = None) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        self.rows.append([_cell(c) for c in cells])
        self.styles.append(list(styles) if styles else [None] * len(cells))

    def note(self, text: str) -> None:
        """A line printed under the table (a legend, a count of hidden rows); plain output leaves it out."""
        self.notes.append(text)

    # ---- rendering --------------------------------------------------------------------------------------------
    def render(self, fmt: str = "table", width: int | None = None, colour: bool | None = None) -> str:
        if fmt == "plain":
            return self.plain()
        width = width or terminal_width()
        colour = colour_enabled() if colour is None else colour
        head = [paint(self.title, "bold", colour)] if self.title else []
        body = self._grid(width, colour)
        if body is None:
            body = self._blocks(width, colour)
        notes = [ln for n in self.notes for ln in _wrap(n, width)]
        return "\n".join(head + body + notes)

    def plain(self) -> str:
        lines = ["\t".join(c.name for c in self.columns)]
        lines += ["\t".join(" ".join(v.split()) for v in row) for row in self.rows]
        return "\n".join(lines)

    def _grid(self, width: int, colour: bool) -> list[str] | None:
        n = len(self.columns)
        natural = [max([len(c.name)] + [_longest_line(r[i]) for r in self.rows]) for i, c in enumerate(self.columns)]
        floor = [max(len(c.name), _longest_word(self.rows, i)) if c.wrap else natural[i]
                 for i, c in enumerate(self.columns)]
        room = width - len(GAP) * (n - 1)
        widths = list(natural)
        if sum(widths) > room:
            wrap_idx = [i for i, c in enumerate(self.columns) if c.wrap]
            fixed = sum(natural[i] for i in range(n) if i not in wrap_idx)
            share = room - fixed
            if not wrap_idx or share < sum(min(natural[i], max(MIN_WRAP, floor[i])) for i in wrap_idx):
                return None
            low = {i: min(natural[i], max(MIN_WRAP, floor[i])) for i in wrap_idx}
            extra = share - sum(low.values())
            for i in wrap_idx:  # each prose column its floor, and the room left in proportion to its natural width
                widths[i] = min(natural[i], low[i] + extra * natural[i] // sum(natural[j] for j in wrap_idx))
            if sum(widths) > room:
                return None
        out = [GAP.join(paint(c.name.ljust(widths[i]), "bold", colour) for i, c in enumerate(self.columns)).rstrip(),
               GAP.join("-" * w for w in widths)]
        for row, styles in zip(self.rows, self.styles, strict=True):
            cells = [_wrap(v, widths[i]) if self.columns[i].wrap else v.split("\n") for i, v in enumerate(row)]
            for k in range(max(len(c) for c in cells)):
                parts = []
                for i, c in enumerate(cells):
                    text = c[k] if k < len(c) else ""
                    text = text.rjust(widths[i]) if self.columns[i].right else text.ljust(widths[i])
                    parts.append(paint(text, styles[i], colour) if text.strip() else text)
                out.append(GAP.join(parts).rstrip())
        return out

    def _blocks(self, width: int, colour: bool) -> list[str]:
        """Each row as ``column: value`` lines (values wrap at spaces; a long id stays whole on its own line)."""
        label = max(len(c.name) for c in self.columns) + 2
        out: list[str] = []
        for k, (row, styles) in enumerate(zip(self.rows, self.styles, strict=True)):
            out.append(f"-- {k + 1}/{len(self.rows)} --")
            for i, c in enumerate(self.columns):
                lines = _wrap(row[i], max(MIN_WRAP, width - label)) or [""]
                out.append(f"{(c.name + ':').ljust(label)}{paint(lines[0], styles[i], colour)}".rstrip())
                out += [" " * label + paint(x, styles[i], colour) for x in lines[1:]]
        return out


def _cell(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def _longest_line(v: str) -> int:
    return max((len(x) for x in v.split("\n")), default=0)


def _longest_word(rows: list[list[str]], i: int) -> int:
    return max((len(w) for r in rows for w in r[i].split()), default=0)


def _wrap(text: str, width: int) -> list[str]:
    """Lines of at most ``width`` characters broken at spaces only (a longer word stays whole on its own line)."""
    out: list[str] = []
    for para in text.split("\n"):
        out += textwrap.wrap(para, width, break_long_words=False, break_on_hyphens=False) or [""]
    return out


def emit(table: Table, fmt: str, data: Any | None = None, echo: Callable[[str], None] = click.echo) -> None:
    """Print ``table`` as ``fmt``; ``json`` prints ``data`` instead (the command's own structure)."""
    if fmt == "json":
        from opsbrain.fsio import strict_json

        echo(strict_json(data, indent=2, default=str))
        return
    echo(table.render(fmt))


__all__ = ["FORMATS", "Column", "Table", "emit", "output_option", "paint", "resolve_format", "terminal_width"]


def yaml_text(data: Any) -> str:
    """A document (``kb show``, ``runbooks show``) as YAML for a person: the fields left unset (None, '') are left
    out, not printed as ``level: null`` or ``name: ''``; ``--json`` keeps every field."""
    import yaml

    def unset(v: Any) -> bool:
        return v is None or v == ""

    def prune(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: prune(x) for k, x in v.items() if not unset(x)}
        if isinstance(v, list):
            return [prune(x) for x in v]
        return v

    return yaml.safe_dump(prune(data), sort_keys=False, width=110, allow_unicode=True).rstrip()
