"""The multi-rank verdict: the root cluster (:mod:`opsbrain.diagnosis.rootcluster`) of a job's processes, with a
class chosen from the root devices' own evidence, in the operator's terms (host as written, device index).

The class is decided by documented rules first, so that retraining the model cannot flip it:

1. the knowledge base's vote over the root devices' own error signals (their plogs, and the lines of their host
   that name their device; imported vendor entries mapped by knowledge_base/vendor_map.yaml and admitted by
   :func:`opsbrain.diagnosis.oneclick.vendor_votes` count as that class's primary signature) with the engine's own
   lead and minimum (:mod:`opsbrain.diagnosis.vote`);
2. else, when no signature of another class's naming (primary) role is on those lines or the kind's class leads
   their vote (without the lead), the class the root cluster's own failure kind documents (:data:`KIND_CLASS`: a
   collective set-up or wait failure whose root shows nothing else is a peer that did not arrive, software; RDMA
   retransmissions exceeded are the RoCE port's);
3. else the diagnosis model on those signals, when it does not abstain (without the software triage of
   :mod:`opsbrain.diagnosis.triage`: the absence of hardware evidence on the root's own lines says nothing of the
   rest of the input, and the triage's fixed confidence is no probability of the model's);
4. else the vote without its lead and minimum (the root cluster has already placed the failure; the class only
   names it).

The confidence is the vote's own (never above its cap) where the vote decides, else the model's probability for
the class; the answer says which rule decided. When the root waits for a remote that never came up, or whose logs
are missing, the answer says that too.
"""

from __future__ import annotations

from typing import Any

from opsbrain.diagnosis.knowledge import default_params, default_table
from opsbrain.diagnosis.rootcluster import KIND_WORDS, RootCluster, analyse
from opsbrain.diagnosis.vote import scores, vote
from opsbrain.ingest import Signal
from opsbrain.ingest.ranks import RankProcess, RankTable
from opsbrain.ingest.where import node_of, user_terms
from opsbrain.ingest.workers import host_root
from opsbrain.verdict import UNKNOWN

ERROR = 2
"""Signal severity of an error line: rules 1 and 2 weigh the root devices' error lines only (an INFO line such as
``HCCL_CONNECT_TIMEOUT set by environment to [130]s`` names a setting, not a failure)."""

ROOTS_OWN = "the root devices' own"
"""Whose lines the class is decided on when the root's own lines are in the input (else the reporting devices')."""
DOCUMENTED = ("the knowledge base's documented signatures", "the root cluster's failure kind")
"""How rules 1 and 2 say they decided (a class from documents, not from the model)."""
CONFIDENT = 0.8
"""A whole-input verdict at or above this confidence keeps its class against a documented root-cluster class (the
confident-wrong bar of the real-log evaluation, issue 14); below it the documented class of the root decides."""

DECIDING = frozenset({"socket", "transport", "notify", "cqe", "cluster", "rootinfo", "killed"})
"""Failure kinds whose wait relation locates a root (the others only list erroring devices)."""


KIND_CLASS = {
    "socket": ("collective_timeout_sw", "ascend-fd root-cluster codes 107/108 (ascend_fd/utils/i18n.py: socket link "
               "set-up timeout across the "
               "communicator; the last rank to report, or the end of the wait chain, is the suspect)"),
    "transport": ("collective_timeout_sw", "ascend-fd root-cluster codes 132/133 (ascend_fd/utils/i18n.py: Transport "
                  "init error; the end of "
                  "the wait chain, or the device that printed no such error, is the suspect)"),
    "notify": ("collective_timeout_sw", "ascend-fd root-cluster codes 109-112/122-125 (ascend_fd/utils/i18n.py: notify "
               "wait timeout; a "
               "peer never reached the collective)"),
    "rootinfo": ("collective_timeout_sw", "ascend-fd root-cluster codes 117-119 (root-info exchange timeout: the "
                 "root rank did not take the connections in time)"),
    "cqe": ("roce_port_down", "ascend-fd root-cluster code 116 (ascend_fd/utils/i18n.py: RoCE "
            "retransmissions exceeded, ERROR CQE, on the root; HCCL EI0013; knowledge_base roce_port_down)"),
}
"""Failure kind of the root cluster -> (class, the documents behind it), used where the root's own lines name no
other class (rule 2 of the module docstring)."""

