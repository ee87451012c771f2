"""Many patterns, one scan of a line: google-re2's ``re2.Set`` when it is installed, Python's ``re`` otherwise.

A :class:`PatternSet` is a screen in front of exact Python regexes. On an ASCII line, where RE2 and Python's ``re``
agree (case folding, ``\\b``, ``\\d``, ``\\w``), one RE2 scan says which patterns occur, and only the Python regexes
that can match are run. A :class:`Screen` also reads a non-ASCII line (session 39): by RE2 on a copy with ASCII
stand-ins of the same ``re`` class (:mod:`opsbrain.standin`), and on the line itself for regexes with non-ASCII
literals; a regex neither reading is proven for is run on every such line. An install without RE2 (or a line with
a character ``re.I`` folds onto ASCII) gets ``None`` ("cannot tell"): the caller then runs every regex, exactly as
without a screen. So the answer never depends on the engine, only the time does.

:func:`required_literals` derives from a regex the literals of which one must occur in any line it matches: the
screen for a regex RE2 cannot compile as written (look-behinds), or for many regexes at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsbrain.re2translate import re2_superset
from opsbrain.standin import COMMON_KINDS, block_copies, cover, kinds, standin
from opsbrain.standin import parse as standin_parse

if TYPE_CHECKING:
    from opsbrain.blockscan import BlockScan

try:  # the multi-pattern engine (the google-re2 dependency); without it every line takes the exact path
    import re2 as _re2
except ImportError:  # pragma: no cover - exercised by the fallback test through ENGINE
    _re2 = None

ENGINE = "re2" if _re2 is not None else "re"
RE2_MAX_MEM = 64 << 20
"""Bytes RE2 may use for one set's automaton: with ~2,000 literal patterns the DFA needs a few MB; past the budget
RE2 would fall back to a slower engine, not fail."""


class PatternSet:
    """Which of several regexes (RE2 syntax, a subset of Python's) occur in a text, in one scan."""

    def __init__(self, patterns: Sequence[str], ignore_case: bool = False, engine: str | None = None,
                 checked: int = 0) -> None:
        """``checked``: how many leading patterns are known to be valid RE2 (built by :func:`literal_pattern`);
        the others are compiled alone first, so that one RE2 cannot read leaves the set off instead of printing."""
        self.patterns = list(patterns)
        self.ignore_case = ignore_case
        self._set: Any = None
        if (engine or ENGINE) == "re2" and _re2 is not None and self.patterns:
            opts = _re2.Options()
            opts.case_sensitive = not ignore_case
            opts.max_mem = RE2_MAX_MEM
            opts.log_errors = False
            s = _re2.Set.SearchSet(opts)
            try:
                for p in self.patterns[checked:]:
                    _re2.compile(p, opts)  # raises (quietly) on syntax RE2 lacks; Set.Add would log to stderr
                for p in self.patterns:
                    s.Add(p)
                s.Compile()
            except Exception:  # noqa: BLE001 - a pattern RE2 cannot read: no screen, every line takes the exact path
                return
            self._set = s

    @property
    def screening(self) -> bool:
        """True when this set can screen lines (RE2 is there and the set is not empty)."""
        return self._set is not None

    def which(self, text: str) -> list[int] | None:
        """Indices of the patterns found in an ASCII ``text`` (sorted; [] for none), or None when this set cannot
        tell (no RE2, or ``text`` is not ASCII): the caller then checks every pattern itself."""
        if self._set is None or not text.isascii():
            return None
        hits = self._set.Match(text)
        return sorted(hits) if hits else []

    def hits(self, text: str) -> list[int] | None:
        """:meth:`which` without sorting (None: cannot tell; an empty list or None from RE2: nothing found)."""
        if self._set is None or not text.isascii():
            return None
        return self._set.Match(text) or []

    def hits_as_read(self, text: str | bytes) -> list[int] | None:
        """The patterns RE2 finds in ``text`` as it reads any text (Unicode literals exact, ``\\w``/``\\b`` ASCII);
        None without RE2 or for text RE2 cannot take (lone surrogates)."""
        if self._set is None:
            return None
        try:
            return self._set.Match(text) or []
        except (UnicodeError, ValueError, TypeError):
            return None


def _literal_char(c: str) -> str:
    if not c.isascii() or c.isalnum() or c in " _":
        return c
    return "\\" + c if c.isprintable() else f"\\x{ord(c):02x}"


_LITERAL_TABLE = {i: _literal_char(chr(i)) for i in range(128)}
"""Each ASCII character as :func:`literal_pattern` writes it (other characters stand for themselves)."""


def literal_pattern(literal: str) -> str:
    """A pattern matching ``literal`` as written, in the syntax both RE2 and Python read: letters, digits, space,
    ``_`` and non-ASCII characters as they are, other printable ASCII escaped, control characters as ``\\xNN``."""
    return literal.translate(_LITERAL_TABLE)


def required_literals(pattern: str) -> tuple[str, ...]:
    """Lower-case literals of which at least one occurs in any line the pattern matches (as a case-insensitive
    pattern, so also as a case-sensitive one); () when none can be derived (then the pattern is always run)."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        return _seq_literals(list(_parser.parse(pattern, re.IGNORECASE)))
    except Exception:  # noqa: BLE001 - an internal parser API: no screen is always correct
        return ()


def _seq_literals(items: list[Any]) -> tuple[str, ...]:
    runs, cur = [], ""
    options: list[tuple[str, ...]] = []
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            cur += chr(av)
            continue
        runs.append(cur)
        cur = ""
        if name == "BRANCH":
            alts = [_seq_literals(list(a)) for a in av[1]]
            if alts and all(alts):
                options.append(tuple(x for a in alts for x in a))
        elif name == "SUBPATTERN":
            sub = _seq_literals(list(av[-1]))
            if sub:
                options.append(sub)
    runs.append(cur)
    longest = max(runs, key=len)
    if longest:
        options.append((longest,))
    if not options:
        return ()
    best = max(options, key=lambda o: (min(len(x) for x in o), -len(o)))
    return tuple(x.lower() for x in best)


class Screen:
    """Python regexes (``re.Pattern``) screened in one scan of a line: each by its RE2 translation
    (:func:`re2_superset`) or, where there is none, by the literals it needs. :meth:`possible` names the regexes
    that can match a line; the others cannot, and need not be run."""

    def __init__(self, regexes: Sequence[re.Pattern[str]], extra: Sequence[str] = (), engine: str | None = None,
                 checked_extra: bool = False, memo: Memo | None = None) -> None:
        """``extra``: whole patterns (RE2 syntax, used as given) reported by index in the same scan;
        ``checked_extra``: they are known to be valid (built by :func:`literal_pattern`), skip the check;
        ``memo(key, compute)``: a store of the screen's plan (which regex is screened how) by a key of everything
        it depends on (:func:`plan_key`), so a new process need not translate every regex again."""
        self.regexes = list(regexes)
        use_re2 = (engine or ENGINE) == "re2" and _re2 is not None

        def compute() -> dict[str, Any]:
            return _plan(self.regexes, extra, use_re2, checked_extra)

        plan = memo(plan_key(self.regexes, extra, use_re2, checked_extra), compute) if memo and use_re2 \
            else compute()
        lits: dict[str, list[int]] = plan["lits"]
        whole: list[tuple[str, int]] = [(t, i) for t, i in plan["whole"]]
        self._lits = sorted(lits)
        self._owners = [tuple(lits[k]) for k in self._lits] + [(i,) for _t, i in whole]
        self.always = frozenset(plan["always"])
        self.extra = list(plan["extra"])
        self._n = len(self._owners)
        # how a non-ASCII line is read, by the kinds of character it holds (none: not at all)
        self._wide = [(tuple(w["texts"]), self.always | frozenset(w["always"]), frozenset(w["extra"]),
                       frozenset(w["lits"])) for w in plan.get("wide", ())]
        wide_lits: dict[str, list[int]] = plan.get("wide_lits", {})  # literals screening regexes on such lines
        self._wide_lits = sorted(wide_lits)
        self._wide_owners = [tuple(wide_lits[k]) for k in self._wide_lits]
        # in a set of their own, scanned on non-ASCII lines only: an ASCII line's scan is as before
        self._wide_pats = [f"(?i){literal_pattern(k)}" for k in self._wide_lits]
        self._wide_set: PatternSet | None = None
        self._copies: dict[str, dict[int, bytes]] = {}  # stand-in copies made a block at a time (:meth:`prefill`)
        pats = [f"(?i){literal_pattern(k)}" for k in self._lits] + [t for t, _i in whole] + self.extra
        self._patterns = pats
        # a pattern held twice (a regex's RE2 translation that is also an extra: the documented-message catalog,
        # ~23,000 characters, costs ~40 ms to compile) goes into the set once; a hit on it is a hit at each place
        distinct = list(dict.fromkeys(pats))
        where = {p: k for k, p in enumerate(distinct)}
        places: list[list[int]] = [[] for _ in distinct]
        for pos, p in enumerate(pats):
            places[where[p]].append(pos)
        self._places: list[list[int]] | None = places if len(distinct) < len(pats) else None
        self.set = PatternSet(distinct, engine=engine, checked=len(distinct)) if len(self.extra) == len(extra) \
            else PatternSet([], engine="re")  # an extra pattern RE2 cannot read: no screen at all

    def possible(self, text: str) -> tuple[frozenset[int], frozenset[int]] | None:
        """(regexes that can match, extra patterns found) for ``text``; None when the set cannot tell. On a
        non-ASCII line the extra patterns are those that may occur (a superset: the caller confirms them)."""
        if not text.isascii():
            return self._possible_wide(text)
        hits = self.set.hits(text)
        if hits is None:
            return None
        if not hits:
            return self.always, _NONE
        return self._found(hits, self.always, _NONE, _NONE)

    def _found(self, hits: list[int], always: frozenset[int], maybe: frozenset[int], lits: frozenset[int],
               wide_hits: list[int] | None = None) -> tuple[frozenset[int], frozenset[int]]:
        """``lits``: the regexes screened by their literals (on a non-ASCII line the readings do not cover), and
        ``wide_hits`` the literals found (indices into their own set)."""
        n = self._n
        may = set(always)
        extra = set(maybe)
        if self._places is not None:
            hits = [pos for h in hits for pos in self._places[h]]
        if wide_hits:
            hits = [*hits, *(n + len(self.extra) + h for h in wide_hits)]
        for h in hits:
            if h < n:
                may.update(self._owners[h])
            elif h < n + len(self.extra):
                extra.add(h - n)
            elif lits:  # a literal that screens a regex on non-ASCII lines only (its own set, numbered after)
                may.update(lits.intersection(self._wide_owners[h - n - len(self.extra)]))
        return frozenset(may), frozenset(extra)

    def _possible_wide(self, text: str) -> tuple[frozenset[int], frozenset[int]] | None:
        """:meth:`possible` of a non-ASCII line: the hits on its stand-in copies, and on the line itself, as the
        regexes need (:mod:`opsbrain.standin`); the regexes no reading is proven for can always match."""
        if not self._wide or not self.set.screening:
            return None
        made = self._copies.get(text) if self._copies else None  # a line of the common kinds, copied in a block
        mask = COMMON_KINDS if made is not None else kinds(text)
        if mask >= 16:
            return None
        texts, always, maybe, lits = self._wide[mask]
        hits: list[int] = []
        for r in texts:
            copy = text if r == 2 else made[r] if made is not None else standin(text, r, mask)
            found = self.set.hits_as_read(copy) if copy is not None else None
            if found is None:
                return None
            hits += found
        if lits:  # the literals of regexes no reading covers, on the line itself
            if self._wide_set is None:
                self._wide_set = PatternSet(self._wide_pats, checked=len(self._wide_pats))
            wide_hits = self._wide_set.hits_as_read(text)
            if wide_hits is None:
                return None
            return self._found(hits, always, maybe, lits, wide_hits)
        return self._found(hits, always, maybe, lits)

    def prefill(self, texts: Sequence[str]) -> None:
        """Make the stand-in copies :meth:`possible` reads of the non-ASCII ``texts`` of the common kinds a block
        of lines at a time (:func:`opsbrain.standin.block_copies`, session 41), for the calls on those very texts
        that follow; ``prefill(())`` forgets them."""
        self._copies = {}
        if texts and self._wide and self.set.screening:
            self._copies = block_copies(texts, [r for r in self._wide[COMMON][0] if r != 2])

    def block(self, regexes: Iterable[int] | None = None, extra: Iterable[int] | None = None) -> BlockScan | None:
        """A scan of a whole block of lines (:class:`opsbrain.blockscan.BlockScan`) that rules out the lines where
        :meth:`possible` would find none of ``regexes`` (indices; all when None) able to match and none of the
        ``extra`` patterns (indices; all when None); None when this screen cannot rule such lines out (no RE2, a
        regex always run or not covered by the screen)."""
        from opsbrain.blockscan import BlockScan

        pats = self.block_patterns(regexes, extra)
        wide, wide_pats = self.block_wide(regexes, extra), self.block_patterns(regexes, extra, wide=True)
        scan = BlockScan(pats, wide=(wide_pats, wide) if wide is not None and wide_pats is not None else None) \
            if pats is not None else None
        return scan if scan is not None and scan.usable else None

    def block_patterns(self, regexes: Iterable[int] | None = None, extra: Iterable[int] | None = None,
                       wide: bool = False) -> list[str] | None:
        """The patterns of :meth:`block` (RE2 syntax, one line's meaning), or None when it cannot be built.
        ``wide``: also those that screen the regexes on non-ASCII lines only (:meth:`block_wide`)."""
        if not self.set.screening:
            return None
        want = set(range(len(self.regexes))) if regexes is None else set(regexes)
        if not want.isdisjoint(self.always) or any(not 0 <= i < len(self.regexes) for i in want):
            return None
        xs = set(range(len(self.extra))) if extra is None else set(extra)
        pats = [p for p, own in zip(self._patterns, self._owners, strict=False) if not want.isdisjoint(own)]
        pats += [self._patterns[self._n + k] for k in sorted(xs) if 0 <= k < len(self.extra)]
        lits = self._wide[COMMON][3] if wide and self._wide else _NONE
        return pats + [self._wide_pats[k] for k, own in enumerate(self._wide_owners)
                       if not want.isdisjoint(lits.intersection(own))]

    def block_wide(self, regexes: Iterable[int] | None = None, extra: Iterable[int] | None = None) -> Wide | None:
        """How a block scan of :meth:`block_patterns` reads a non-ASCII line, by the kinds of character it holds
        (:func:`opsbrain.standin.kinds`): (the texts to scan, True when one of the regexes or patterns must be
        run on it anyway); None when this screen does not read non-ASCII lines."""
        if not self._wide:
            return None
        want = set(range(len(self.regexes))) if regexes is None else set(regexes)
        xs = set(range(len(self.extra))) if extra is None else set(extra)
        common = self._wide[COMMON][3]  # regexes screened by literals at the common kinds: in the block's patterns
        return [(texts, not want.isdisjoint(always | (lits - common)) or not xs.isdisjoint(maybe))
                for texts, always, maybe, lits in self._wide]


_NONE: frozenset[int] = frozenset()

COMMON = COMMON_KINDS
"""The kinds of a Chinese line (:func:`opsbrain.standin.kinds`: word characters and punctuation, no digits or
whitespace beyond ASCII): a block scan holds the literals that screen regexes on such lines."""

Wide = list[tuple[tuple[int, ...], bool]]
"""Per kinds of non-ASCII character (:func:`opsbrain.standin.kinds`, 0-15): the texts a block scan reads of such a
line (0 and 1 the stand-in copies of :data:`opsbrain.standin.READINGS`, 2 the line itself), and whether the line is
a candidate anyway."""


def wide_union(*wides: Wide) -> Wide:
    """Block readings of several pattern lists scanned as one union: every text any of them reads."""
    return [(tuple(sorted({t for w in wides for t in w[m][0]})), any(w[m][1] for w in wides)) for m in range(16)]


def wide_literals(texts: tuple[int, ...]) -> Wide:
    """The block reading of literal patterns: ASCII ones are in the first stand-in copy as they are ((0,)), others
    only in the line itself ((2,))."""
    return [(texts, False)] * 16

Memo = Callable[[str, Callable[[], dict[str, Any]]], dict[str, Any]]


def _plan(regexes: Sequence[re.Pattern[str]], extra: Sequence[str], use_re2: bool, checked_extra: bool
          ) -> dict[str, Any]:
    """How each regex is screened (plain data): its RE2 translation (``whole``), else the literals it needs
    (``lits``), else always run (``always``); and the ``extra`` patterns RE2 reads."""
    lits: dict[str, list[int]] = {}
    whole: list[list[Any]] = []
    always: list[int] = []
    for i, rx in enumerate(regexes):
        t = re2_superset(rx) if use_re2 else None
        if t is not None and _re2_reads(t):
            whole.append([t, i])
            continue
        need = required_literals(rx.pattern)
        if not need or not all(x.isascii() for x in need):
            always.append(i)  # nothing to screen on (or case folding beyond ASCII): always run
        for lit in need:
            lits.setdefault(lit, []).append(i)
    kept = [p for p in extra if checked_extra or _re2_reads(p)] if use_re2 else list(extra)
    plan = {"lits": lits, "whole": whole, "always": always, "extra": kept}
    if use_re2 and len(kept) == len(extra):
        wide = _wide_plan(regexes, whole, kept)
        plan["wide"], plan["wide_lits"] = wide["plans"], wide["wide_lits"]
    return plan


def _wide_plan(regexes: Sequence[re.Pattern[str]], whole: list[list[Any]], extra: list[str]
               ) -> dict[str, Any]:
    """How a non-ASCII line is read (:mod:`opsbrain.standin`), for each set of kinds of character it may hold
    (``plans``): the regexes and extra patterns found on no reading (``always``, ``extra``) and the texts to scan
    (``texts``). A regex screened by its literals needs the first copy only: an ASCII literal of the line is in it
    as it is. A regex no reading finds is screened by the literals it needs (``lits``: the line itself holds one,
    as written where caseless), when it has such literals."""
    parsed = []
    for pattern, flags, kind, i in [(regexes[i].pattern, regexes[i].flags, "r", i) for _t, i in whole] + \
            [(p, 0, "x", k) for k, p in enumerate(extra)]:
        p = standin_parse(pattern, flags)
        # re.ASCII: \w, \d, \s and \b refuse every non-ASCII character, which the stand-ins' kinds do not say
        ok = p is not None and not p[1] & (re.MULTILINE | re.VERBOSE | re.LOCALE | re.ASCII)  # (review40)
        parsed.append((p[0] if p and ok else None, bool(p and p[1] & re.IGNORECASE), kind, i))
    plans, lits = [], {}
    covers = [cover(items, icase) for items, icase, _kind, _i in parsed]
    fallback = {i: _caseless_literals(regexes[i].pattern)
                for (_items, _c, kind, i), cov in zip(parsed, covers, strict=True) if kind == "r" and None in cov}
    for mask in range(16):
        out: dict[str, Any] = {"always": [], "extra": [], "texts": {0}, "lits": []}
        for (_items, _icase, kind, i), cov in zip(parsed, covers, strict=True):
            texts = cov[mask]
            if texts is None and kind == "r" and (need := fallback[i]):
                texts = {0} if all(x.isascii() for x in need) else {2}
                lits[i] = need
                out["lits"].append(i)
            if texts is None:
                out["always" if kind == "r" else "extra"].append(i)
            else:
                out["texts"] |= texts
        out["texts"] = sorted(out["texts"])
        plans.append(out)
    wide_lits: dict[str, list[int]] = {}
    for i, need in sorted(lits.items()):
        for x in need:
            wide_lits.setdefault(x, []).append(i)
    return {"plans": plans, "wide_lits": wide_lits}


def _caseless_literals(pattern: str) -> tuple[str, ...]:
    """:func:`required_literals` when each of their characters is ASCII or has no case (RE2 then finds them as
    ``re`` does, in any text without a character of :data:`opsbrain.standin.FOLDS`), else ()."""
    need = required_literals(pattern)
    return need if all(c.isascii() or c.lower() == c == c.upper() for x in need for c in x) else ()


def plan_key(regexes: Sequence[re.Pattern[str]], extra: Sequence[str], use_re2: bool, checked_extra: bool) -> str:
    """sha256 of what a screen's plan depends on: the regexes and flags, the extra patterns, this module's code
    and the RE2 library (its file's size and time)."""
    import hashlib
    import json
    import os

    lib = getattr(getattr(_re2, "_re2", None), "__file__", None) if _re2 is not None else None
    try:
        st = os.stat(lib) if lib else None
        lib_id = [lib, st.st_size, st.st_mtime_ns] if st else None
    except OSError:
        lib_id = None
    h = hashlib.sha256(Path(__file__).read_bytes())
    for part in ("standin.py", "re2translate.py"):  # how non-ASCII lines are read, how a regex is translated
        h.update(Path(__file__).with_name(part).read_bytes())
    # a regex compiled on first use (opsbrain.ingest.screen.Screened) is keyed by what it is made of, uncompiled
    parts = [list(getattr(rx, "key", None) or (rx.pattern, rx.flags)) for rx in regexes]
    h.update(json.dumps(parts + [list(extra), use_re2, checked_extra, lib_id],
                        ensure_ascii=True).encode())
    return h.hexdigest()


def superset_key(regexes: Sequence[Any]) -> str:
    """sha256 of what :func:`re2_superset` of ``regexes`` depends on: their patterns and flags and this module's
    code (for a memo of the translations across processes). ``regexes``: compiled regexes, or anything with their
    ``pattern`` and ``flags`` (a regex not compiled yet, by its declared flags)."""
    import hashlib
    import json

    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(Path(__file__).with_name("re2translate.py").read_bytes())
    h.update(json.dumps([[rx.pattern, rx.flags] for rx in regexes], ensure_ascii=True).encode())
    return h.hexdigest()


def _re2_reads(pattern: str) -> bool:
    """True when RE2 compiles ``pattern`` (quietly: RE2 reports nothing on stderr this way)."""
    if _re2 is None:
        return False
    try:
        opts = _re2.Options()
        opts.log_errors = False
        _re2.compile(pattern, opts)
        return True
    except Exception:  # noqa: BLE001 - any refusal means: not this way
        return False


def in_order(text: str, parts: Sequence[str]) -> bool:
    """Whether ``text`` holds ``parts`` in order, without overlap (leftmost search: linear, no backtracking)."""
    at = 0
    for p in parts:
        i = text.find(p, at)
        if i < 0:
            return False
        at = i + len(p)
    return True


__all__ = ["ENGINE", "PatternSet", "Screen", "in_order", "literal_pattern", "re2_superset", "required_literals"]
