"""``opsbrain diagnose --bundle``: a bundle read by :mod:`opsbrain.bundle.reader` (files -> the ingestion layer's
lines, signals and rank records), replayed in time order through the same detector the live controller uses (its
collect/re-diagnose timers run on the bundle's clock), every incident diagnosed by the same engine (metrics from
``npu_info_after.txt``), every line matched against the knowledge base and imported vendor knowledge, and the
processes of collective jobs put through the multi-rank root cluster (:mod:`opsbrain.diagnosis.multirank`).

This module wires reading, detection and diagnosis together, as the controller does live; the reader itself keeps
no detection or diagnosis of its own, and detection and diagnosis do not import each other. The replay through the
detector is :mod:`opsbrain.bundle.replay`, the knowledge matching :mod:`opsbrain.bundle.kbmatch`, the twin's round
trip (:func:`~opsbrain.bundle.roundtrip.check_bundle`) :mod:`opsbrain.bundle.roundtrip` (session 43).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from opsbrain.bundle import layout as L
from opsbrain.bundle.hosts import UNNAMED, diagnosis_in_user_terms, natural_key, root_in_user_terms, user_names
from opsbrain.bundle.kbmatch import (  # noqa: F401 (_SHARED_SCANS, _candidates, _keep: tests use them from here)
    _SHARED_SCANS,
    KNOWLEDGE_TOP,
    _aggregate,
    _candidates,
    _keep,
    _knowledge,
)
from opsbrain.bundle.reader import BundleLine, paused_gc, real_nodes, scan_bundle, signals_of
from opsbrain.bundle.replay import detect_apart
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
    lead,
    primary_order,
    went_on_verdict,
)
from opsbrain.diagnosis.multirank import apply_root_cluster, chip_named, multirank_verdict
from opsbrain.diagnosis.primcap import primary_capped
from opsbrain.diagnosis.rootdevice import DEVICE_NOTE
from opsbrain.diagnosis.rootswitch import name_switch
from opsbrain.diagnosis.statecap import readout_capped, readouts_only
from opsbrain.ingest import Signal
from opsbrain.ingest.derive import link_history_dropped
from opsbrain.ingest.parsers import narrow_to_gate
from opsbrain.ingest.where import node_of
from opsbrain.verdict import cited_line, nothing_found, verdict_first

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
                             r.chips, r.optics, r.recovered)
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
    primary = _cause_first(lead(out_incs, old, rank), out_incs)  # ties of error lines: the most severe class
    documented = _clearest_documented(incidents, out_incs, engine) if primary and _abstained(primary) else None
    if documented is not None:
        primary = documented
    voted = _vendor_verdict(incidents, out_incs, primary, hits, lines, matcher, engine)
    if voted is not None:
        primary = voted
    read = _text_look(incidents, out_incs, primary, sigs, lines, hits, engine, every, where)
    failed = _fails(sigs, r.ranks.job_start, every)  # (for the readout cap below, as --logs reads it)
    if read is not None:
        primary = read
    elif primary and (not r.report["workers"] or real_nodes(r.report["workers"])) and (
            gone := went_on_verdict(primary["diagnosis"], every, sigs, where, lines)) is not None:
        primary = {**primary, "diagnosis": gone}  # a failure the program went on from (diagnosis.wenton)
    del every  # (let go: its lines are no longer looked at)
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
        diagnosis["evidence"].append(DEVICE_NOTE.format(dev=diagnosis["root"]["device"]))
    # every failing line of the verdict a switch's own: the switch (the rule --logs shares: diagnosis.rootswitch)
    name_switch(diagnosis, _verdict_signals(incidents, primary, sigs),
                lambda s: lines[where[id(s)]].file if id(s) in where else None)
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
    readout_capped(diagnosis, placed, failed)  # a state alone is a symptom (diagnosis.statecap; as under --logs)
    if not r.report["workers"] or real_nodes(r.report["workers"]):  # (not the twin's own export: primcap's docstring)
        primary_capped(diagnosis, placed, _verdict_signals(incidents, primary, sigs))  # (diagnosis.primcap; as --logs)
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


def _verdict_signals(incidents: list[Any], primary: dict[str, Any] | None, sigs: list[Signal]) -> list[Signal]:
    """The signals the verdict rests on: its primary incident's, else (no incident: :func:`_no_incident`) all."""
    inc = next((i for i in incidents if primary is not None and i.id == primary.get("id")), None)
    return list(inc.signals) if inc is not None else sigs if primary is not None else []


def _fails(sigs: list[Signal], job_start: float | None, every: Any) -> bool:
    """Whether a line of the bundle says a program failed (:meth:`opsbrain.diagnosis.realtext.TextView.fails_beyond`, on
    every line as ``--logs`` reads them), for the readout cap (:func:`opsbrain.diagnosis.statecap.readout_capped`,
    which asks it only where no signal supports the answered class); read only where it may matter (the signals left
    once the ports' link history goes are all readouts), else True (it does not)."""
    from opsbrain.diagnosis.realtext import TextView

    if not readouts_only(link_history_dropped(sigs, job_start)[0]):
        return True
    view = TextView()
    every.feed(view)
    return view.fails_beyond()


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
                                                   if i["id"] != primary["id"]))  # (primary: maybe a copy)
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