SETUP_CAUSES = {"cfg:tls_mismatch": ("config_error", "HCCL fault-diagnosis guide, link set-up timeout EI0006 "
                                     "(hicann/hccl docs/zh/user_guide/fault_diagnosis/link_timeout_EI0006.md, 排查点5: "
                                     "two ends whose TLS switches differ fail socket verification and both time out)")}
"""Input-wide signals that the documents name as the cause of a link set-up wait (root-cluster kinds
:data:`SETUP_KINDS`) -> (class, the documents). They are derived across devices (a device's run log, another
process's lines than the waiting plog's), so the root's or the reporters' own lines never hold them; the wait is
their consequence and does not outrank them."""
SETUP_KINDS = frozenset({"socket", "transport"})
"""Root-cluster kinds that are a link set-up wait (the socket of the parameter plane, the transport over it)."""


def _own(p: RankProcess, s: Signal, nodes: set[str], aliases: dict[str, str] | None = None) -> bool:
    if s.file is not None and (s.file in p.files or (s.file, s.line_no) in p.cited):
        return True
    if s.device is None or s.device != p.device:
        return False
    if s.host is not None:
        return s.host == p.worker or s.host in nodes or bool(
            aliases and p.worker and aliases.get(node_of(s.host) or "") == p.worker)
    return s.file is not None and host_root(s.file)[0] in nodes  # no host named: the same worker directory


def _nodes_of(p: RankProcess, signals: list[Signal]) -> set[str]:
    """The host ids the signals of the process's own files carry (a bundle reader names hosts its own way), and
    the worker directories of those files (for lines that name no host)."""
    files = set(p.files)
    return {s.host for s in signals if s.file in files and s.host} | {host_root(f)[0] for f in files}


def signals_of(procs: list[RankProcess], signals: list[Signal], aliases: dict[str, str] | None = None
               ) -> list[Signal]:
    """The signals of these processes' own lines (the root devices', or the reporting devices' for a root none of
    whose own lines are in the input). ``aliases``: a host id the signals carry -> the worker's name the processes
    carry (a bundle reader's ``pod0/node2`` for ``ascend-c03``: the device log of a root whose plog logged no error
    is still its own)."""
    nodes = {p.name: _nodes_of(p, signals) for p in procs}
    return [s for s in signals if any(_own(p, s, nodes[p.name], aliases) for p in procs)]


def _software() -> frozenset[str]:
    from opsbrain.diagnosis.triage import software_classes
    from opsbrain.kb.compiled import compiled_kb

    return software_classes(compiled_kb())


def hardware_on_root(errs: list[Signal], classes: list[str], software: frozenset[str]
                     ) -> tuple[str, float, dict[str, float]] | None:
    """A documented hardware fault on the root devices' own error lines: the clear vote (rule 1's lead and minimum)
    over the lines that speak for a class of a hardware family some line names by a primary signature (an HBM UCE
    event 0x80E01801: hbm_uce); None when no such class is named or the vote does not lead. A collective's timeouts
    on the root (or the waiters' lines) are the consequence of such a fault: they do not outvote it, and a software
    class never outranks a hardware one this way (docs/bundles.md, multi-rank)."""
    named = naming_classes(errs) - software
    if not named:
        return None
    table = default_table()
    mine = [s for s in errs if any(c in named for c, _r in table.of(s.kind))]
    v = clear_vote(mine, [c for c in classes if c not in software])
    return v if v is not None and v[0] in named else None


def kb_vote(signals: list[Signal]) -> tuple[str | None, dict[str, float]]:
    """The class whose signatures the signals fit best by role weight (rule 4 of the module docstring)."""
    score = scores(default_table().features(signals), default_params().vote)
    top = sorted(score.items(), key=lambda kv: -kv[1])[:4]
    return (top[0][0] if top else None), {c: round(v, 2) for c, v in top}


