"""Every line of a bundle read once, in the order the real-text look reads them (session 37), without a record of each.

The real-text fallback (:func:`opsbrain.bundle.secondlook._text_look`, ``_text_per_incident``) reads the lines of a
bundle as ``--logs`` reads its input: every line in time order, into a :class:`~opsbrain.diagnosis.realtext.TextView`.
Before, the bundle was read a second time, without the block scan's cut, for a record of every line (300,000 distinct
lines: 10 s and 383 MB of RSS). A view takes the text of every line only until it holds its first lines
(:attr:`TextView.full`); past that, only the lines with an error word (:data:`~opsbrain.diagnosis.realtext.
ERROR_WORDS`, looked for as the line is read). So the reader keeps, for each line it keeps no record of, its time,
tie rank, read order, file and number (a few bytes in arrays) and the text only of those with an error word; a view
that is not full yet takes the texts it still needs from the files (:meth:`~opsbrain.bundle.walk._File.pick`, a
packed file unpacked a chunk at a time). The lines come in the full read's order with its times: a view is fed the
same lines as from that read, so it answers the same. The order is made when a view is first fed (most bundles are
answered without the text look)."""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Iterator
from typing import Any

from opsbrain.bundle.records import _TIES, BundleLine, Light
from opsbrain.bundle.walk import _File

FIRST_STEP = 4096
"""Lines whose texts a view that is not full yet is given at a time (each step twice the last, up to LAST_STEP)."""
LAST_STEP = 1 << 16


class Entries:
    """The read's lines as the assembly goes through them (records, in the full read's order: :meth:`add`), and the
    lines it kept no record of (``light``); :class:`ViewLines` puts them in order when first asked."""

    def __init__(self) -> None:
        self.dt = array("q")
        self.tie = array("b")
        self.seq = array("q")
        self.fidx = array("i")
        self.num = array("i")
        self.kept = array("q")
        self.texts: dict[int, str] = {}

    def add(self, d: tuple[Any, ...], kept: int) -> None:
        """Record ``d`` (:data:`~opsbrain.bundle.records.Dated`): line ``kept`` of the read's lines, or (-1) a
        record the block scan ruled out, its text held."""
        if kept < 0:
            self.texts[len(self.dt)] = d[4]
        self.dt.append(d[0])
        self.seq.append(d[1])
        self.fidx.append(d[2].index)
        self.num.append(d[3])
        self.tie.append(d[8])
        self.kept.append(kept)


