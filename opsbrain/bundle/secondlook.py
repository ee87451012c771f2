"""A bundle's incidents read a second time: the imported vendor entries' votes (on the root cluster and on the
verdict) and the real-text fallback on each incident that abstains or answers weakly, as ``diagnose --logs`` reads a
paste. Split from :mod:`opsbrain.bundle.diagnose`, which calls them in this order after detection."""

from __future__ import annotations

from typing import Any

from opsbrain.bundle.reader import BundleLine
from opsbrain.bundle.viewlines import ViewLines
from opsbrain.ingest import DOWN, Signal, link_of
from opsbrain.ingest.where import node_of
from opsbrain.verdict import nothing_found


def _class_of(inc: dict[str, Any]) -> str:
    return str((inc.get("diagnosis") or {}).get("fault_class", "unknown"))


def _abstained(inc: dict[str, Any]) -> bool:
    return (inc.get("diagnosis") or {}).get("fault_class", "unknown") == "unknown"


def _vendor_signals(hits: list[list[Any]], lines: list[BundleLine], matcher: Any, files: Any = None
                    ) -> list[tuple[Signal, bool]]:
    """One ``vendor:<class>`` signal per imported entry the bundle matched and the reviewed vendor map gives a class
    (knowledge_base/vendor_map.yaml), at its first line, with whether the entry may decide it (as ``diagnose --logs``
    reads them: :class:`opsbrain.diagnosis.oneclick._Knowledge`). ``files``: a
    :class:`opsbrain.diagnosis.oneclick.VendorFiles` that takes every file's first line of each entry."""
    from opsbrain.diagnosis.knowledge import load_vendor_rules, vendor_mapping

    out: list[tuple[Signal, bool]] = []
    mapped_of: dict[str, str | None] = {}
    rules = None
    for k, matches in enumerate(hits):
        for m in matches:
            if m.source != "imported" or not m.entry_id:
                continue
            ln = lines[k]
            if m.entry_id in mapped_of:
                if files is not None and (mapped := mapped_of[m.entry_id]):
                    files.add(m.entry_id, Signal(ln.t, f"vendor:{mapped}", None, None, 2, ln.text[:300],
                                                 line_no=ln.line, file=ln.file))
                continue
            rules = rules if rules is not None else load_vendor_rules()
            entry = matcher.imported_entry(m.entry_id)
            mapped, decides = vendor_mapping(entry, rules) if entry is not None else (None, False)
            mapped_of[m.entry_id] = mapped
            if mapped:
                s = Signal(ln.t, f"vendor:{mapped}", None, None, 2, ln.text[:300], line_no=ln.line, file=ln.file)
                out.append((s, decides))
                if files is not None:
                    files.add(m.entry_id, s, first=True)
    return out


def _vendor_at_roots(placed: list[Signal], hits: list[list[Any]], lines: list[BundleLine], matcher: Any,
                     engine: Any, now: float) -> list[Signal]:
    """The imported vendor entries the root cluster weighs, as ``diagnose --logs`` weighs them on the same files:
    those :func:`opsbrain.diagnosis.oneclick.vendor_votes` admits on the bundle's signals, on every file's first
    line of each (:class:`opsbrain.diagnosis.oneclick.VendorFiles`). Before, the root cluster of a bundle never saw
    a vendor entry, so the same files answered 0.23 under ``--bundle`` and 0.61 under ``--logs``."""
    from opsbrain.diagnosis.oneclick import VendorFiles, vendor_votes

    if matcher is None:
        return []
    files = VendorFiles()
    vendor = _vendor_signals(hits, lines, matcher, files)
    return files.admitted(vendor_votes(engine, placed, vendor, now)) if vendor else []


