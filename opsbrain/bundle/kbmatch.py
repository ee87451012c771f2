"""A bundle's lines against the knowledge base and the imported vendor knowledge (split out of
:mod:`opsbrain.bundle.diagnose` in session 43): the shared block scan that says which lines a parser or the matcher
may use (:func:`_candidates`, the reader's ``keep``), the matching itself and the report's list of what matched."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from opsbrain.bundle.reader import BundleLine


def _knowledge(texts: list[str], matcher: Any, may: list[bool] | None) -> tuple[list[list[Any]], float]:
    import time

    t0 = time.perf_counter()
    out = matcher.match_lines(texts, may) if matcher is not None else [[] for _ in texts]
    return out, time.perf_counter() - t0


_SHARED_SCANS: dict[int, tuple[Any, Any]] = {}


def _candidates(texts: list[str], matcher: Any) -> list[bool] | None:
    """Per line, False where neither a parser can find a signal nor the matcher a match: one block scan of the
    parsers' and the matcher's patterns together (:class:`opsbrain.blockscan.BlockScan`), instead of one each; the
    lines it keeps take both exact per-line paths. None when the scan cannot be built (each then scans alone)."""
    from opsbrain.blockscan import BlockScan
    from opsbrain.ingest import MAX_LINE
    from opsbrain.ingest.parsers import signal_patterns, signal_wide
    from opsbrain.kb.matcher import MAX_SCAN_CHARS
    from opsbrain.multiscan import wide_union

    if matcher is None or not hasattr(matcher, "block_patterns"):
        return None
    kept = _SHARED_SCANS.get(id(matcher))
    if kept is None or kept[0] is not matcher:
        parsers, known = signal_patterns(), matcher.block_patterns()
        # a non-ASCII line: the parsers' patterns and the matcher's for such lines, read as the line screens read it
        p_wide, k_wide = signal_wide(), getattr(matcher, "wide_block", lambda: None)()
        wide = (p_wide[0] + k_wide[0], wide_union(p_wide[1], k_wide[1])) \
            if p_wide is not None and k_wide is not None else None
        scan = BlockScan(parsers + known, wide=wide) if parsers is not None and known is not None else None
        _SHARED_SCANS.clear()  # one matcher at a time (a process diagnoses with one)
        kept = _SHARED_SCANS[id(matcher)] = (matcher, scan if scan is not None and scan.usable else None)
    scan = kept[1]
    return scan.candidates(texts, min(MAX_LINE, MAX_SCAN_CHARS)) if scan is not None else None


def _keep(matcher: Any) -> Callable[[list[str]], list[bool] | None] | None:
    """The reader's ``keep`` (:func:`opsbrain.bundle.reader.scan_bundle`): the shared block scan of
    :func:`_candidates`, when it can be built. A line it rules out gives no signal and no knowledge match, so the
    reader keeps no record of it: the report's lines, signals, incidents and matches are the full read's."""
    if _candidates([], matcher) is None:
        return None
    return lambda texts: _candidates(texts, matcher)


KNOWLEDGE_TOP = 50
"""Distinct explanations (source, class, entry, code) the bundle's report lists, most lines first (a bundle of many
sources matches dozens of vendor entries; ascend-fd's st_testcase alone 30)."""


def _aggregate(hits: Iterable[tuple[int, list[Any]]], lines: list[BundleLine], top: int = 10) -> list[dict[str, Any]]:
    seen: Counter[tuple[Any, ...]] = Counter()
    info: dict[tuple[Any, ...], dict[str, Any]] = {}
    for k, matches in hits:
        for m in matches:
            key = (m.source, m.class_id, m.entry_id, m.code)
            seen[key] += 1
            if key not in info:
                info[key] = {"source": m.source, "class": m.class_id, "entry": m.entry_id, "code": m.code,
                             "handling": m.handling, "cause": m.cause, "suggestion": m.suggestion,
                             "first": f"{lines[k].file}:{lines[k].line}"}
    return [{**info[key], "lines": n} for key, n in seen.most_common(top)]
