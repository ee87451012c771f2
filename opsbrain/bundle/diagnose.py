"""``opsbrain diagnose --bundle``: a bundle read by :mod:`opsbrain.bundle.reader` (files -> the ingestion layer's
lines, signals and rank records), replayed in time order through the same detector the live controller uses (its
collect/re-diagnose timers run on the bundle's clock), every incident diagnosed by the same engine (metrics from
``npu_info_after.txt``), every line matched against the knowledge base and imported vendor knowledge, and the
processes of collective jobs put through the multi-rank root cluster (:mod:`opsbrain.diagnosis.multirank`).

This module wires reading, detection and diagnosis together, as the controller does live; the reader itself keeps
no detection or diagnosis of its own, and detection and diagnosis do not import each other.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from opsbrain.bundle import layout as L
from opsbrain.bundle.hosts import UNNAMED, diagnosis_in_user_terms, natural_key, root_in_user_terms, user_names
from opsbrain.bundle.reader import BundleLine, paused_gc, real_nodes, scan_bundle, signals_of
from opsbrain.bundle.secondlook import (  # noqa: F401 (_vendor_verdict: tests import it from here)
    TEXT_WINDOW_S,
    _abstained,
    _class_of,
    _incident_processes,
    _one_npu,
    _text_look,
    _text_per_incident,
    _vendor_at_roots,
    _vendor_verdict,
    primary_order,
)
from opsbrain.diagnosis.multirank import apply_root_cluster, chip_named, multirank_verdict
from opsbrain.ingest import Signal
from opsbrain.ingest.derive import link_history_dropped
from opsbrain.ingest.parsers import narrow_to_gate
from opsbrain.ingest.where import node_of
from opsbrain.verdict import cited_line, nothing_found, verdict_first


class _Clock:
    """The bundle's clock for the detector's timers (collect, re-diagnose, re-check)."""

    def __init__(self) -> None:
        self.now = 0.0
        self._q: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = 0

    def schedule(self, delay: float, fn: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self._q, (self.now + delay, self._seq, fn))

    def run_before(self, t: float) -> None:
        """Fire the timers due strictly before ``t`` (lines at a timer's own time arrive first, as in the sim)."""
        while self._q and self._q[0][0] < t:
            when, _s, fn = heapq.heappop(self._q)
            self.now = when
            fn()

    def drain(self) -> None:
        while self._q:
            when, _s, fn = heapq.heappop(self._q)
            self.now = max(self.now, when)
            fn()


def detect(signals: list[Signal], engine: Any, placement: dict[str, list[str]],
           metric: Callable[[str, str], float | None] | None) -> list[Any]:
    """Replay time-ordered signals through the live controller's detector; diagnose as the controller does."""
    from opsbrain.detection import Detector, LinkHistory
    from opsbrain.diagnosis.knowledge import another_fault
    from opsbrain.kb.compiled import compiled_kb

    clock = _Clock()
    det: Any = None

    def diagnose(inc: Any) -> None:
        now = clock.now
        d = engine.diagnose(inc, now, LinkHistory(det, now), metric)
        d.at_s = now
        inc.diagnoses.append(d)

    params: Any = compiled_kb().detector_params  # DetectorParams' defaults, without importing pydantic
    det = Detector(params, lambda: clock.now, clock.schedule, diagnose, placement, another_fault)
    for s in signals:
        clock.run_before(s.t)
        clock.now = max(clock.now, s.t)
        det.feed(s)
    clock.drain()
    return list(det.incidents)


def detect_apart(signals: list[Signal], file_of: Callable[[Signal], str], apart: set[str], engine: Any,
                 placement: dict[str, list[str]], metric: Callable[[str, str], float | None] | None) -> list[Any]:
    """:func:`detect` where the lines of each file in ``apart`` (a file without a stamp that its own worker's
    process logs do not place: :meth:`opsbrain.bundle.timed.TimedFiles.place_undated`) are replayed on their own:
    the time they were given is no time they were written, so they make their own incidents and join no other
    file's. The incidents of all replays in opening order, numbered again."""
    if not apart:
        return detect(signals, engine, placement, metric)
    groups: dict[str, list[Signal]] = {}
    for s in signals:
        f = file_of(s)
        groups.setdefault(f if f in apart else "", []).append(s)
    found = [(inc, k) for k, group in enumerate(groups.values()) for inc in detect(group, engine, placement, metric)]
    found.sort(key=lambda x: (x[0].opened_at, x[1]))
    for n, (inc, _k) in enumerate(found, 1):
        inc.id = f"i{n:04d}"
    return [inc for inc, _k in found]


_QUIET = ("level:", ":recover", "sw:up", "port:up", "hccn:up", "hccn:tls_")


def _evidence_lines(inc: Any, where: dict[int, int], lines: list[BundleLine], n: int = 8) -> list[dict[str, Any]]:
    """The lines behind an incident's signals: one per signal kind first (errors first), then by time."""
    picked: list[int] = []
    kinds: set[str] = set()
    ranked = sorted(inc.signals, key=lambda s: (-s.severity, s.t))
    for s in ranked:
        if any(q in s.kind for q in _QUIET) or s.kind in kinds:
            continue
        k = where.get(id(s))
        if k is not None and k not in picked:
            kinds.add(s.kind)
            picked.append(k)
    out = []
    for k in sorted(picked[:n], key=lambda k: lines[k].t):
        out.append(evidence_row(lines[k]))
    return out


def evidence_row(ln: BundleLine) -> dict[str, Any]:
    """A line as an incident's evidence; one that stands for a run of copies (folded at reading) says how many."""
    row: dict[str, Any] = {"file": ln.file, "line": ln.line, "t": round(ln.t, 6), "text": ln.text[:300]}
    if ln.repeats > 1:
        row["repeats"] = ln.repeats
    return row



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


def diagnose_bundle(path: str | Path, engine: Any, matcher: Any = None, params: L.BundleParams | None = None
                    ) -> dict[str, Any]:
    """Read, detect, diagnose, match: the report of ``opsbrain diagnose --bundle`` (see the module docstring)."""
    with paused_gc():  # a few objects per line of the bundle and no cycles to speak of (see paused_gc)
        return _diagnose_bundle(path, engine, matcher, params)


def _diagnose_bundle(path: str | Path, engine: Any, matcher: Any, params: L.BundleParams | None) -> dict[str, Any]:
    import time

    t0 = time.perf_counter()
    keep = _keep(matcher)
    r = scan_bundle(path, params, keep)  # with the block scan: only the lines a parser or the matcher may use
    t_read = time.perf_counter() - t0
    lines = r.lines
    texts = [ln.text for ln in lines]
    may = r.may if keep is not None else _candidates(texts, matcher)
    # the parsers read only the kept lines where their gate may occur (the matcher's anchors keep many others)
    sigs, where = signals_of(lines, r.placement, narrow_to_gate(texts, may), real_nodes(r.report["workers"]),
                             r.chips)
    from opsbrain.diagnosis.vendorlevel import imported_levels, levelled

    levels = imported_levels(matcher)
    if levels:  # an imported fault-level file rates the device events the knowledge base does not document
        from opsbrain.kb.compiled import compiled_kb

        rated = levelled(sigs, levels, compiled_kb().device_levels)
        where = {id(n): where[id(o)] for o, n in zip(sigs, rated, strict=True)}
        sigs = rated
    metric = (lambda name, comp: r.metrics.get((name, comp))) if r.metrics else None
    t1 = time.perf_counter()
    apart = {p["path"] for p in r.report["placed_files"] if p.get("apart")}
    incidents = detect_apart(sigs, lambda s: lines[where[id(s)]].file, apart, engine, r.placement, metric)
    t_detect = time.perf_counter() - t1
    hits, t_match = _knowledge(texts, matcher, may)
    origin = datetime.fromisoformat(r.report["time_origin"])
    names = {w["node"]: w.get("name", w["dir"]) for w in r.report["workers"]}
    out_incs = []
    for inc in incidents:
        d = inc.diagnosis
        ev = _evidence_lines(inc, where, lines)
        dd = d.as_dict() if d is not None else None
        if dd is not None:
            dd["evidence"] = list(dd["evidence"]) + [cited_line(e) for e in ev[:5]]
        mine = sorted({where[id(s)] for s in inc.signals if id(s) in where})
        out_incs.append({
            "id": inc.id, "opened_at": (origin + timedelta(seconds=inc.opened_at)).isoformat(),
            "opened_at_s": round(inc.opened_at, 6), "last_at_s": round(inc.last_at, 6),
            # the hosts by the user's names; the reader's own ids (pod0/node<k> of a real host) only as internal_
            "nodes": sorted({names.get(n, n) for n in inc.nodes} - {UNNAMED}, key=natural_key),
            "internal_nodes": {names.get(n, n): n for n in sorted(inc.nodes)}, "l2": sorted(inc.l2),
            "signals": len(inc.signals), "errors": sum(1 for s in inc.signals if s.severity >= 2),
            "kinds": dict(Counter(s.kind for s in inc.signals).most_common(12)),
            "diagnosis": dd, "evidence_lines": ev,
            "knowledge": verdict_first(_aggregate(((k, hits[k]) for k in mine), lines, top=5),
                                       dd.get("fault_class") if dd else None),
        })
    from opsbrain.bundle import jobs as J

    old: set[str] = set()
    if r.ranks.jobs or r.ranks.attempts:  # which job's (attempt's) processes each incident holds
        J.tag_incidents(incidents, out_incs, where, lines, r.ranks)
        old = J.stale(out_incs, r.ranks)  # an attempt's before a restart that failed again: not the primary
    every, r.view = r.view, None  # every line of the read, for both text looks (read once: session 37)
    assert every is not None  # (scan_bundle's read always has it)
    _text_per_incident(incidents, out_incs, where, lines, hits, engine, every, sigs)
    rank = primary_order(incidents, out_incs, set(names))  # an untied switch trap below a tied link fault
    primary = _cause_first(max(out_incs, key=lambda i: (i["id"] not in old, rank[i["id"]], i["errors"],
                                                        -i["opened_at_s"]), default=None), out_incs)
    documented = _clearest_documented(incidents, out_incs, engine) if primary and _abstained(primary) else None
    if documented is not None:
        primary = documented
    voted = _vendor_verdict(incidents, out_incs, primary, hits, lines, matcher, engine)
    if voted is not None:
        primary = voted
    read = _text_look(incidents, out_incs, primary, sigs, lines, hits, engine, every)
    del every  # (let go: its lines are no longer looked at)
    if read is not None:
        primary = read
    if primary is None or not primary["diagnosis"]:
        primary = _no_incident(sigs, where, lines, hits, engine) or primary
    diagnosis: dict[str, Any] = dict(primary["diagnosis"]) if primary and primary["diagnosis"] else {
        "fault_class": "unknown", "component": None, "confidence": 0.0, "runbook": None, "alternatives": [],
        "evidence": [nothing_found(r.report["lines"]["read"], "lines of the bundle")],
        "at_s": 0.0}
    diagnosis["evidence"] = list(diagnosis.get("evidence", []))
    if levels:
        from opsbrain.diagnosis.vendorlevel import level_notes
        from opsbrain.kb.compiled import compiled_kb

        diagnosis["evidence"] += level_notes(sigs, levels, compiled_kb().kind_roles,
                                             diagnosis.get("fault_class", "unknown") == "unknown")
    inner = list((primary or {}).get("internal_nodes", {}).values())
    only = inner if len(inner) == 1 else [None]
    # no component named: the one host whose lines the incident holds (a console says what failed, not where)
    diagnosis["root"] = root_in_user_terms(diagnosis.get("component") or only[0], r.report["workers"], r.chips)
    if diagnosis["root"].get("device") is None and diagnosis.get("fault_class") != "unknown" and (
            npu := _one_npu(incidents, primary)) is not None:
        diagnosis["root"] = {**root_in_user_terms(npu, r.report["workers"], r.chips),
                             "component": diagnosis.get("component")}
        diagnosis["evidence"].append(f"device {diagnosis['root']['device']}: the one device the incident's "
                                     "signals name (the class's component is its node)")
    diagnosis["evidence_lines"] = primary["evidence_lines"] if primary else []
    placed = [s.at(file=lines[where[id(s)]].file, line_no=lines[where[id(s)]].line) for s in sigs]
    # a port's link changes from before the job are its history: not the root's own signals (as under --logs)
    placed, _old = link_history_dropped(placed, r.ranks.job_start)
    now = max((s.t for s in sigs), default=0.0)
    placed += _vendor_at_roots(placed, hits, lines, matcher, engine, now)
    table, chosen = r.ranks, -1
    if r.ranks.jobs:  # several jobs' processes: the verdict's root cluster is its own job's (bundle/jobs.py)
        chosen = J.verdict_job(r.ranks, primary, out_incs, origin)
        table = r.ranks.jobs[chosen]
    job, nth = table, table.attempt
    if job.attempts:  # the job ran more than once (a restart): the attempt the primary incident is of
        nth = J.verdict_attempt(job, primary)
        table = job.attempts[nth]
    mr = multirank_verdict(table, placed, engine, now, names)
    if mr is not None:
        diagnosis["root_cluster"] = mr
        apply_root_cluster(diagnosis, mr, engine, within=_incident_processes(incidents, primary, where, lines, table))
    if r.ranks.jobs:
        J.other_jobs(diagnosis, r.ranks, chosen, placed, engine, now, names)
    attempts = J.say_attempt(diagnosis, job, nth)
    if (note := chip_named(diagnosis["root"], table)) is not None:
        diagnosis["evidence"].append(note)  # the root cluster's name and the verdict's: one device
    from opsbrain.diagnosis.oneclick import with_component_self

    # a monitoring component's own failure is not the job's: an abstaining verdict says so (ingest.benign)
    with_component_self(diagnosis, sigs, lambda s: names.get(node_of(s.component or "") or "", s.host))
    real = user_names(r.report["workers"])  # real hosts by their names, not the reader's numbering (issue 9)
    for d_ in [diagnosis, *(i["diagnosis"] for i in out_incs)]:
        diagnosis_in_user_terms(d_, real)
    report = dict(r.report)
    # the reader's own id of each worker (pod0/node<k> for a real host): no name of the user's, kept as internal_
    for key in ("workers", "processes"):
        report[key] = [{("internal_node" if k == "node" else k): v for k, v in w.items()} for w in r.report[key]]
    _worker_facts(report["workers"], r.ranks)
    if r.ranks.jobs:
        report["jobs"] = J.jobs_report(r.ranks, out_incs, chosen, nth)
    if attempts:
        report["attempts"] = attempts
    report.update({
        "signals": len(sigs),
        "incidents": out_incs,
        "primary": primary["id"] if primary else None,
        "diagnosis": diagnosis,
        "processes_of_collectives": len(r.ranks.processes),
        "knowledge": verdict_first(_aggregate(enumerate(hits), lines, top=KNOWLEDGE_TOP),
                                   diagnosis.get("fault_class") if isinstance(diagnosis, dict) else None),
        "knowledge_lines": sum(1 for h in hits if h),
        "knowledge_lines_by_source": dict(sorted(Counter(src for h in hits for src in {m.source for m in h}).items())),
        "timing_s": {"read": round(t_read, 4), "detect_diagnose": round(t_detect, 4), "match": round(t_match, 4)},
    })
    return report


def _worker_facts(workers: list[dict[str, Any]], table: Any) -> None:
    """Each worker's ``devices`` (those its collective processes ran on) and its ``ips`` with the servers those
    processes print: what the text answer names a host by besides its folder (not the reader's id)."""
    every = table.every
    for w in workers:
        mine = [p for p in every if p.worker in (w.get("name"), w["dir"])]
        w["devices"] = sorted({p.device for p in mine if p.device is not None})
        w["ips"] = list(w.get("ips", [])) + sorted({p.server for p in mine if p.server} - set(w.get("ips", [])))


def _no_incident(sigs: list[Signal], where: dict[int, int], lines: list[BundleLine], hits: list[list[Any]],
                 engine: Any) -> dict[str, Any] | None:
    """Where the detector opened no incident but the bundle holds signals at warning level or above (a device
    plugin's switch alarm alone): the engine's verdict on all of them, as ``diagnose --logs`` gives it, with what
    the knowledge base recognises when it abstains; None where there is no such signal (then "no fault found" is
    true). Before, such a bundle said "no known fault signal" above the knowledge base's matches of that signal."""
    from opsbrain.diagnosis.oneclick import kb_label

    warn = [s for s in sigs if s.severity >= 1 and not s.kind.startswith(_QUIET)]
    if not warn or engine is None:
        return None
    now = max(s.t for s in sigs)
    d = engine.diagnose_signals(sigs, now)
    dd = d.as_dict()
    kn = _aggregate(enumerate(hits), lines, top=3)
    if d.abstained and kn:
        dd["evidence"] = list(dd["evidence"]) + ["the knowledge base recognises: " + "; ".join(
            f"{kb_label(k)}: {k['cause']}" for k in kn)]
    nodes = {node_of(s.component or "") for s in warn}
    if dd.get("component") is None and len(nodes) == 1 and None not in nodes:
        dd["component"] = next(iter(nodes))  # the one host whose lines hold the signals
    ev = [evidence_row(lines[k]) for s in sorted(warn, key=lambda s: (-s.severity, s.t))[:8]
          if (k := where.get(id(s))) is not None]
    return {"id": None, "diagnosis": dd, "evidence_lines": ev, "errors": 0, "opened_at_s": now}


def _cause_first(primary: dict[str, Any] | None, out_incs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The primary incident: the one with the most errors, unless its ranks were waiting
    (:data:`~opsbrain.diagnosis.causefirst.WAITING`) and an incident with a named fault of another class opened
    before it (within the detector's horizon, one hour): then that one, the earliest such (the fault the others
    waited on; its incident stays listed with its own). ``diagnose --logs`` applies the same rule to its hosts
    (:mod:`opsbrain.diagnosis.causefirst`)."""
    from opsbrain.diagnosis.causefirst import WAITING, earlier_cause, waited_on

    if primary is None or _class_of(primary) not in WAITING:
        return primary
    cause = earlier_cause(primary["opened_at_s"], ((i["opened_at_s"], _class_of(i), i) for i in out_incs
                                                   if i is not primary))
    if cause is None or not cause.get("diagnosis"):
        return primary
    why = waited_on(f"incident {primary['id']}", _class_of(primary), "this incident",
                    primary["opened_at_s"] - cause["opened_at_s"])
    return {**cause, "diagnosis": {**cause["diagnosis"], "evidence": [*cause["diagnosis"].get("evidence", []), why]}}


def _clearest_documented(incidents: list[Any], out_incs: list[dict[str, Any]], engine: Any) -> dict[str, Any] | None:
    """Where the incident with the most errors abstains: the incident whose own signals the knowledge base's
    documented signatures name most clearly (the engine's vote, with its lead and minimum; largest score first) and
    whose diagnosis is that class, so that the bundle's verdict rests on documented codes, not on the model alone
    (a bundle of unrelated sources, like ascend-fd's per-source test inputs, holds many incidents)."""
    from opsbrain.diagnosis.multirank import clear_vote

    classes = list(getattr(getattr(engine, "model", None), "classes", None) or [])
    best: tuple[float, dict[str, Any]] | None = None
    for inc, row in zip(incidents, out_incs, strict=True):
        errs = [s for s in inc.signals if s.severity >= 2]
        v = clear_vote(errs, classes) if errs and classes else None
        if v is None or (row.get("diagnosis") or {}).get("fault_class") != v[0]:
            continue
        score = v[2].get(v[0], 0.0)
        if best is None or score > best[0]:
            best = (score, row)
    if best is None:
        return None
    row = best[1]
    d = dict(row["diagnosis"])
    d["evidence"] = list(d.get("evidence", [])) + [
        f"the incident with the most error lines abstained; of the bundle's {len(out_incs)} incidents this one's "
        f"documented signatures name its class most clearly (vote {best[0]:.2f})"]
    return {**row, "diagnosis": d}


def compare(report: dict[str, Any], expected: Iterable[tuple[Any, ...]], slack_s: float = 2.0
            ) -> list[dict[str, Any]]:
    """For each expected incident (opened at s, class, component[, diagnosed at s]) of the simulation, the bundle
    incident opened within ``slack_s`` of it (the most signals among them) and whether class and component agree.
    Where none opened then, a bundle incident of the same class and component open at some time from the opening to
    the diagnosis (its first and last signals around it) holds it: the live controller closes an incident when its
    recovery runs and opens another when the fault shows again, while the bundle, which holds no recovery, keeps one
    incident over both; and the live controller may open an incident on a job event of the scheduler (a stall at the
    instant it starts), which no bundle holds, while the bundle opens it at the first line that shows the fault (the
    peers' notify-wait reports, ``faults.peer_timeout_report_s`` later)."""
    out = []
    incs = report.get("incidents", [])
    for at, cls, comp, *rest in expected:
        until = max(at, float(rest[0])) if rest and rest[0] is not None else at
        near = [i for i in incs if abs(i["opened_at_s"] - at) <= slack_s] or [
            i for i in incs
            if i["opened_at_s"] - slack_s <= until and at <= i.get("last_at_s", i["opened_at_s"]) + slack_s
            and ((i.get("diagnosis") or {}).get("fault_class"), (i.get("diagnosis") or {}).get("component")) == (
                cls, comp)]
        best = max(near, key=lambda i: i["signals"], default=None)
        d = (best or {}).get("diagnosis") or {}
        out.append({"at_s": at, "expected": [cls, comp], "got": [d.get("fault_class"), d.get("component")],
                    "bundle_incident": best["id"] if best else None,
                    "same": best is not None and d.get("fault_class") == cls and d.get("component") == comp})
    return out


def check_bundle(path: str | Path, engine: Any, matcher: Any = None, params: L.BundleParams | None = None
                 ) -> dict[str, Any]:
    """Round trip: diagnose a bundle the twin wrote and compare every controller incident its sidecar records
    (:func:`opsbrain.bundle.writer.sim_sidecar`; older bundles: their manifest)
    (opened at, class, component in the simulation) with the bundle's own incidents (:func:`compare`). Incidents
    a health sweep opened from metrics (not from log lines), and those the scheduler's job events alone opened and
    held (a bundle holds no job events: no program prints the twin's), are listed apart: a bundle cannot show
    them."""
    from opsbrain.bundle.writer import sim_sidecar
    from opsbrain.yamlio import json_or_none

    rep = diagnose_bundle(path, engine, matcher, params)
    side = sim_sidecar(path)
    ok, doc = json_or_none(side.read_text(encoding="utf-8")) if side.is_file() else (False, None)
    info, source = (doc, side.name) if ok and isinstance(doc, dict) else (rep.get("manifest") or {}, "manifest")
    sim = (info.get("incident") or {}).get("in_simulation") or {}
    ctl = sim.get("controller_incidents", [])
    expected = [(float(c["opened_at_s"]), (c.get("diagnosis") or {}).get("fault_class"),
                 (c.get("diagnosis") or {}).get("component"), (c.get("diagnosis") or {}).get("at_s"))
                for c in ctl if c.get("diagnosis") and not c.get("sweep") and not c.get("scheduler")]
    rows = compare(rep, expected)
    return {"bundle": str(path), "comparisons": rows, "same": all(r["same"] for r in rows), "report": rep,
            "expectation": source if "in_simulation" in (info.get("incident") or {}) else None,  # (None: nothing to
            # compare: a bundle without its sidecar; its manifest holds no expectation since session 32)
            "sweep_incidents": [c["id"] for c in ctl if c.get("sweep")],
            "scheduler_incidents": [c["id"] for c in ctl if c.get("scheduler")]}