def _vendor_verdict(incidents: list[Any], out_incs: list[dict[str, Any]], primary: dict[str, Any] | None,
                    hits: list[list[Any]], lines: list[BundleLine], matcher: Any, engine: Any
                    ) -> dict[str, Any] | None:
    """Where the primary incident abstains (or the bundle has none): the incident re-diagnosed with the imported vendor
    entries that may decide (:func:`opsbrain.diagnosis.oneclick.vendor_votes`), as ``diagnose --logs`` answers an
    abstention; None when no entry takes part or the verdict still abstains. A verdict the bundle's own signals give
    is left as it is: its vendor entries are listed beside it (re-diagnosing with an agreeing entry moved the
    model's probability by 0.01-0.04, down, on 9 of the 418 built-in scenario bundles)."""
    from opsbrain.diagnosis.oneclick import vendor_votes

    if primary is not None and not _abstained(primary):
        return None
    vendor = _vendor_signals(hits, lines, matcher) if matcher is not None else []
    if not vendor:
        return None
    # by id: the primary may be a copy of its row (the clearest documented incident's, :func:`_clearest_documented`)
    inc = next((i for i, row in zip(incidents, out_incs, strict=True)
                if primary is not None and row["id"] == primary["id"]), None)
    own = list(inc.signals) if inc is not None else []
    now = max((s.t for s in own), default=max(s.t for s, _ in vendor))
    counted = vendor_votes(engine, own, vendor, now)
    if not counted:
        return None
    d = engine.diagnose_signals(own + counted, now)
    if d.abstained and primary is not None:
        return None
    dd = d.as_dict()
    at = {(s.file, s.line_no) for s in counted}
    where = {ln.origin for ln in lines if (ln.file, ln.line) in at}  # the hosts whose lines the entries are
    if dd.get("component") is None and inc is not None and len(inc.nodes) == 1 and where <= set(inc.nodes):
        # host-level lines (a kernel's OOM kill) of the incident's one node: that node (not where the entries that
        # took part are another host's lines)
        dd["component"] = next(iter(inc.nodes))
    elif dd.get("component") is None and inc is None and len(where) == 1 and None not in where:
        dd["component"] = next(iter(where))  # no incident: the one host whose lines the deciding entries are
    dd["evidence"] = list(dd["evidence"]) + [
        f"imported vendor entries take part: {len(counted)} line(s) mapped by knowledge_base/vendor_map.yaml"]
    ev = [{"file": s.file, "line": s.line_no, "kind": s.kind, "text": s.text} for s in counted]
    if primary is not None:
        return {**primary, "diagnosis": dd, "evidence_lines": (primary["evidence_lines"] + ev)[:10]}
    return {"id": None, "diagnosis": dd, "evidence_lines": ev[:10], "errors": 0, "opened_at_s": now}


def _incident_processes(incidents: list[Any], primary: dict[str, Any] | None, where: dict[int, int],
                        lines: list[BundleLine], table: Any) -> set[str] | None:
    """The names of the collective's processes whose own lines (:func:`opsbrain.diagnosis.multirank.signals_of`)
    the primary incident holds: the root cluster places the verdict on none of the others (another incident's).
    None where there is no primary incident (the verdict rests on the whole bundle)."""
    from opsbrain.diagnosis.multirank import signals_of as own_signals

    inc = next((i for i in incidents if primary is not None and i.id == primary.get("id")), None)
    if inc is None:
        return None
    mine = [s.at(file=lines[k].file, line_no=lines[k].line) for s in inc.signals if (k := where.get(id(s))) is not None]
    return {p.name for p in table.processes if own_signals([p], mine)}


def _one_npu(incidents: list[Any], primary: dict[str, Any] | None) -> str | None:
    """The one NPU the primary incident's evidence places its fault on, else None (the rule ``--logs`` shares:
    :func:`opsbrain.diagnosis.rootdevice.placed_device`)."""
    from opsbrain.diagnosis.rootdevice import placed_device

    inc = next((i for i in incidents if primary is not None and i.id == primary.get("id")), None)
    return placed_device(inc.signals) if inc is not None else None


TEXT_WINDOW_S = 60.0
"""Seconds around an incident whose lines of its own files the real-text fallback reads for it: the detector's
group window (:attr:`opsbrain.detection.params.DetectorParams.group_window_s`), within which a file's errors are
taken as one incident's (the healthy lines around them weigh too, as under ``--logs``)."""