class ViewLines:
    """The read's lines in the full read's order (:meth:`_order`): by time, tie rank and read order, the lines the
    reader made (a link change: ``made``, indexes in ``lines``) after the lines of their time. Each is a kept line
    (``kept[k] >= 0``: its index in ``lines``) or line ``num[k]`` of file ``files[fidx[k]]``, its text in ``texts``
    when the reader held it (an error word, or a record the block scan ruled out)."""

    def __init__(self, entries: Entries, light: Light, origin_us: int, files: list[_File],
                 origins: dict[int, str | None], lines: list[BundleLine], made: list[int]) -> None:
        self._entries, self._light, self._origin_us, self._made = entries, light, origin_us, made
        self.files, self.origins, self.lines = files, origins, lines
        self.t = array("d")
        self.fidx = array("i")
        self.num = array("i")
        self.kept = array("q")
        self.texts: dict[int, str] = {}
        self._ordered = False

    def _order(self) -> None:
        """Put the entries in order (once)."""
        if self._ordered:
            return
        e, light = self._entries, self._light
        n = len(e.dt)
        dt = e.dt + light.dt
        seq = e.seq + light.seq
        fidx = e.fidx + light.fidx
        num = e.num + light.num
        tie = e.tie + array("b", (light.ties[x] for x in light.fidx))
        kept = e.kept + array("q", [-1]) * len(light.dt)
        texts = {**e.texts, **{n + k: text for k, text in light.texts.items()}}
        if dt:
            base, top = min(dt), max(seq) + 2  # (as the assembly's sort: one integer a line, seq -1 at 0)
            keys = [((d - base) * _TIES + t) * top + s + 1 for d, t, s in zip(dt, tie, seq, strict=True)]
            order = sorted(range(len(keys)), key=keys.__getitem__)
            del keys
        else:
            order = []
        origin = self._origin_us
        t = [(dt[k] - origin) / 1_000_000 for k in order]  # (as the assembly's BundleLine.t)
        rows = [(t[j], 0, k) for j, k in enumerate(order)]
        rows += [(self.lines[j].t, 1, j) for j in self._made]
        if self._made:  # stable by time: after the records of their time, as the read puts them
            rows.sort(key=lambda r: r[0])
        index = {f.rel: f.index for f in self.files}
        place: dict[int, int] = {}
        for at, (when, made, k) in enumerate(rows):
            self.t.append(when)
            if made:
                self.fidx.append(index.get(self.lines[k].file, -1))
                self.num.append(0)
                self.kept.append(k)
            else:
                self.fidx.append(fidx[k])
                self.num.append(num[k])
                self.kept.append(kept[k])
                place[k] = at
        self.texts = {place[k]: text for k, text in texts.items()}
        self._entries, self._light, self._ordered = Entries(), Light(0), True

    def __len__(self) -> int:
        self._order()
        return len(self.t)

    def feed(self, view: Any, files: set[str] | None = None, lo: float | None = None, hi: float | None = None
             ) -> None:
        """Hand ``view`` the lines (of ``files`` only, from ``lo`` to ``hi`` seconds) in order, as
        ``view(text, file, line)``; once it is full, only those with an error word, the rest marked passed."""
        self._order()
        fx = {f.index for f in self.files if files is None or f.rel in files}
        sel = [k for k, (x, t) in enumerate(zip(self.fidx, self.t, strict=True))
               if (files is None or x in fx) and (lo is None or t >= lo) and (hi is None or t <= hi)]
        at, step = 0, FIRST_STEP
        while at < len(sel) and not view.full:
            for text, file, line in self._rows(sel[at: at + step]):
                view(text, file, line)
            at, step = at + step, min(2 * step, LAST_STEP)
        rest = sel[at:]
        held = [k for k in rest if self.kept[k] >= 0 or k in self.texts]
        if len(held) < len(rest):
            view.passed()  # (a line with no error word past a full view only marks its overflow)
        for text, file, line in self._rows(held):
            view(text, file, line)

    def feed_tails(self, scan: Any, files: set[str] | None, lo: float | None, hi: float | None, n: int) -> None:
        """Hand ``scan`` the last ``n`` lines of each file (of ``files`` only, from ``lo`` to ``hi`` seconds), in
        order, as ``scan(text, file, line)``: what :class:`opsbrain.diagnosis.wenton.ProgressScan` keeps."""
        self._order()
        fx = {f.index for f in self.files if files is None or f.rel in files}
        last: dict[int, deque[int]] = {}
        for k, (x, t) in enumerate(zip(self.fidx, self.t, strict=True)):
            if (files is None or x in fx) and (lo is None or t >= lo) and (hi is None or t <= hi):
                if (d := last.get(x)) is None:
                    d = last[x] = deque(maxlen=n)
                d.append(k)
        for text, file, line in self._rows(sorted(k for d in last.values() for k in d)):
            scan(text, file, line)

    def _rows(self, ks: list[int]) -> Iterator[tuple[str, str, int]]:
        """(text, file, line) of entries ``ks``: the texts not held taken from their files, one pass a file."""
        need: dict[int, list[int]] = {}
        for k in ks:
            if self.kept[k] < 0 and k not in self.texts:
                need.setdefault(self.fidx[k], []).append(self.num[k])
        got = {fx: self.files[fx].pick(nums) for fx, nums in need.items()}
        for k in ks:
            if (j := self.kept[k]) >= 0:
                ln = self.lines[j]
                yield ln.text, ln.file, ln.line
                continue
            f, i = self.files[self.fidx[k]], self.num[k]
            text = self.texts.get(k)
            yield (text if text is not None else got[f.index][i]), f.rel, f.line_no(i)

    def origins_of(self, at: set[tuple[str, int]]) -> set[str | None]:
        """The nodes (``node`` of ``node/npuN``) of the lines at ``at`` (file, line)."""
        self._order()
        out: set[str | None] = set()
        fx = {f.index for f in self.files if f.rel in {r for r, _n in at}}
        for k, x in enumerate(self.fidx):
            if x not in fx:
                continue
            if (j := self.kept[k]) >= 0:
                ln = self.lines[j]
                where, origin = (ln.file, ln.line), ln.origin
            else:
                f = self.files[x]
                where, origin = (f.rel, f.line_no(self.num[k])), self.origins.get(f.index)
            if where in at:
                out.add("/".join(origin.split("/")[:2]) if origin else None)
        return out