def weights(score: dict[str, float]) -> str:
    """Class scores as a person reads them, highest first: ``npu_oom 0.69, collective_timeout_sw 0.28`` (not a
    Python dict); ``none`` when empty."""
    return ", ".join(f"{c} {v:.2f}" for c, v in sorted(score.items(), key=lambda kv: -kv[1])) or "none"


def clear_vote(signals: list[Signal], classes: list[str]) -> tuple[str, float, dict[str, float]] | None:
    """The vote's clear leader with the engine's lead and minimum (rule 1): (class, confidence, top scores)."""
    feats = default_table().features(signals)
    v = vote(feats, default_params().vote, classes)
    if v is None:
        return None
    top = sorted(scores(feats, default_params().vote).items(), key=lambda kv: -kv[1])[:4]
    return v.leader, v.confidence, {c: round(x, 2) for c, x in top}


def naming_classes(signals: list[Signal]) -> set[str]:
    """Classes for which some signal is a naming (primary) signature."""
    table = default_table()
    return {c for s in signals for c, role in table.of(s.kind) if role == "primary"}


def component_of(p: RankProcess) -> str:
    """A root process as a component id in the user's terms: ``<host>/npu<device>``."""
    if p.label:  # a peer named by another's lines only (rootcluster._silent_peer): its address, no device known
        return p.worker
    dev = f"npu{p.device}" if p.device is not None else f"pid{p.pid}"
    return f"{p.worker}/{dev}" if p.worker else dev


def hosts_of_servers(table: RankTable) -> dict[str, str]:
    """Server address -> the worker whose processes have it (one worker an address), where the worker is named
    otherwise (a directory): a line that names a host by its server address names that worker."""
    seen: dict[str, set[str]] = {}
    for p in table.processes:
        if p.server and p.worker and p.worker != p.server:
            seen.setdefault(p.server, set()).add(p.worker)
    return {s: next(iter(w)) for s, w in seen.items() if len(w) == 1}


def _listed(rc: Any, table: RankTable) -> None:
    """A remote no process of the input is, but a rank table of the input lists (its address: a server's or a
    device's): its dead end says so, with the devices and ranks the table gives it, and so does the rule where that
    peer is the root (session 33; before: only "its logs are missing")."""
    from opsbrain.ingest.rankhosts import listed_words

    if not table.listed:
        return
    for d in rc.dead_ends:
        addr = str(d.get("remote") or "").split("/", 1)[0]
        if (words := listed_words(addr, table.listed)) is not None:
            d["why"] = f"{d['why']}; {words}"
            d["listed"] = table.listed[addr]
    peers = {str(r.label or "").split(" ", 1)[0] for r in rc.roots if not r.pid and r.label}
    said = [w for a in sorted(peers) if (w := listed_words(a, table.listed))]
    if said:
        rc.rule += "; " + "; ".join(said) + ": a host of the job whose logs were not collected"