def _text_per_incident(incidents: list[Any], out_incs: list[dict[str, Any]], where: dict[int, int],
                       lines: list[BundleLine], hits: list[list[Any]], engine: Any,
                       every: ViewLines, sigs: list[Any]) -> None:
    """Each incident that abstains or gives a weak answer read by the real-text fallback as ``diagnose --logs``
    reads a paste (:func:`opsbrain.diagnosis.oneclick.text_fallback`, under its own gates: no hardware evidence, a
    failure shown, a reading sure enough, documented matches): on the lines of the incident's own files within
    :data:`TEXT_WINDOW_S` of it (``every``: every line of the read, :class:`~opsbrain.bundle.viewlines.ViewLines`),
    with its own signals and the knowledge matches on its lines; its row (``out_incs``) takes the answer,
    ``decided_by: text``. Before, only the primary incident was read, on every line of the bundle: a paste's own
    incident among others said ``unknown`` where the same text under ``--logs`` was answered (session 32, tester
    BB). The model reads the kinds of every signal of those lines (``sigs``: the read's), as ``--logs`` reads a
    paste's: an incident holds only the signals that opened or joined it, not a warning beside them (session 42: a
    traceback's ``py:traceback`` moved the bundle's answer 0.02 off the paste's)."""
    from opsbrain.diagnosis.oneclick import text_fallback
    from opsbrain.diagnosis.realtext import SECOND_OPINION_BELOW, TextView
    from opsbrain.verdict import Diagnosis

    for inc, row in zip(incidents, out_incs, strict=True):
        dd = row["diagnosis"]
        if dd is None or (dd["fault_class"] != "unknown" and float(dd["confidence"]) >= SECOND_OPINION_BELOW):
            continue
        mine = [k for s in inc.signals if (k := where.get(id(s))) is not None]
        files = {lines[k].file for k in mine}
        lo, hi = inc.opened_at - TEXT_WINDOW_S, inc.last_at + TEXT_WINDOW_S
        view = TextView()
        every.feed(view, files, lo, hi)
        d = Diagnosis.from_dict(dd, inc.last_at)
        documented = frozenset(m.class_id for k in mine for m in hits[k] if m.class_id)
        kinds = [s.kind for s in sigs if (k := where.get(id(s))) is not None and lines[k].file in files
                 and lo <= s.t <= hi]
        got, cited = text_fallback(engine, d, list(inc.signals), view, inc.last_at, documented, kinds)
        if not cited or _went_on(got, every, view, list(inc.signals), where, lines, files, lo, hi):
            continue
        out = got.as_dict()
        if out.get("component") is None and len(inc.nodes) == 1:
            out["component"] = next(iter(inc.nodes))  # the one host whose lines the incident holds
        out["decided_by"] = "text"
        said = list(out["evidence"])  # a cited line the engine's evidence already quotes is not quoted twice
        out["evidence"] = said + [x for e in cited if (x := f"{e['file']}:{e['line']}: {e['text'][:160]}") not in said]
        row["diagnosis"] = out
        row["evidence_lines"] = (cited + row["evidence_lines"])[:10]


def _went_on(got: Any, every: ViewLines, view: Any, own: list[Signal], where: dict[int, int],
             lines: list[BundleLine], files: set[str] | None = None, lo: float | None = None,
             hi: float | None = None) -> bool:
    """Whether the text look's answer is one the program went on from, as ``diagnose --logs`` asks
    (:func:`opsbrain.diagnosis.wenton.survived_run`): the last lines of the files read, and the signals placed on
    their lines."""
    from opsbrain.diagnosis.wenton import survived_run

    if got.abstained:
        return False
    scan, placed = _tails_read(every, own, where, lines, files, lo, hi)
    return survived_run(got, scan, placed, got.at_s, view.failing_lines()) is not None


def _tails_read(every: ViewLines, own: list[Signal], where: dict[int, int], lines: list[BundleLine],
                files: set[str] | None = None, lo: float | None = None,
                hi: float | None = None) -> tuple[Any, list[Signal]]:
    """A :class:`~opsbrain.diagnosis.wenton.ProgressScan` fed the last lines of the files read, and the signals
    ``own`` placed on their lines (file, line number)."""
    from opsbrain.diagnosis.wenton import TAIL, progress_scan

    scan = progress_scan()
    every.feed_tails(scan, files, lo, hi, TAIL)
    return scan, [s.at(file=lines[k].file, line_no=lines[k].line) for s in own if (k := where.get(id(s))) is not None]


