"""Match single log lines against the knowledge base and imported vendor knowledge.

Order of work per line (everything precompiled in the constructor):

1. codes: a few literal-prefixed regular expressions find device codes (``event_id=0x80e01801``,
   ``fault code [80E01801]``, MindCluster's device plugin and container-manager ``hex code: 80e01801`` /
   ``hex fault code: 80e01801``: ascend-device-plugin pkg/common/fault_code.go:1844, container-manager
   pkg/fault/app/faultmgr.go:145), UB switch fault tuples (``[0x08520003,na,L2,na]``), HCCL/CANN codes
   (``EI0002``) and runtime codes (``507053``); each is a dictionary look-up into the knowledge-base classes
   and the imported codes (the regexes: :mod:`opsbrain.kb.linecodes`);
2. knowledge-base log patterns, only when no knowledge-base code matched: a literal every match must contain
   (derived from each pattern) is looked for first, and only the patterns whose literal occurs are searched;
3. imported substring groups: a trie-shaped regex finds every indexed substring in one pass, and only the groups
   anchored there are checked in full (all substrings, in order); imported ``regex`` entries are searched too.

Any input gets an answer and never an exception: bytes are decoded with replacement, and only the first
:data:`MAX_SCAN_CHARS` characters of a line are scanned.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsbrain.blockscan import BlockScan
from opsbrain.ingest.parsers.fdreport import fault_name, own_words, status_code
from opsbrain.kb.importers import MAX_ANCHOR_CHARS, ImportedEntry, ImportedKnowledge, name_digest
from opsbrain.kb.linecodes import DEVICE_RES as _DEVICE_RES
from opsbrain.kb.linecodes import HCCL_RE as _HCCL_RE
from opsbrain.kb.linecodes import KNOWN_FORMS as _KNOWN_FORMS
from opsbrain.kb.linecodes import MAX_SCAN_CHARS, as_text, extract_codes
from opsbrain.kb.linecodes import RUNTIME_RE as _RUNTIME_RE
from opsbrain.kb.linecodes import SWITCH_RE as _SWITCH_RE
from opsbrain.kb.linecodes import codes_of as _codes
from opsbrain.kb.linecodes import family as _family
from opsbrain.lazyre import lazy_compile
from opsbrain.multiscan import Screen, Wide, in_order, literal_pattern, required_literals, wide_literals, wide_union


@dataclass(frozen=True, slots=True)
class Match:
    """One explanation of a line: a knowledge-base class or an imported entry (or an imported code level)."""

    source: str                 # "kb" | "imported"
    class_id: str | None        # knowledge-base class id (source "kb")
    entry_id: str | None        # imported knowledge-graph entry id (source "imported"; None for a bare code level)
    code: str | None            # canonical code that matched, None for a pattern
    family: str | None          # device | switch | hccl | runtime, None for a pattern
    handling: str | None        # the class's level (kb), the imported code's level (imported), when known
    cause: str
    suggestion: str
    via: str                    # "code" | "pattern"
    role: str = "primary"       # primary | secondary (a follow-on or shared signal)
    exclusive: bool = False     # this signature points at one knowledge-base class only
    runbook: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


if TYPE_CHECKING:
    from opsbrain.kb.schema import FaultClass


def _kb_match(fc: FaultClass, family: str | None, code: str | None, meaning: str, role: str, exclusive: bool,
              via: str) -> Match:
    return Match("kb", fc.id, None, code, family, fc.handling, f"{fc.title}: {meaning}", fc.suggestion, via,
                 role, exclusive, fc.runbook)


def _entry_match(e: ImportedEntry, levels: dict[str, str], code: str | None, family: str | None,
                 via: str) -> Match:
    level = levels.get(code or e.code or "")
    return Match("imported", None, e.id, code or e.code, family, level, e.cause, e.suggestion, via)


def _trie_regex(words: Iterable[str]) -> str:
    """A regex matching exactly ``words``, shaped as a trie (one walk per position, longest word first)."""
    trie: dict[str, Any] = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = True

    def build(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(trie)


# Characters from rare to common in log text (rough English letter frequencies; digits, spaces and the
# punctuation of time stamps last). An anchor starting with a rare character gives the regex engine few
# positions to try, which is what keeps one pass over all imported substrings cheap.
_RARE_FIRST = ("zqjkvZQJXKVYWUFGBHPMOLNRCDIATSE!#$%&*+;<>?@^`{|}~\"'\\ywgbfpmhculdrsnoiatex"
               "=()/_-,:.[]0123456789 \t")
_RANK = {c: i for i, c in enumerate(_RARE_FIRST)}
_COMMON_WORDS = lazy_compile(r"error|fail|exception|timeout|time out|kernel|reason|runtime|warn|info|device|code|"
                           r"execut|exceed|invalid|abnormal|check|status", re.IGNORECASE)
"""Words found in many log lines: an anchor starting inside one would make many lines candidates."""
MIN_ANCHOR_CHARS = 4


def _anchor(group: tuple[str, ...]) -> str:
    """A piece of one substring of ``group`` that every matching line contains: the window starting at the rarest
    character (at least MIN_ANCHOR_CHARS long unless the substring is shorter), capped at MAX_ANCHOR_CHARS."""
    best: tuple[int, int, int, str] | None = None
    for sub in group:
        need = min(len(sub), MIN_ANCHOR_CHARS)
        common = {i for m in _COMMON_WORDS.finditer(sub) for i in range(m.start(), m.end())}
        for i, ch in enumerate(sub):
            if len(sub) - i < need:
                break
            window = sub[i:i + MAX_ANCHOR_CHARS]
            key = (i in common, _RANK.get(ch, -1), -len(window), window)
            if best is None or key < best:
                best = key
    return best[3] if best else max(group, key=len)


def _anchors(groups: list[tuple[str, ...]]) -> list[str]:
    """:func:`_anchor` of every group, kept beside the screen plans (the imported knowledge's ~1,800 groups cost
    ~0.15 s a process to anchor); the key is the groups and this module's code, so a stale list is never read."""
    from opsbrain.kb.compiled import screen_memo

    digest = hashlib.blake2b(repr(groups).encode(), digest_size=16)
    digest.update(Path(__file__).read_bytes())
    plan = screen_memo("anchors-" + digest.hexdigest(), lambda: {"anchors": [_anchor(g) for g in groups]})
    got = plan.get("anchors")
    if not isinstance(got, list) or len(got) != len(groups) or not all(isinstance(a, str) for a in got):
        return [_anchor(g) for g in groups]
    return got