def multirank_verdict(table: RankTable, signals: list[Signal], engine: Any, now: float,
                      aliases: dict[str, str] | None = None) -> dict[str, Any] | None:
    """The root cluster and its class, or None when no process of a collective logged an error. ``aliases``: as
    :func:`signals_of` takes them."""
    if not any(p.first_error is not None for p in table.processes):
        return None
    rc = analyse(table)
    _listed(rc, table)
    out = rc.as_dict()
    out["hosts_of_servers"] = hosts_of_servers(table)
    out["decides"] = rc.kind in DECIDING and bool(rc.roots) and len(rc.roots) <= max(2, len(table.processes) // 2)
    if rc.roots and not out["decides"] and rc.kind in DECIDING:
        out["not_deciding"] = (f"{len(rc.roots)} of the job's {len(table.processes)} processes are roots by the rule: "
                               f"that is most of the job, not a place")
    if not rc.roots:  # a wait for a peer no line names: the waiters' lines give the class, no place
        if rc.kind in DECIDING and (own := signals_of(rc.error_devices, signals, aliases)):
            cls, conf, how = decide_class(rc, own, signals, engine, now, "the reporting devices'", aliases)
            out |= {"fault_class": cls, "confidence": conf, "class_from": how, "documented": how.startswith(DOCUMENTED)}
        return out
    own, whose = signals_of(rc.roots, signals, aliases), ROOTS_OWN
    if not own:  # the root's own lines are not in the input (a device named by its peers): what the reporting
        own, whose = signals_of(rc.error_devices, signals, aliases), "the reporting devices'"  # devices logged is all
    cls, conf, how = decide_class(rc, own, signals, engine, now, whose, aliases)
    out["fault_class"] = cls
    out["confidence"] = conf
    out["class_from"] = how
    out["documented"] = how.startswith(DOCUMENTED)
    out["component"] = component_of(rc.roots[0])
    out["summary"] = summary(rc)
    return out


def decide_class(rc: RootCluster, own: list[Signal], signals: list[Signal], engine: Any, now: float,
                 whose: str = ROOTS_OWN, aliases: dict[str, str] | None = None
                 ) -> tuple[str, float, str]:
    """(class, confidence, which rule decided) for the root cluster (the module docstring's rules 1-4); ``whose``
    names the lines ``own`` holds, in the reason."""
    classes = list(getattr(getattr(engine, "model", None), "classes", None) or
                   sorted({c for k in default_table().roles.values() for c, _r in k}))
    probs: dict[str, float] = {}
    d = engine.diagnose_signals(own, now, triage=False) if own and engine is not None else None
    if d is not None:
        probs = dict(d.alternatives)
        if not d.abstained:
            probs.setdefault(d.fault_class, d.confidence)
    errs = [s for s in own if s.severity >= ERROR]
    voted = clear_vote(errs, classes) if errs else None
    software = _software()
    hw = hardware_on_root(errs, classes, software) if whose == ROOTS_OWN else None
    if hw is not None and (voted is None or voted[0] in software):
        cls, conf, score = hw
        return cls, conf, (f"{DOCUMENTED[0]} of hardware on {whose} error lines, which outrank the collective's "
                           f"software symptom (its timeouts are the consequence; vote {weights(score)} over the "
                           f"lines that speak for {cls}, with the engine's lead and minimum; confidence the vote's "
                           "own)")
    cause = next((s for s in signals if s.kind in SETUP_CAUSES), None) if rc.kind in SETUP_KINDS else None
    if cause is not None and (voted is None or voted[0] == KIND_CLASS[rc.kind][0]):  # the vote names only the wait
        cls, doc = SETUP_CAUSES[cause.kind]
        dc = engine.diagnose_signals([*own, cause], now, triage=False) if engine is not None else None
        conf = 0.0 if dc is None else (dc.confidence if not dc.abstained and dc.fault_class == cls
                                       else dict(dc.alternatives).get(cls, 0.0))
        return cls, conf, (f"{DOCUMENTED[0]}: the input's {cause.kind} is the documented cause of the "
                           f"{KIND_WORDS.get(rc.kind, rc.kind)} ({doc}); the wait is its consequence; confidence "
                           f"is the model's probability for {cls} on {whose} lines with it")
    if voted is not None:
        cls, conf, score = voted
        return cls, conf, (f"{DOCUMENTED[0]} on {whose} error lines (vote "
                           f"{weights(score)}, with the engine's lead and minimum; confidence the vote's own)")
    kind = KIND_CLASS.get(rc.kind)
    leader, score = kb_vote(errs)
    if kind is not None and (not (naming_classes(errs) - {kind[0]}) or leader == kind[0]):
        why = ("no other class named" if not (naming_classes(errs) - {kind[0]})
               else f"its class leading the documented signatures ({weights(score)})")
        conf, on = probs.get(kind[0], 0.0), ""
        if {id(p) for p in rc.error_devices} - {id(p) for p in rc.roots} and engine is not None:
            # the wait that makes the root is on the waiters' lines (an AI CPU notify wait, a socket timeout): the
            # model's probability on the whole root cluster's lines, where that is higher than on the root's own
            cluster = signals_of(rc.error_devices, signals, aliases)
            dc = engine.diagnose_signals(cluster, now, triage=False) if cluster else None
            p_all = 0.0 if dc is None else (dc.confidence if not dc.abstained and dc.fault_class == kind[0]
                                            else dict(dc.alternatives).get(kind[0], 0.0))
            if p_all > conf:
                conf, on = p_all, " on the lines of every device of the root cluster"
        return kind[0], conf, (
            f"{DOCUMENTED[1]} ({KIND_WORDS.get(rc.kind, rc.kind)}), {why} on {whose} "
            f"error lines: {kind[1]}; confidence is the model's probability for {kind[0]}{on}")
    if d is not None and not d.abstained:
        return d.fault_class, d.confidence, f"the diagnosis model on {whose} lines"
    how = ""
    if d is not None:
        best = (d.alternatives or [(UNKNOWN, 0.0)])[0]
        how = f"the model abstained on {whose} lines (best guess {best[0]} at {best[1]:.0%}); "
    waiters = [s for s in signals if any(_own(p, s, set(), aliases) for p in rc.error_devices)]
    voted_any, score_any = kb_vote(own) if own else (None, {})
    if voted_any is None:
        voted_any, score_any = kb_vote(waiters)
    if voted_any is None:
        return UNKNOWN, 0.0, how + "no signal of the root devices is known"
    return voted_any, probs.get(voted_any, 0.0), how + (
        f"knowledge-base signature roles over their signals (weights {weights(score_any)}); confidence is the model's "
        f"probability for {voted_any}")


def summary(rc: RootCluster) -> str:
    """One sentence: what failed, where the root is, the chain, why."""
    what = KIND_WORDS.get(rc.kind, rc.kind)
    roots = ", ".join(p.name for p in rc.roots)
    n = sum(1 for p in rc.error_devices if any(e.kind == rc.kind for e in p.errors))
    s = f"{what} on {n} device(s) ({len(rc.error_devices)} logged errors); root {roots}"
    if rc.chain:
        s += f"; wait chain {' -> '.join(rc.chain)}"
    s += f"; {rc.rule}"
    if rc.dead_ends and rc.roots and any(d["waiter"] == rc.roots[0].name for d in rc.dead_ends):
        d = next(d for d in rc.dead_ends if d["waiter"] == rc.roots[0].name)
        s += f"; it waited for {d['remote']}: {d['why']}"
    return s


def _runbook(engine: Any, cls: str) -> str | None:
    rb = getattr(engine, "_runbook", None)
    return rb(cls) if callable(rb) else None


def _a_later_root(own: dict[str, Any], roots: list[dict[str, Any]]) -> bool:
    """Whether the verdict's host and device are one of the root cluster's roots after its first (earliest)."""
    return own.get("device") is not None and any(
        r["device"] == own.get("device") and (r["host"] or None) in (own.get("host"), None) for r in roots[1:])


def _hardware_at_a_root(out: dict[str, Any], mr: dict[str, Any], own: dict[str, Any]) -> dict[str, Any] | None:
    """The root the verdict names where its class is of a hardware family and the root cluster's of the software
    family (its device one of the roots', its host that root's or unnamed), as a verdict's ``root``; else None."""
    software = _software()
    if out.get("fault_class") in (UNKNOWN, *software) or mr.get("fault_class") not in software:
        return None
    for r in mr.get("roots") or []:
        if r["device"] is not None and own.get("device") == r["device"] and own.get("host") in (r["host"] or None,
                                                                                                  None):
            return {"host": r["host"] or None, "device": r["device"], "name": r["name"]}
    return None


def _first_root(mr: dict[str, Any]) -> dict[str, Any]:
    """The root cluster's first root as a verdict's ``root`` (with the chip the runtime named, where it did)."""
    r = mr["roots"][0]
    return {"component": mr["component"], "host": r["host"] or None, "device": r["device"], "name": r["name"]} | (
        {"peer": True} if r.get("peer") else {}) | (  # a peer no line of its own shows: no device of the input is it
        {"chip": r["chip"]} if r.get("chip") is not None else {})


def chip_named(root: dict[str, Any], table: RankTable | None) -> str | None:
    """A verdict's ``root`` (changed in place) with the physical chip of its device, where the input gives a
    process's device (torch_npu's ``Device:0``) and the runtime's chip id of the same process (``chipId:7``,
    :attr:`~opsbrain.ingest.rankrecords.RankProcess.chip`) and they differ: a root placed on the chip (the
    runtime's line's ``npu7``) is named by the process's device with the chip beside it, ``device 0 (chip 7)``, as
    the root cluster names it; one placed on the device gets its chip. The note to add to the evidence, or None."""
    dev, host = root.get("device"), root.get("host")
    if dev is None or table is None or root.get("chip") is not None:
        return None
    procs = [p for p in table.processes if p.chip is not None and p.device is not None and p.chip != p.device
             and (not host or not p.worker or p.worker == host)]
    logical = {p.device for p in table.processes if p.device is not None}
    on_device = [p for p in procs if p.device == dev]
    on_chip = [p for p in procs if p.chip == dev] if dev not in logical else []
    found = on_device or on_chip
    if len({(p.device, p.chip) for p in found}) != 1:
        return None
    p = found[0]
    root["device"], root["chip"] = p.device, p.chip
    return (f"device {p.device} (chip {p.chip}): process {p.pid} names device {p.device} (the program's logical "
            f"index) and its runtime error names chip {p.chip} (the physical chip)")


def _first_of_the_same_class(out: dict[str, Any], mr: dict[str, Any], own: dict[str, Any],
                             within: set[str] | None = None) -> None:
    """Where the root cluster's class is the verdict's and the verdict's device is one of its roots but not the
    first (the earliest to fail), the first is the root: the same failure on several devices started there.
    ``within``: the names of the processes whose lines the verdict rests on (a bundle's primary incident); roots
    outside them are another incident's and place nothing."""
    roots = [r for r in mr.get("roots") or [] if within is None or r["name"] in within]
    if roots and mr.get("fault_class") == out.get("fault_class") and _a_later_root(own, roots):
        first = roots[0]
        comp = f"npu{first['device']}" if first["device"] is not None else f"pid{first['pid']}"
        out["root"] = _first_root({**mr, "roots": roots, "component": (
            mr["component"] if first is mr["roots"][0] else f"{first['host']}/{comp}" if first["host"] else comp)})
        out["evidence"].insert(0, "placed by the multi-rank root cluster (its class is the verdict's; the verdict's "
                               "device failed later): " + mr["summary"])


def _the_hosts_one_root(out: dict[str, Any], mr: dict[str, Any], within: set[str] | None = None) -> None:
    """Where the root cluster's class is the verdict's and the verdict names a host but no device, while the root
    cluster's roots on that host (``within``: see :func:`_first_of_the_same_class`) are one device: that device, as
    the root cluster names it. A lone plog's ``rtStreamSynchronize:ErrCode=507053`` names no device; its process's
    HCCL init line (``device[5]``) does, and the root cluster reads it: ``--logs`` answered device 5, ``--bundle``
    none (probe59b: a bundle of one host's plog)."""
    own = out.get("root") or {}
    if own.get("device") is not None or own.get("host") is None or mr.get("fault_class") != out.get("fault_class"):
        return
    devices = {r["device"] for r in mr.get("roots") or [] if r.get("device") is not None
               and r.get("host") == own["host"] and (within is None or r["name"] in within)}
    if len(devices) == 1:
        device = devices.pop()
        out["root"] = {**own, "device": device, "component": f"{own['host']}/npu{device}"}
        out["evidence"].append(f"device {device}: the one root device the multi-rank root cluster names on the "
                               f"verdict's host ({mr['summary']})")


def apply_root_cluster(out: dict[str, Any], mr: dict[str, Any], engine: Any, max_lines: int = 12,
                       within: set[str] | None = None) -> None:
    """Let the root cluster decide a verdict (``Diagnosis.as_dict()`` plus ``root`` and ``evidence_lines``) where
    the verdict cannot place the failure: it abstained, blamed the collective itself, or names no host (then its
    class stands and the root cluster gives the host); and where the root's class was decided by documented rules
    and the verdict, of another class, is below :data:`CONFIDENT`. ``within``: see :func:`_first_of_the_same_class`
    (a root cluster without a wait relation only lists the devices that logged errors: it moves a verdict to none
    outside them)."""
    if not mr.get("roots"):  # a wait for a peer no line names (rootcluster._silent_peer): the root is unknown
        out["evidence"].insert(0, f"{mr['what']}: {mr['rule']}")
        if mr.get("documented") and mr.get("fault_class", UNKNOWN) != UNKNOWN and out.get("fault_class") != \
                mr["fault_class"] and float(out.get("confidence") or 0.0) < CONFIDENT:
            was = out.get("fault_class")
            out["fault_class"], out["confidence"] = mr["fault_class"], round(mr["confidence"], 4)
            out["runbook"] = _runbook(engine, mr["fault_class"])
            out["decided_by"] = "multi-rank root cluster; class from " + mr["class_from"]
            out["evidence"].append(f"the verdict on the whole input was {was}; the root cluster's wait decides "
                                   "the class, no line places its root")
        if out.get("fault_class") in (UNKNOWN, "collective_timeout_sw"):  # a wait's verdict: not on the waiter
            out["component"] = None
            out["root"] = {"component": None, "host": None, "device": None, "peer": True,
                           "name": "an unknown peer (no line names it; its logs are not in the input)"}
        return
    own = out.get("root") or user_terms(out.get("component"))
    if (host := (mr.get("hosts_of_servers") or {}).get(server := str(own.get("host")))) is not None:
        comp = str(own.get("component") or "")  # the verdict's host by its server address: the worker's name
        own = out["root"] = {**own, "host": host} | (
            {"component": host + comp[len(server):]} if comp.startswith(server + "/") else {})
    if not (mr.get("decides") and mr.get("fault_class", UNKNOWN) != UNKNOWN):
        _first_of_the_same_class(out, mr, own, within)  # (a root cluster that does not decide may order the roots)
        _the_hosts_one_root(out, mr, within)  # (and name the device where the verdict names only its host)
        return
    roots = mr["roots"]
    overrule = mr.get("documented") and mr["fault_class"] != out.get("fault_class") and \
        float(out.get("confidence") or 0.0) < CONFIDENT
    if overrule and (at := _hardware_at_a_root(out, mr, own)) is not None:
        # a hardware fault at a root device: the collective's software symptom is its consequence, not its cause
        out["root"] = {**at, "component": out.get("component") or mr["component"]}
        out["evidence"].insert(0, f"placed by the multi-rank root cluster; its class {mr['fault_class']} is the "
                               f"consequence of the verdict's {out.get('fault_class')} on its root device (hardware "
                               "outranks the collective's software symptom): " + mr["summary"])
        return
    if out.get("fault_class") not in (UNKNOWN, "collective_timeout_sw") and not overrule:
        if own.get("host") is None and own.get("device") in (None, roots[0]["device"]):
            # the verdict's class stands; the root cluster says which host its device is on
            out["root"] = _first_root(mr)
            out["evidence"].insert(0, "placed by the multi-rank root cluster: " + mr["summary"])
        elif mr.get("fault_class") == out.get("fault_class") and roots[0]["device"] is not None and \
                (own.get("host"), own.get("device")) != (roots[0]["host"] or None, roots[0]["device"]):
            # the same class: the wait relations among the job's processes place it (the devices waited on it)
            out["root"] = _first_root(mr)
            out["evidence"].insert(0, "placed by the multi-rank root cluster (its class is the verdict's): "
                                   + mr["summary"])
        else:
            out["evidence"].insert(0, "multi-rank root cluster (not deciding; the verdict rests on other "
                                   "evidence): " + mr["summary"])
        return
    was = out.get("fault_class")
    out["fault_class"], out["confidence"] = mr["fault_class"], round(mr["confidence"], 4)
    out["component"] = mr["component"]
    out["runbook"] = _runbook(engine, mr["fault_class"])
    out["decided_by"] = "multi-rank root cluster; class from " + mr["class_from"]
    out["root"] = _first_root(mr)
    out["roots"] = [{"host": r["host"] or None, "device": r["device"], "name": r["name"]} for r in roots]
    out["evidence"] = [mr["summary"]] + [e for e in out.get("evidence", []) if "escalate" not in e] + [
        f"the verdict on the whole input was {was}; the root cluster decides the root"]
    seen = {(e["file"], e["line"]) for e in mr["evidence_lines"]}
    rest = [e for e in out.get("evidence_lines", []) if (e["file"], e["line"]) not in seen]
    out["evidence_lines"] = (mr["evidence_lines"] + rest)[:max_lines]
