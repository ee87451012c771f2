"""One-click diagnosis of text an operator has (``opsbrain diagnose --logs FILE|DIR|-``) or an exported incident
file. The whole input is streamed through the ingestion layer; the answer names the class, its confidence, the
root in the operator's own terms (host as written, device index), the evidence lines with file and line number,
the vendor knowledge-graph entries that matched (mapped to a class by knowledge_base/vendor_map.yaml) and the
runbook it would take. When nothing is known it abstains, with its best guess and the evidence.

When processes of a collective job logged errors, the multi-rank root cluster (:mod:`.multirank`) names the root
device(s) and the wait chain; it decides the root (and, from the root devices' own lines, the class) when the
whole-input verdict abstains, blames the collective itself, or names no host.

Where the verdict still abstains on text with no hardware evidence, or is a weak answer of a software class that no
documented match supports, the real-text fallback (:mod:`.realtext`: a classifier learned from the real-log corpus'
dev excerpts) may answer a software class at a capped confidence, citing the lines that weigh most for it
(``decided_by: text``; :func:`text_fallback`)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from opsbrain.diagnosis.causefirst import cause_on_a_host, process_root
from opsbrain.diagnosis.engine import Engine, lone_warnings
from opsbrain.diagnosis.hostplace import on_workers
from opsbrain.diagnosis.jobs import busiest_job, jobs_listed, other_jobs, say_attempt
from opsbrain.diagnosis.knowledge import load_vendor_rules, vendor_mapping
from opsbrain.diagnosis.multirank import apply_root_cluster, chip_named, multirank_verdict
from opsbrain.diagnosis.primcap import primary_capped
from opsbrain.diagnosis.realtext import TextView
from opsbrain.diagnosis.rootdevice import DEVICE_NOTE, placed_device
from opsbrain.diagnosis.rootswitch import name_switch
from opsbrain.diagnosis.statecap import readout_capped
from opsbrain.diagnosis.symptoms import with_symptoms
from opsbrain.diagnosis.vendorfiles import VendorFiles
from opsbrain.diagnosis.vendorlevel import imported_levels, level_notes, levelled
from opsbrain.diagnosis.wenton import ProgressScan, progress_scan, survived_run
from opsbrain.errors import InputError
from opsbrain.ingest import NO_HISTORY, LineReader, Signal, parse_line
from opsbrain.ingest.derive import LINK_HISTORY_S, link_history_dropped, section_placed
from opsbrain.ingest.hostnames import root_names_host, syslog_host, unnamed_root
from opsbrain.ingest.ranks import RankCollector, RankTable
from opsbrain.ingest.streams import archive_stem
from opsbrain.ingest.surface import head_source
from opsbrain.ingest.textpaths import ingest_paths, read_small
from opsbrain.ingest.where import (
    device_in,
    head_host,
    node_of,
    npu_of,
    real_component,
    user_terms,
)
from opsbrain.ingest.workers import archive_name, archive_top, host_root, twin_export
from opsbrain.kb.compiled import compiled_kb
from opsbrain.verdict import UNKNOWN, Diagnosis, nothing_found, verdict_first

MAX_EVIDENCE_LINES = 12
DEVICE_SCAN_LINES = 5_000
"""Lines whose device fields are counted for a root that no signal placed: a pasted excerpt whole, the head of a
large log (a fault at the end of a large log is placed by its own signals)."""


class _Knowledge:
    """Matches every line against the knowledge base and imported vendor entries; keeps counts and first lines."""

    def __init__(self, matcher: Any) -> None:
        self.matcher = matcher
        self.rules = load_vendor_rules() if matcher is not None else []
        self.seen: Counter[tuple[Any, ...]] = Counter()
        self.info: dict[tuple[Any, ...], dict[str, Any]] = {}
        self.vendor_signals: list[tuple[Signal, bool]] = []  # (signal of the mapped class, the entry may decide it)
        self.vendor_files = VendorFiles()  # every file's first line of each mapped entry (for the root cluster)

    def __call__(self, line: str, file: str | None, line_no: int, t: float) -> None:
        for m in self.matcher.match(line):
            key = (m.source, m.class_id, m.entry_id, m.code)
            self.seen[key] += 1
            if key in self.info:
                mapped = self.info[key]["class"]
                if m.source == "imported" and mapped:
                    self.vendor_files.add(key, Signal(t, f"vendor:{mapped}", None, None, 2, line[:300],
                                                      line_no=line_no, file=file))
                continue
            mapped, decides = m.class_id, True
            if m.source == "imported" and m.entry_id:
                entry = self.matcher.imported_entry(m.entry_id)
                mapped, decides = vendor_mapping(entry, self.rules) if entry is not None else (None, False)
            self.info[key] = {"source": m.source, "class": mapped, "entry": m.entry_id, "code": m.code,
                              "handling": m.handling, "cause": m.cause, "suggestion": m.suggestion,
                              "file": file, "line": line_no, "text": line[:300]}
            if m.source == "imported" and mapped:
                s = Signal(t, f"vendor:{mapped}", None, None, 2, line[:300], line_no=line_no, file=file)
                self.vendor_signals.append((s, decides))
                self.vendor_files.add(key, s, first=True)

    def rebase(self, delta: float) -> None:
        """The reader's time origin moved ``delta`` seconds back (:meth:`opsbrain.ingest.text.LineReader._earlier`):
        the vendor signals made so far keep their place in time."""
        moved: dict[int, Signal] = {}

        def later(s: Signal) -> Signal:
            return moved.setdefault(id(s), s.at(t=s.t + delta))

        self.vendor_signals = [(later(s), d) for s, d in self.vendor_signals]
        self.vendor_files.moved(later)

    def report(self, top: int = 10) -> list[dict[str, Any]]:
        return [{**self.info[k], "lines": n} for k, n in self.seen.most_common(top)]

    def vendor_report(self, top: int = 50) -> list[dict[str, Any]]:
        """The imported vendor entries that matched (all of them up to ``top``, most lines first)."""
        return [{**self.info[k], "lines": n} for k, n in self.seen.most_common() if k[0] == "imported"][:top]


def kb_label(k: dict[str, Any]) -> str:
    """A knowledge match's name: its code, else its entry, else its class's (a text signature has neither)."""
    return k["code"] or k["entry"] or f"{k['class'] or 'unclassified'} signature"


def _evidence_lines(signals: list[Signal], d: Diagnosis, root: Callable[[Signal], bool] | None = None
                    ) -> list[dict[str, Any]]:
    """The lines behind the verdict: those of the root place (``root``: whether a signal is of it, where given) and
    component first, then the rest, errors before warnings."""
    seen: set[tuple[Any, ...]] = set()
    rows = []
    ranked = sorted(signals, key=lambda s: (root is not None and not root(s), s.component != d.component and not (
        d.component and s.component and s.component.startswith(d.component)), -s.severity, s.t))
    for s in ranked:
        key = (s.file, s.line_no)
        if key in seen or s.kind.startswith(("level:",)):
            continue
        seen.add(key)
        rows.append({"file": s.file, "line": s.line_no, "kind": s.kind, "text": s.text[:300]})
        if len(rows) >= MAX_EVIDENCE_LINES:
            break
    return rows


def vendor_votes(engine: Engine, signals: list[Signal], vendor: list[tuple[Signal, bool]], now: float) -> list[Signal]:
    """The mapped vendor entries that take part in the decision. The input's own signals are read first: when they
    give an answer, only entries mapped to that class join (they raise its confidence; an entry that names another
    class is shown, not counted, so a vendor match never overturns what the log itself says). When they abstain,
    only entries that may decide join (an entry that may only raise does not turn an abstention into an answer).
    The input's own verdict is read without the software triage: a triaged answer rests on the absence of hardware
    evidence, and an entry mapped to a hardware class is such evidence (it joins; the verdict on all of them
    decides)."""
    if not vendor:
        return []
    own = engine.diagnose_signals(signals, now, triage=False) if signals else None
    if own is not None and not own.abstained:
        return [s for s, _ in vendor if s.kind == f"vendor:{own.fault_class}"]
    return [s for s, decides in vendor if decides]


def text_fallback(engine: Engine, d: Diagnosis, sigs: list[Signal], view: TextView | None, now: float,
                  documented: frozenset[str] = frozenset(), kinds: list[str] | None = None
                  ) -> tuple[Diagnosis, list[dict[str, Any]]]:
    """The real-text fallback's verdict, with the lines it cites, where the input holds no hardware evidence and
    ``d`` abstains, or ``d`` is a weak answer of a class the fallback answers (below
    :data:`~opsbrain.diagnosis.realtext.SECOND_OPINION_BELOW`) that the words read, surely enough
    (:data:`~opsbrain.diagnosis.realtext.SECOND_OPINION_AT`), as another; else ``d`` unchanged and no line.
    ``documented``: the classes the input's knowledge-base and vendor matches name. A weak answer is never overruled
    where a vendor entry took part, where a match names its class, where one names a class the fallback does not
    answer (a documented code of hardware is evidence the words cannot outweigh), nor for a class no match names
    when matches name others. On a lone documented runtime timeout
    (:func:`opsbrain.diagnosis.triage.undecided_timeouts`) the engine abstains (the documents leave its cause open)
    and the words may still answer, capped as always: on the dev split the fallback read 3 of 3 such excerpts right
    (in-sample), and nothing measured says it is worse there than its out-of-part precision elsewhere (session 32)."""
    from opsbrain.diagnosis.realtext import ANSWERABLE, SECOND_OPINION_AT, SECOND_OPINION_BELOW

    weak = (not d.abstained and d.fault_class in ANSWERABLE and d.confidence < SECOND_OPINION_BELOW
            and d.fault_class not in documented and documented <= frozenset(ANSWERABLE)
            and not any(s.kind.startswith("vendor:") for s in sigs))
    if view is None or not (d.abstained or weak) or not getattr(engine.p, "text_fallback", True):
        return d, []
    from opsbrain.diagnosis.features import incident_features
    from opsbrain.diagnosis.realtext import answer, hardware_free, shows_failure

    feats = incident_features(sigs, now, NO_HISTORY, None) if sigs else {}
    if not shows_failure(sigs, view) or (sigs and not hardware_free(feats)):
        return d, []
    if (a := answer(view, kinds=(s.kind for s in sigs) if kinds is None else kinds)) is None:
        return d, []
    if weak:
        if a.cls == d.fault_class or a.probability < SECOND_OPINION_AT or (documented and a.cls not in documented):
            return d, []
        ev = d.evidence + [f"the engine's {d.fault_class} at {d.confidence:.2f} is weak; the text reads otherwise: "
                           f"{a.why}"]
        alts = [(d.fault_class, d.confidence)] + [(c, p) for c, p in a.alternatives if c != d.fault_class][:2]
    else:
        ev = [e for e in d.evidence if not e.endswith("escalate")] + [f"the engine abstained; text fallback: {a.why}"]
        alts = a.alternatives
    out = Diagnosis(a.cls, d.component, a.confidence, ev, now, engine.runbook_of(a.cls), alts)
    return out, [{"file": f, "line": n, "kind": "text", "text": t[:300]} for f, n, t in a.lines]


def component_self(signals: list[Signal], host_of: Callable[[Signal], str | None]) -> list[dict[str, Any]]:
    """The monitoring components' own failures among the signals (:data:`opsbrain.ingest.benign.COMPONENT_SELF`),
    one row per kind: the component, what failed, what to check, the hosts (``host_of``: a signal's host in the
    input's terms) and the number of lines."""
    from opsbrain.ingest.benign import COMPONENT_SELF

    rows: dict[str, dict[str, Any]] = {}
    hosts: dict[str, set[str]] = {}
    for s in signals:
        if (what := COMPONENT_SELF.get(s.kind)) is None:
            continue
        row = rows.setdefault(s.kind, {"kind": s.kind, "component": what[0], "failed": what[1], "check": what[2],
                                       "lines": 0})
        row["lines"] += 1
        if h := host_of(s):
            hosts.setdefault(s.kind, set()).add(h)
    for kind, row in rows.items():
        row["hosts"] = sorted(hosts.get(kind, ()), key=lambda h: [int(x) if x.isdigit() else x
                                                                   for x in re.split(r"(\d+)", h)])
    return list(rows.values())


def with_component_self(d: dict[str, Any], signals: list[Signal], host_of: Callable[[Signal], str | None]) -> None:
    """An abstaining verdict (``d``, a diagnosis dict) says what the monitoring components' own failures among the
    signals are: not the job's fault. Where they are its only findings (no other signal at warning level or above)
    they lead its evidence in place of the escalation; else they are added to it. A verdict with a class is left as
    it is (a fault of the job, or of a device, was found)."""
    from opsbrain.ingest.benign import COMPONENT_SELF

    if d.get("fault_class") != UNKNOWN or not (rows := component_self(signals, host_of)):
        return
    d["component_self"] = rows
    what = "; ".join(f"{r['component']} on {', '.join(r['hosts']) or 'the input'} {r['failed']} "
                     f"({r['lines']} line{'s' * (r['lines'] != 1)}): {r['check']}" for r in rows)
    only = not any(s.severity >= 1 and s.kind not in COMPONENT_SELF and not s.kind.startswith(("level:", "vendor:"))
                   for s in signals)
    ev = [e for e in d.get("evidence", []) if not (only and "escalate" in e)]
    if only:
        d["evidence"] = [f"not the job's fault: the only findings are a monitoring component's own failure: {what}",
                         *ev]
        d["root"] = user_terms(None)  # no root of the job's: the hosts are the component's, in its row
    else:
        d["evidence"] = [*ev, f"also a monitoring component's own failure, not the job's fault: {what}"]


def diagnose_signals(engine: Engine, signals: list[Signal], stats: dict[str, Any], knowledge: _Knowledge | None,
                     ranks: RankTable | None = None, view: TextView | None = None,
                     twin: bool = False, progress: ProgressScan | None = None) -> dict[str, Any]:
    """The verdict on signals read from real text. ``twin``: they were read from a bundle the twin wrote
    (:func:`opsbrain.ingest.workers.twin_export`), whose verdict is not capped for want of a documented signature
    (:mod:`opsbrain.diagnosis.primcap`), as ``diagnose --bundle`` does not cap it."""
    now = max((s.t for s in signals), default=0.0)
    levels = imported_levels(knowledge.matcher if knowledge is not None else None)
    if levels:
        signals = levelled(signals, levels, compiled_kb().device_levels)
    vendor = vendor_votes(engine, signals, knowledge.vendor_signals, now) if knowledge else []
    sigs = signals + vendor
    # a warning on a part without an error, beside other parts' errors, is context: the live detector and the
    # bundle's incidents leave it out of those errors' verdict, and so does the whole input's (session 34: a lone
    # HBM correctable-error warning of another host made a link-down collection's best guess hbm_ce_storm there)
    lone = {id(s) for s in lone_warnings(sigs)}
    if sigs:
        d = engine.diagnose_signals([s for s in sigs if id(s) not in lone], now)
        if lone:
            n = len(lone)
            d.evidence.append(f"{n} warning{'s' * (n != 1)} on a part without an error left out of the verdict as "
                              "context (another part's errors are the incident)")
    else:
        d = Diagnosis(UNKNOWN, None, 0.0, [nothing_found(stats.get("lines", 0))], now)
    # a wait's verdict (or none) over several hosts: the fault an earlier host's own lines name, as --bundle's
    # primary incident (diagnosis.causefirst; session 42)
    apart = cause_on_a_host(engine, [s for s in sigs if id(s) not in lone], d) if sigs else None
    if apart is not None:
        d = apart[0]
    documented = frozenset(i["class"] for i in knowledge.info.values() if i["class"]) if knowledge else frozenset()
    d, text_lines = text_fallback(engine, d, sigs, view, now, documented)
    if progress is not None and not twin and (survived := survived_run(
            d, progress, sigs, now, view.failing_lines() if view is not None else ())) is not None:
        d, text_lines = survived, []  # a failure the program went on from (diagnosis.wenton)
    kn = knowledge.report() if knowledge else []
    if levels:
        d.evidence.extend(level_notes(sigs, levels, compiled_kb().kind_roles, d.abstained))
    if d.abstained and kn:
        d.evidence.append("the knowledge base recognises: " + "; ".join(
            f"{kb_label(k)}: {k['cause']}" for k in kn[:3]))
    out = d.as_dict()
    out["component"] = real_component(d.component)  # a real host is on no part only the twin has (its DPU)
    out["root"] = user_terms(out["component"])
    if out["fault_class"] == UNKNOWN and d.component is None and (where := _one_place(sigs)) is not None:
        out["root"] = user_terms(where)  # no class, but the place: what the operator looks at first
        d.evidence.append(f"no class, but every error names {where}")
        out["evidence"] = list(d.evidence)
    if apart is not None and apart[1].host is None:
        out["root"] = process_root(out["root"], apart[1].pid, ranks)  # a paste naming no host: the process
    elif out["root"].get("host") is None and (host := apart[1].host if apart else _one_host(sigs)) is not None:
        out["root"] = {**out["root"], "host": host}  # a class, no component: the one host whose lines failed
    own = [s for s in sigs if id(s) not in lone and (apart is None or apart[1].holds(s))]
    if out["fault_class"] != UNKNOWN and out["root"].get("device") is None and (npu := placed_device(own)):
        out["root"] = {**out["root"], **{k: v for k, v in user_terms(npu).items() if k != "component"}}
        d.evidence.append(DEVICE_NOTE.format(dev=out["root"]["device"]))  # (as --bundle: rootdevice)
        out["evidence"] = list(d.evidence)
    name_switch(out, own, lambda s: s.file)  # every failing line a switch's own: the switch (as --bundle: rootswitch)
    cited = {(r["file"], r["line"]) for r in text_lines}  # a line the text fallback cites is listed once
    ev = [r for r in _evidence_lines(sigs, d, apart[1].holds if apart else None) if (r["file"], r["line"]) not in cited]
    out["evidence_lines"] = (text_lines + ev)[:MAX_EVIDENCE_LINES]
    out["decided_by"] = "text" if text_lines else "signals"
    # the root cluster: the admitted vendor entries on every file's own line (:class:`VendorFiles`)
    at_roots = signals + knowledge.vendor_files.admitted(vendor) if knowledge else sigs
    mr = multirank_verdict(ranks, at_roots, engine, now) if ranks is not None else None
    if mr is not None:
        out["root_cluster"] = mr
        apply_root_cluster(out, mr, engine, MAX_EVIDENCE_LINES)
    readout_capped(out, sigs, view is not None and view.fails_beyond())  # a state alone is a symptom (session 44)
    if not twin:  # (the twin's own export: primcap's docstring; session 47, as --bundle)
        primary_capped(out, sigs, own)  # no documented sign of the class, another's present (session 46)
    with_component_self(out, sigs, lambda s: s.host)
    with_symptoms(out, stats)
    if out["fault_class"] != UNKNOWN and not out["evidence_lines"]:
        out["evidence"].append("no evidence line: the verdict rests on metrics or events only")
    notes = []
    if stats.get("lines_cut"):
        notes.append(f"{stats['lines_cut']} lines longer than the scan limit were scanned in their first part only")
    if stats.get("not_read"):
        notes.append("not read: " + "; ".join(stats["not_read"][:5]))
    notes += stats.get("notes", [])[:5]
    counted = {(v.file, v.line_no, v.kind) for v in vendor}
    entries = [{**v, "counted": (v["file"], v["line"], f"vendor:{v['class']}") in counted}
               for v in (knowledge.vendor_report() if knowledge else [])]
    kn = verdict_first(kn, out["fault_class"] if out["fault_class"] != UNKNOWN else None)
    return {"diagnosis": out, "input": stats, "knowledge": kn, "vendor_entries": entries, "limits": notes}


def _one_host(signals: list[Signal]) -> str | None:
    """The one host (a worker directory, a syslog head's host) every failing signal's line names, else None."""
    hosts = {s.host for s in signals if s.severity >= 1 and not s.kind.startswith(("level:", "vendor:"))}
    return hosts.pop() if len(hosts) == 1 else None


def _one_place(signals: list[Signal]) -> str | None:
    """The one NPU (else the one node) every failing signal names, for an answer without a class (an ``npu-smi``
    health ``Alarm`` of NPU 5 alone); None where they name none or several."""
    comps = {s.component for s in signals if s.severity >= 1 and s.component and
             not s.kind.startswith(("level:", "vendor:"))}
    if not comps:
        return None
    for of in (npu_of, node_of):
        found = {of(c) for c in comps}
        if len(found) == 1 and None not in found:
            return found.pop()
    return None


class _Hooks:
    """Every line to the knowledge matcher (when there is one) and to the multi-rank collector; the devices the
    first :data:`DEVICE_SCAN_LINES` lines name, for a root that no signal placed."""

    def __init__(self, knowledge: _Knowledge | None, ranks: RankCollector) -> None:
        self.knowledge = knowledge
        self.ranks = ranks
        self.view = TextView()
        self.progress = progress_scan()
        self.devices: Counter[int] = Counter()
        self.first_line: dict[int, tuple[str | None, int, str]] = {}  # device -> the first line naming it
        self.scanned = 0
        self._file_worker: dict[str | None, str] = {}

    def __call__(self, line: str, file: str | None, line_no: int, t: float, head: str = "",
                 origin: str | None = None, words: bool = True) -> None:
        """``words``: False for a paste's own words around its Markdown fences (the text view leaves them out)."""
        if self.knowledge is not None:
            self.knowledge(line, file, line_no, t)
        # ``origin``: the file the line was written to, where the input holds several (grep -r, tail of many)
        self.ranks.feed(line, file, line_no, None if origin else self._host(file, head), origin=origin)
        if words:
            self.view(line, file, line_no, head)
        self.progress(line, file, line_no, head, origin)  # (each file of several files' lines apart)
        if self.scanned < DEVICE_SCAN_LINES:
            self.scanned += 1
            if (dev := device_in(line)) is not None or (origin and (dev := device_in(origin)) is not None):
                self.devices[dev] += 1
                self.first_line.setdefault(dev, (file, line_no, line))

    def rebase(self, delta: float) -> None:
        """(The reader's time origin moved back: :meth:`_Knowledge.rebase`.)"""
        if self.knowledge is not None:
            self.knowledge.rebase(delta)

    def _host(self, file: str | None, head: str) -> str | None:
        """The host a collector's head names (syslog, journal, a JSON record's; else the pod, container or host a
        kubectl, compose or pdsh head names), for a line whose file names no worker (stdin, one file given):
        processes of one pid on two hosts of one paste stay two processes."""
        if not head:
            return None
        if file not in self._file_worker:
            self._file_worker[file] = host_root(file)[0] if file else ""
        return (head_host(head) or head_source(head)) if not self._file_worker[file] else None

    def named_device(self) -> int | None:
        """The one device the input names (or names at least twice as often as any other), else None."""
        top = self.devices.most_common(2)
        if not top or (len(top) > 1 and top[0][1] < 2 * top[1][1]):
            return None
        return top[0][0]


def _root_from_text(out: dict[str, Any], dev: int | None,
                    where: tuple[str | None, int, str] | None = None) -> None:
    """A verdict (or an abstention) that no signal placed on a device: the device the input itself names, with the
    first line that names it among the evidence lines (the line the root rests on)."""
    root = out.get("root") or {"component": None, "host": None}
    if dev is None or root.get("device") is not None or root.get("peer") or root.get("switch"):
        return  # (a silent peer's root: the device the input names is the one that waited for it; a switch's)
    out["root"] = {**root, "device": dev}
    at = f" (first named on line {where[1]})" if where else ""
    out["evidence"].append(f"device {dev}: the one device the input names{at} (no signal placed the fault on a device)")
    rows = out.setdefault("evidence_lines", [])
    if where and not any((r.get("file"), r.get("line")) == where[:2] for r in rows):
        rows.append({"file": where[0], "line": where[1], "kind": "root:device", "text": where[2][:300]})


def diagnose_logs(path: str | list[str], engine: Engine, matcher: Any = None, stdin: IO[bytes] | None = None,
                  follow_links: bool = False) -> dict[str, Any]:
    """``path`` is a file, a directory of logs, or ``-`` for stdin; or several files and directories (a shell's
    glob), read as the directory they share. ``follow_links``: a directory's symbolic links are read too."""
    paths = [path] if isinstance(path, str) else list(path)
    knowledge = _Knowledge(matcher) if matcher is not None else None
    ranks = RankCollector()
    hooks = _Hooks(knowledge, ranks)
    reader = LineReader(hook=hooks)
    reader.follow_links = follow_links
    if len(paths) == 1 and paths[0] != "-" and Path(paths[0]).is_file():
        ranks.root_archive = Path(paths[0]).name + ":"  # (its members are read as <archive>:<member>)
    _, _, given = ingest_paths(paths, stdin, reader)
    root = Path(given).name if given else ""
    ranks.root_path = Path(given).absolute().as_posix() if given else ""  # (its folders may name the job)
    files = ranks.files_read()
    if ranks.root_archive and (members := [f[len(ranks.root_archive):] for f in files
                                           if f.startswith(ranks.root_archive)]):
        # an archive given is the directory it packs, named as the bundle reader names it (session 35)
        root, files = archive_name(archive_stem(Path(paths[0]).name), archive_top(members)), members
    # the directory given names the host of the files in it only where the layout says so (a node's logs, a host's
    # name); a folder of unrelated pastes names none: their lines keep the hosts they name, or none
    ranks.root_name = root if root_names_host(root, files) else (  # (a run-time or a log folder: its syslog's host)
        syslog_host(ranks.syslog_hosts.get("")) or "" if unnamed_root(root) else "")
    signals = on_workers(reader.signals, ranks, reader.origins)
    table = ranks.table()  # (after on_workers, which names the collector's root)
    signals, old = link_history_dropped(signals, table.job_start)
    chosen = busiest_job(table) if table.jobs else -1  # several jobs' processes: one root cluster each
    mine = table.jobs[chosen] if table.jobs else table
    res = diagnose_signals(engine, signals, reader.stats.as_dict(), knowledge, mine, hooks.view,
                           twin=twin_export(s.file for s in signals), progress=hooks.progress)
    if mine.attempts:  # the job ran more than once (a restart): which attempt the evidence is from
        res["attempts"] = say_attempt(res["diagnosis"], mine, mine.attempt)
    if table.jobs:
        other_jobs(res["diagnosis"], table, chosen, signals, engine, max((s.t for s in signals), default=0.0))
        res["jobs"] = jobs_listed(table, chosen)
    if old:
        res["diagnosis"]["evidence"].append(
            f"{old} link change record(s) or counter(s) from more than {LINK_HISTORY_S:.0f} s before the job's "
            "first process line left out: the ports' history, not this failure")
    dev = hooks.named_device()
    _root_from_text(res["diagnosis"], dev, hooks.first_line.get(dev) if dev is not None else None)
    if (note := chip_named(res["diagnosis"]["root"], mine)) is not None:
        res["diagnosis"]["evidence"].append(note)  # the root cluster's name and the headline's: one device
    return res | {"file": paths[0] if len(paths) == 1 else paths}


def diagnose_incident_file(path: str, engine: Engine, matcher: Any = None) -> dict[str, Any]:
    """An exported incident: JSON ``{"lines": [{"t", "origin", "source", "level", "text"} | "text", ...]}``."""
    from opsbrain.yamlio import parse_json

    text = read_small(path)
    try:
        data = parse_json(text, path)
    except InputError as exc:  # a log file given as INCIDENT_FILE: say where raw logs go
        raise InputError(f"{exc.reason} (INCIDENT_FILE is an exported incident, JSON; raw log text goes to --logs "
                         "FILE)", file=exc.file, path=exc.path) from None
    lines = data.get("lines") if isinstance(data, dict) else data
    if not isinstance(lines, list):
        raise InputError("expected an object with a 'lines' list", file=path, path="lines")
    knowledge = _Knowledge(matcher) if matcher is not None else None
    signals: list[Signal] = []
    for i, item in enumerate(lines):
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise InputError("each line must be a string or an object with a 'text' string", file=path,
                             path=f"lines[{i}]")
        t = item.get("t", 0.0)
        if not isinstance(t, int | float) or isinstance(t, bool) or not math.isfinite(t):
            raise InputError("t must be a finite number of seconds", file=path, path=f"lines[{i}].t")
        for key in ("origin", "source", "level"):
            if item.get(key) is not None and not isinstance(item.get(key), str):
                raise InputError(f"{key} must be a string", file=path, path=f"lines[{i}].{key}")
        if knowledge is not None:
            knowledge(item["text"], Path(path).name, i + 1, float(t))
        signals.extend(s.at(line_no=i + 1, file=Path(path).name) for s in
                       parse_line(item["text"], float(t), item.get("origin"), item.get("source"), item.get("level")))
    signals = section_placed(signals)
    stats = {"lines": len(lines), "signals": len(signals)}
    return diagnose_signals(engine, signals, stats, knowledge) | {"file": str(Path(path))}