def went_on_verdict(dd: dict[str, Any] | None, every: ViewLines, sigs: list[Signal], where: dict[int, int],
                    lines: list[BundleLine]) -> dict[str, Any] | None:
    """The bundle's verdict ``dd`` (a diagnosis dict of the signals, not the text look's) as an abstention where it
    is a software class the program went on from (:func:`_went_on`, on every file of the bundle: those with a
    failing line among their last lines or a signal, and those the text view sees fail, as ``diagnose --logs`` asks
    them); None otherwise."""
    from opsbrain.diagnosis.realtext import TextView
    from opsbrain.diagnosis.wenton import survived_run
    from opsbrain.verdict import Diagnosis

    if not dd or dd.get("decided_by") == "text" or dd.get("fault_class") == "unknown":
        return None
    d = Diagnosis.from_dict(dd)
    scan, placed = _tails_read(every, sigs, where, lines)
    if survived_run(d, scan, placed, d.at_s) is None:
        return None
    # the files that failed before their last lines without a signal too (review53: --logs asked them, --bundle did
    # not); every line read only where the answer would go
    view = TextView()
    every.feed(view)
    got = survived_run(d, scan, placed, d.at_s, view.failing_lines())
    return None if got is None else {**dd, **got.as_dict()}


def _text_look(incidents: list[Any], out_incs: list[dict[str, Any]], primary: dict[str, Any] | None,
               sigs: list[Signal], lines: list[BundleLine], hits: list[list[Any]], engine: Any,
               every: ViewLines, where: dict[int, int] | None = None) -> dict[str, Any] | None:
    """Where the primary incident abstains or gives a weak answer (or the bundle has none), the real-text fallback
    ``diagnose --logs`` takes (:func:`opsbrain.diagnosis.oneclick.text_fallback`, under its own conditions: no
    hardware evidence, a failure shown, a reading sure enough) on every line of the bundle in time order (``every``:
    every line of the read, as ``--logs`` reads every line: the healthy lines around an error weigh
    too), with that incident's signals (all the bundle's when it has none); None when it does not answer. Before
    it, a bundle of consoles and framework logs answered ``unknown`` where the same text under ``--logs`` was read."""
    from opsbrain.diagnosis.oneclick import text_fallback
    from opsbrain.diagnosis.realtext import SECOND_OPINION_BELOW, TextView
    from opsbrain.verdict import UNKNOWN, Diagnosis

    inc = next((i for i, row in zip(incidents, out_incs, strict=True)
                if primary is not None and row["id"] == primary["id"]), None)
    own = list(inc.signals) if inc is not None else sigs
    now = max((s.t for s in own), default=max((ln.t for ln in lines), default=0.0))
    dd = (primary or {}).get("diagnosis")
    if dd and dd.get("decided_by") == "text":
        return None  # its own lines were read already (:func:`_text_per_incident`)
    d = Diagnosis.from_dict(dd, now) if dd else Diagnosis(UNKNOWN, None, 0.0, [nothing_found(len(lines))], now)
    if not d.abstained and d.confidence >= SECOND_OPINION_BELOW:
        return None  # (text_fallback's own first test, before the bundle's lines are put in a view)
    view = TextView()
    every.feed(view)
    documented = frozenset(m.class_id for h in hits for m in h if m.class_id)
    got, cited = text_fallback(engine, d, own, view, now, documented)
    if not cited or _went_on(got, every, view, own, where or {}, lines):
        return None
    out = got.as_dict()
    at = {(r["file"], r["line"]) for r in cited}
    nodes = set(inc.nodes) if inc is not None else every.origins_of(at)
    if out.get("component") is None and len(nodes) == 1 and None not in nodes:
        out["component"] = next(iter(nodes))  # the one host whose lines the incident (or the cited lines) are
    out["decided_by"] = "text"
    base = primary or {"id": None, "evidence_lines": [], "errors": 0, "opened_at_s": now}
    return {**base, "diagnosis": out, "evidence_lines": (cited + base.get("evidence_lines", []))[:10]}


def _untied(inc: Any, hosts: set[str]) -> bool:
    """Whether an incident's hardware errors are only switch-port traps whose link the bundle cannot tie to a host:
    a real switch's port, named as the switch names it (``gz-l2p2-sw05/UB0/0/36~peer``, :func:`opsbrain.ingest.
    parsers.twin._real`), in no host's folder; the twin ties its chips' ports to a node's L1 link by their names
    (``l2_downlink``), a real switch's names tie nothing.
    A job's own reports (``job:``) do not count either way."""
    hw = [s for s in inc.signals if s.severity >= 2 and not s.kind.startswith("job:")]
    return bool(hw) and all(s.kind in DOWN and node_of(link_of(s) or "") not in hosts for s in hw)