def _pattern_gate(pattern: str) -> tuple[str, ...]:
    """Lower-case literals of which at least one occurs in any line the (case-insensitive) pattern matches;
    () when none can be derived (then the pattern is always searched)."""
    return required_literals(pattern)


GroupHit = tuple[tuple[str, ...], ImportedEntry]


class SignatureMatcher:
    """Precompiled matcher over a knowledge base (loaded, or compiled: :mod:`opsbrain.kb.compiled`; only the
    classes' attributes are read) and (optionally) imported vendor knowledge."""

    def __init__(self, kb: Iterable[Any], imported: ImportedKnowledge | None = None) -> None:
        self.kb = kb
        self.imported = imported or ImportedKnowledge()
        self._build_kb()
        self._build_imported()
        self._build_screen()
        self._entries = dict(self.imported.entries)

    def imported_entry(self, entry_id: str) -> ImportedEntry | None:
        """The imported entry of that id (for its attributes: cause, category), or None."""
        return self._entries.get(entry_id)

    # ---- construction -----------------------------------------------------------------------------------------
    def _build_kb(self) -> None:
        owners: dict[str, set[str]] = {}
        for fc in self.kb:
            for _fam, sig in fc.signatures.codes():
                owners.setdefault(sig.code, set()).add(fc.id)
        hits: dict[str, list[Match]] = {}
        for fc in self.kb:
            for fam, sig in fc.signatures.codes():
                hits.setdefault(sig.code, []).append(
                    _kb_match(fc, fam, sig.code, sig.meaning, sig.role, len(owners[sig.code]) == 1, "code"))
        self._kb_codes: dict[str, tuple[Match, ...]] = {
            k: tuple(sorted(v, key=lambda m: (m.role != "primary", m.class_id or ""))) for k, v in hits.items()}
        pats = [(fc, p) for fc in self.kb for p in fc.signatures.log_patterns]
        pat_owners: dict[str, set[str]] = {}
        for fc, p in pats:
            pat_owners.setdefault(p.pattern, set()).add(fc.id)
        self._patterns = [(re.compile(p.pattern, re.IGNORECASE),
                           _kb_match(fc, None, None, p.meaning, p.role, len(pat_owners[p.pattern]) == 1, "pattern"))
                          for fc, p in pats]
        gates: dict[str, list[int]] = {}
        ungated = []
        for i, (_fc, p) in enumerate(pats):
            gate = _pattern_gate(p.pattern)
            if not gate or not all(lit.isascii() for lit in gate):
                ungated.append(i)
            for lit in gate:
                gates.setdefault(lit, []).append(i)
        lits = sorted(gates)
        self._gate_words = lits
        self._gate_hits = {lit: tuple(sorted({i for k in range(1, len(lit) + 1) for i in gates.get(lit[:k], ())}))
                           for lit in lits}
        self._ungated = tuple(ungated)

    def _build_imported(self) -> None:
        imp = self.imported
        by_code: dict[str, list[Match]] = {}
        for e in imp.entries.values():
            if e.code:
                by_code.setdefault(e.code, []).append(_entry_match(e, imp.levels, e.code, _family(e.code), "code"))
        for code, level in imp.levels.items():
            if code not in by_code:
                by_code[code] = [Match("imported", None, None, code, _family(code), level,
                                       f"fault code {code} (imported handling level {level})", "", "code")]
        self._imp_codes = {k: tuple(v) for k, v in by_code.items()}
        groups_by_anchor: dict[str, list[GroupHit]] = {}
        hits = [(g, e) for e in imp.entries.values() for g in e.groups]
        for (g, e), a in zip(hits, _anchors([g for g, _e in hits]), strict=True):
            groups_by_anchor.setdefault(a, []).append((g, e))
        self._groups_own = {a: tuple(v) for a, v in groups_by_anchor.items()}
        anchors = sorted(groups_by_anchor)
        self._anchor_words = anchors
        # the regex returns the longest anchor at a position; every shorter anchor there is a prefix of it
        anchor_set = set(anchors)
        self._groups_at: dict[str, tuple[GroupHit, ...]] = {
            a: tuple(item for i in range(1, len(a) + 1) if a[:i] in anchor_set for item in groups_by_anchor[a[:i]])
            for a in anchors}
        self._entry_pattern_match = {e.id: _entry_match(e, imp.levels, None, None, "pattern")
                                     for e in imp.entries.values()}
        self._by_name: dict[str, list[ImportedEntry]] = {}  # name digest -> entries (English and Chinese names)
        for e in imp.entries.values():
            for key in dict.fromkeys((name_digest(e.cause), e.zh_name_key)):
                if key:
                    self._by_name.setdefault(key, []).append(e)
        self._regexes = [(re.compile(e.regex), e) for e in imp.entries.values() if e.regex]

    def _build_screen(self) -> None:
        """One RE2 scan of an ASCII line (:mod:`opsbrain.multiscan`) says which code regexes, knowledge-base
        patterns, imported regexes and anchors can occur in it; a line where none can costs that one scan."""
        code_res = [re.compile(rx.pattern, re.IGNORECASE) for rx in (*_DEVICE_RES, _SWITCH_RE)] + \
            [_HCCL_RE, _RUNTIME_RE]  # the first three are searched in the lower-cased line
        self._n_codes = len(code_res)
        self._n_kb = len(self._patterns)
        regexes = code_res + [rx for rx, _m in self._patterns] + [rx for rx, _e in self._regexes]
        self._screen_anchors = list(self._groups_own)  # a non-ASCII one is found on non-ASCII lines (session 39)
        from opsbrain.kb.compiled import screen_memo

        self._screen = Screen(regexes, extra=[literal_pattern(a) for a in self._screen_anchors], checked_extra=True,
                              memo=screen_memo)

    # the trie regexes serve the lines the screen cannot tell about (not ASCII, no RE2): built on first need
    @cached_property
    def _gate_re(self) -> re.Pattern[str] | None:
        return re.compile(_trie_regex(self._gate_words)) if self._gate_words else None

    @cached_property
    def _anchor_re(self) -> re.Pattern[str] | None:
        return re.compile(_trie_regex(self._anchor_words)) if self._anchor_words else None

    # ---- matching -----------------------------------------------------------------------------------------------
    def match(self, line: Any) -> list[Match]:
        """Every explanation of one log line, codes first; [] when nothing is known about it. Never raises."""
        text = as_text(line)
        if not text:
            return []
        try:
            return self._match(text)
        except (RecursionError, MemoryError, re.error):  # pragma: no cover - junk never breaks a diagnosis
            return []

    def _report_row(self, text: str) -> list[Match]:
        """The imported entries a FaultDiag report row names: its fault name equal to an entry's English or Chinese
        name (故障名称 / Fault Name), or its status code equal to an entry id (状态码: the tool prints the id of the
        knowledge-graph entry it matched, print_wrapper.py ``_format_fault_attr``)."""
        found: list[ImportedEntry] = []
        if (name := fault_name(text)) is not None:
            found = self._by_name.get(name_digest(name), [])
        elif (code := status_code(text)) is not None and (e := self._entries.get(code)) is not None:
            found = [e]
        out = []
        for e in found:
            m = self._entry_pattern_match[e.id]
            out.append(Match(m.source, None, e.id, m.code, None, m.handling, m.cause, m.suggestion, "report"))
        return out

    def _match(self, text: str) -> list[Match]:
        if "|" in text or '"' in text:  # a FaultDiag report's row, or a key line of its diag_report.json
            if own_words(text):
                return self._report_row(text)  # the report's own words: only the entry its name or code names
            if self._by_name and status_code(text) is not None:
                named = self._report_row(text)
                ids = {m.entry_id for m in named}
                return named + [m for m in self._match_log(text) if m.entry_id not in ids or m.entry_id is None]
        return self._match_log(text)

    def _match_log(self, text: str) -> list[Match]:
        screened = self._screen.possible(text)  # None: no RE2 (or a character re.I folds onto ASCII), every regex runs
        if screened is not None and not screened[0] and not screened[1]:
            return []  # nothing can match: the one scan was all
        may, anchors = screened if screened is not None else (None, None)
        out: list[Match] = []
        seen: set[tuple[str | None, str | None, str | None]] = set()
        entries: set[str] = set()

        def add(m: Match) -> None:
            key = (m.class_id, m.entry_id, m.code)
            if key not in seen:
                seen.add(key)
                out.append(m)
                if m.entry_id:
                    entries.add(m.entry_id)

        low = text.lower()
        nc, nk = self._n_codes, self._n_kb
        kb_hit = False
        if may is None or not may.isdisjoint(range(nc)):
            for family, code in _codes(text, low):
                keys = (code, code[1:].split(",", 1)[0]) if family == "switch" else (code,)  # + the bare alarm id
                for k in keys:
                    for m in self._kb_codes.get(k, ()):
                        kb_hit = True
                        add(m)
                    for m in self._imp_codes.get(k, ()):
                        add(m)
        if not kb_hit:
            cands = self._pattern_candidates(text, low) if may is None else \
                sorted(j - nc for j in may if nc <= j < nc + nk)
            for i in cands:
                rx, m = self._patterns[i]
                if rx.search(text):
                    add(m)
        for group, e in (self._groups_by_trie(text) if anchors is None else self._groups_by_screen(text, anchors)):
            if e.id not in entries and in_order(text, group):
                add(self._entry_pattern_match[e.id])
        for j, (rx, e) in enumerate(self._regexes, nc + nk):
            if (may is None or j in may) and e.id not in entries and rx.search(text):
                add(self._entry_pattern_match[e.id])
        return out

    def _groups_by_trie(self, text: str) -> Iterator[GroupHit]:
        """The imported groups anchored in ``text``, by anchor position (the trie regex: any text)."""
        if self._anchor_re is None:
            return
        pos = 0
        while (am := self._anchor_re.search(text, pos)) is not None:
            yield from self._groups_at[am.group()]
            pos = am.start() + 1

    def _groups_by_screen(self, text: str, anchors: frozenset[int]) -> Iterator[GroupHit]:
        """The same for the anchors the screen found, in the same order: by position, shorter anchors first (on a
        non-ASCII line the anchors that may occur: each is looked for)."""
        at = []
        for a in [self._screen_anchors[k] for k in anchors]:
            pos = text.find(a)
            while pos >= 0:
                at.append((pos, len(a), a))
                pos = text.find(a, pos + 1)
        for _pos, _n, a in sorted(at):
            yield from self._groups_own[a]

    def _pattern_candidates(self, text: str, low: str) -> list[int]:
        """Indices of the knowledge-base patterns that can match: those whose literal gate occurs in the line.
        Gates compare lower-cased ASCII; a line with other characters (where case folding can surprise) is
        checked against every pattern."""
        if not text.isascii():
            return list(range(len(self._patterns)))
        cand = set(self._ungated)
        if self._gate_re is not None:
            pos = 0
            while (gm := self._gate_re.search(low, pos)) is not None:
                cand.update(self._gate_hits[gm.group()])
                pos = gm.start() + 1
        return sorted(cand)

    def match_lines(self, lines: Iterable[Any], may: list[bool] | None = None) -> list[list[Match]]:
        """:meth:`match` of every line; one block scan of all of them (:meth:`opsbrain.multiscan.Screen.block`)
        first rules out the lines where nothing can match, so that most lines of a large log cost no Python work.
        ``may``: per line, False where nothing can match (a scan with :meth:`block_patterns` the caller ran)."""
        texts = [ln[:MAX_SCAN_CHARS] if type(ln) is str else as_text(ln) for ln in lines]  # as_text, inlined
        if may is None or len(may) != len(texts):
            may = self._block.candidates(texts, MAX_SCAN_CHARS) if self._block is not None else None
        if may is None:
            return [self.match(t) for t in texts]
        self._screen.prefill([t for t, m in zip(texts, may, strict=True) if m])
        try:
            return [self.match(t) if m else [] for t, m in zip(texts, may, strict=True)]
        finally:
            self._screen.prefill(())

    @cached_property
    def _block(self) -> BlockScan | None:
        pats = self.block_patterns()
        scan = BlockScan(pats, wide=self.wide_block()) if pats is not None else None
        return scan if scan is not None and scan.usable else None

    def block_patterns(self) -> list[str] | None:
        """The block scan of :meth:`match_lines`: every code regex (the HCCL and runtime ones as the codes known,
        :data:`_KNOWN_FORMS`), knowledge-base pattern and imported regex as the line screen reads it, and for each
        group of substrings the screen's anchors index, its longest substring (:meth:`_match` adds a group's entry
        only where every substring occurs); None when it cannot be built."""
        known = set(self._kb_codes) | set(self._imp_codes)
        forms, general = [], []
        for rx, shape, form in _KNOWN_FORMS:
            i = self._screen.regexes.index(rx)
            codes = sorted(k for k in known if shape.fullmatch(k))
            general.append(i)
            if codes:
                forms.append(form.format("|".join(codes)))
        pats = self._screen.block_patterns(regexes=[i for i in range(len(self._screen.regexes)) if i not in general],
                                           extra=())
        if pats is None:
            return None
        pats += forms
        if self._by_name:  # a FaultDiag report's name and status-code rows (ASCII ones: English reports)
            pats.append(r"(?i)^\s*\|[^|\n]*\|\s*(?:Fault Name|Fault|Status Code)\s*\|")
            pats.append(r'^\s*"(?:cause_en|code)"\s*:')  # diag_report.json's name and code keys
        return pats + [literal_pattern(sub) for sub in self._longest_parts()]

    def _longest_parts(self) -> list[str]:
        """The longest substring of each group the screen's anchors index (sorted): :meth:`_match` adds a group's
        entry only where every substring occurs, so a line without any of these needs no look at the groups."""
        return sorted({max(group, key=len) for a in self._screen_anchors for group, _e in self._groups_own[a]})

    def wide_block(self) -> tuple[list[str], Wide] | None:
        """The block scan of :meth:`match_lines` on non-ASCII lines (session 39), or None: the line screen's
        patterns of every regex and anchor as it reads such lines (:meth:`opsbrain.multiscan.Screen.block_wide`),
        and ``|`` or ``"`` (a FaultDiag report's row, also a Chinese one, is read whole). The groups as the ASCII
        lines' scan has them (session 41, speed41b): the longest substring of each, not the screen's anchors (a path
        ``/data/模型`` held the anchor ``data`` of a group that also needs ``Invalid data``, and was kept); an ASCII
        one is found in the first stand-in copy as written, another in the line itself."""
        pats = self._screen.block_patterns(wide=True, extra=())
        wide = self._screen.block_wide(extra=())
        if pats is None or wide is None:
            return None
        parts = self._longest_parts()
        texts = (0,) if all(p.isascii() for p in parts) else (0, 2)
        return pats + ['[|"]'] + [literal_pattern(p) for p in parts], wide_union(wide, wide_literals(texts))


__all__ = ["MAX_SCAN_CHARS", "Match", "SignatureMatcher", "as_text", "extract_codes"]