def _tied_link(inc: Any, hosts: set[str]) -> bool:
    """Whether an incident holds a fault that names a host of the bundle to act on: a link down whose link names
    one, or a hardware error of a component placed on one (a host's kernel panic, a device's event; a job's own
    reports do not count). Session 34: a host's kdump panic and the L2 chips' ports toward it (each chip's trap an
    incident of its own) were led by a chip's dirty_connector at 0.40 once the model answered a lone untied port
    down above the bar; the panic names the host to act on."""
    return any((s.kind in DOWN and node_of(link_of(s) or "") in hosts)
               or (s.severity >= 2 and not s.kind.startswith("job:") and s.kind not in DOWN
                   and node_of(s.component or "") in hosts) for s in inc.signals)


def primary_order(incidents: list[Any], out_incs: list[dict[str, Any]], hosts: set[str]) -> dict[str, int]:
    """Incident id -> its rank before the error count when the primary incident is chosen (``hosts``: the node ids of
    the bundle's workers): 0 for an incident whose hardware errors are only untied switch traps (:func:`_untied`)
    where another incident holds a tied link fault or a host's own hardware error (:func:`_tied_link`), else 1. The
    trap may be the far end of that same link or another's, which the bundle cannot tell; the tied fault names the
    host to act on, so it leads (session 33, tester BJ's real link-down bundle: the L2
    switch's trap and the job's stall, two errors, took the headline as "unknown at host gz-l2p2-sw05" over the
    L1 side's link_down at gz-a3-r07-n36, one error)."""
    tied = any(_tied_link(inc, hosts) for inc in incidents)
    return {row["id"]: 0 if tied and _untied(inc, hosts) else 1 for inc, row in zip(incidents, out_incs, strict=True)}


def _level(row: dict[str, Any]) -> tuple[int, str]:
    """An incident's class's MindCluster handling level in the knowledge base and its rank, 0/1/2 for ``info`` /
    ``warning`` / ``critical`` (:mod:`opsbrain.severity`'s words: needs no handling / a look or a degraded run / a
    re-run or a chip out; an abstention or a class without a level is ``warning``: a person has to triage)."""
    from opsbrain.kb.compiled import compiled_kb
    from opsbrain.severity import BY_LEVEL, SEVERITIES

    level = str(getattr(compiled_kb().classes.get(_class_of(row)), "handling", "") or "")
    return SEVERITIES.index(BY_LEVEL.get(level, "warning")), level or "no level"


def lead(out_incs: list[dict[str, Any]], old: set[str], rank: dict[str, int]) -> dict[str, Any] | None:
    """The incident the verdict reports first, before the cause-first and second looks: not an attempt's before a
    restart that failed again (``old``), then :func:`primary_order`'s rank, then the most error lines, then (session
    46) the most severe class by its handling level (:func:`_level`), then the earliest. Equal error counts went to
    the earliest incident alone, so a twin bundle of an aging optic led with a background flap two hours earlier (two
    error lines each; the flap's class, dirty_connector, needs no handling: "no action for a single blip"). The
    level only breaks ties: the incident a job's failure joined has more error lines and still leads, and between
    faults of one severity word the earliest leads, as ascend-fd's knowledge graph orders its faults (first
    occurrence first: kg_diag_job.py ``_root_cause_sort_func``). The chosen row is a copy that says which earlier
    incident of as many error lines it was put before; every incident stays listed."""
    if not out_incs:
        return None

    def ahead(i: dict[str, Any]) -> tuple[bool, int, int]:
        return i["id"] not in old, rank[i["id"]], i["errors"]

    chosen = max(out_incs, key=lambda i: (*ahead(i), _level(i)[0], -i["opened_at_s"]))
    first = max(out_incs, key=lambda i: (*ahead(i), -i["opened_at_s"]))
    if first is chosen or not chosen.get("diagnosis"):
        return chosen
    (low, was), (_high, now) = _level(first), _level(chosen)
    needs = "needs no handling" if low == 0 else "is less severe"
    why = (f"incident {first['id']} ({_class_of(first)}) opened earlier with as many error lines ({first['errors']}), "
           f"but its class {needs} ({was}; this incident's: {now}): this one leads, {first['id']} stays listed")
    return {**chosen, "diagnosis": {**chosen["diagnosis"], "evidence": [*chosen["diagnosis"].get("evidence", []), why]}}
