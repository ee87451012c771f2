"""Names in a bundle: worker directories -> node ids, host names and management addresses -> node or chip ids (the
twin's conventions read backwards), and job-event details put back in node ids.

A directory (or, failing that, the host in its ``messages``) named like ``pod0-node35`` keeps that id; the others get
``pod0/node<k>`` in natural sort order (the smallest free k); the real names stay in the report and in the evidence.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from opsbrain.bundle import layout as L
from opsbrain.bundle.walk import _File
from opsbrain.ingest.asys import OUTPUT_DIR, host_dirs, job_log_host
from opsbrain.ingest.chipmap import ChipMap
from opsbrain.ingest.hostnames import SCAN_LINES, SYSLOG_HOST, chip_host, host_syslog, real_names, unnamed_root
from opsbrain.ingest.where import real_component, user_terms
from opsbrain.ingest.workers import host_root, names_no_host, shared_head

_NODE_HOST = re.compile(r"pod(\d+)-node(\d+)")
_L1_HOST = re.compile(r"pod(\d+)-node(\d+)-l1sw(\d+)")
_L2_HOST = re.compile(r"pod(\d+)-l2plane(\d+)-sw(\d+)")
_IP_NODE = re.compile(r"^10\.(\d+)\.(\d+)\.(\d+)$")


def natural_key(s: str) -> list[Any]:
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", s)]


def host_to_id(host: str) -> str | None:
    """``pod0-node12`` -> ``pod0/node12``; ``pod0-node12-l1sw4`` / ``pod0-l2plane4-sw07`` -> the chip id."""
    if m := _L1_HOST.fullmatch(host):
        return f"pod{m[1]}/node{m[2]}/l1sw{m[3]}"
    if m := _L2_HOST.fullmatch(host):
        return f"pod{m[1]}/l2plane{m[2]}/sw{int(m[3]):02d}"
    if m := _NODE_HOST.fullmatch(host):
        return f"pod{m[1]}/node{m[2]}"
    return None


def ip_to_node(ip: str) -> str | None:
    """The twin's management-address convention (``faultlib.telemetry.formats.host_ip``) read backwards, as
    :func:`opsbrain.ingest.parse_line` does for ``remote[...]``."""
    m = _IP_NODE.match(ip)
    if not m or int(m[3]) < 1:
        return None
    return f"pod{int(m[1])}/node{int(m[2]) * 250 + int(m[3]) - 1}"


def switch_of_host(switch: str, workers: dict[str, dict[str, Any]]) -> str | None:
    """A switch chip named after a host of the bundle (``gz-a3-r07-n36-l1sw2``: the L1 chip inside that host, as an
    Atlas A3 node holds its own): that host's node id and the chip's own name (``pod0/node4/l1sw2``); None for a
    switch named otherwise (it keeps its own name)."""
    node_of: dict[str, str] = {}
    for w in workers.values():
        for name in {w.get("name") or "", w["dir"].rsplit("/", 1)[-1], *w.get("hosts", [])}:
            node_of.setdefault(name, w["node"])
    found = chip_host(switch, node_of)  # (the rule --logs DIR places a chip's lines by too)
    return f"{node_of[found[0]]}/{found[1]}" if found else None


UNNAMED = ""
"""The name of a worker whose host nothing names (the files of a directory given that a tool named by its run time,
msnpureport's ``20250301100600/``, session 35, or that only holds logs, ``var/``, session 36): its lines are on no
named host, as ``--logs`` reads them."""


def map_workers(files: list[_File], root_name: str) -> dict[str, dict[str, Any]]:
    """Worker directory -> its node id, how it was named, its syslog host names, addresses (filled later) and files.
    Directories of one host (an asys collection's folder and the directory above it: :func:`asys.host_dirs`) share
    a node."""
    workers: dict[str, dict[str, Any]] = {}
    raw = sorted({f.kind.worker for f in files if f.kind.worker is not None}, key=natural_key)
    host_of = host_dirs(raw)
    dirs = sorted(set(host_of.values()), key=natural_key)
    hosts: dict[str, Counter[str]] = defaultdict(Counter)
    own: dict[str, Counter[str]] = defaultdict(Counter)  # the host side's syslog only (hostnames.host_syslog)
    for f in files:
        if f.kind.kind == L.MESSAGES:
            mine = host_syslog(f.rel)
            for ln in f.lines[:SCAN_LINES]:
                if m := SYSLOG_HOST.match(ln):
                    hosts[host_of[f.kind.worker or ""]][m.group(1)] += 1
                    if mine:
                        own[host_of[f.kind.worker or ""]][m.group(1)] += 1
    host_of, dirs = _same_host_collections(host_of, dirs, hosts)
    taken: set[str] = set()
    named: dict[str, tuple[str, str]] = {}
    for d in dirs:
        base = d.rsplit("/", 1)[-1] if d else root_name
        nid = host_to_id(base)
        how = "directory name"
        if nid is None or "/node" not in nid or nid.count("/") != 1:
            nid, how = None, ""
            for h, _n in hosts[d].most_common():
                cand = host_to_id(h)
                if cand and cand.count("/") == 1:
                    nid, how = cand, f"host name {h} in messages"
                    break
        if nid is not None and nid not in taken:
            taken.add(nid)
            named[d] = (nid, how)
    k = 0
    for d in dirs:
        if d in named:
            continue
        while f"pod0/node{k}" in taken:
            k += 1
        named[d] = (f"pod0/node{k}", "sorted order")
        taken.add(f"pod0/node{k}")
    cut = shared_head(dirs)  # named from where their paths differ (collected/job/worker-0 -> worker-0), as --logs
    subs = _env_names(files, host_of)
    # the root given names its files' host, unless a tool named it by its run time (msnpureport's 20250301100600/) or
    # its name only says it holds logs (var/, npu/): then the host is not named (UNNAMED), as under --logs
    # (hostnames.unnamed_root), unless its syslog names it
    label = {d: subs.get(d) or job_log_host(d) or d[cut:] or (UNNAMED if unnamed_root(root_name) else root_name or ".")
             for d in dirs}
    # a replica's or a collection's folder whose syslog names one host: that host (worker-1 -> node-a12)
    label |= real_names({d: (label[d], own.get(d)) for d in dirs if not names_no_host(d, False)})
    for r in raw:
        d = host_of[r]
        nid, how = named[d]
        workers[r] = {"dir": r or ".", "name": label[d], "node": nid,
                      "named_by": how, "hosts": sorted(hosts[d]), "ips": [], "files": 0}
    for f in files:
        if f.kind.worker is not None:
            workers[f.kind.worker]["files"] += 1
    return workers


def _env_names(files: list[_File], host_of: dict[str, str]) -> dict[str, str]:
    """Host directory -> the name its one ``environment_check/<name>/`` sub-directory gives it (``worker-5``; the
    collection names each worker so, whatever folder holds it: ``out/environment_check/worker-5/``), as the rank
    analysis names it (:class:`opsbrain.ingest.ranks.RankCollector`); a directory with several such names keeps its
    own."""
    subs: dict[str, set[str]] = defaultdict(set)
    for f in files:
        if f.kind.worker is not None and "environment_check/" in f.rel and (sub := host_root(f.rel)[1]):
            subs[host_of[f.kind.worker]].add(sub)
    return {d: next(iter(s)) for d, s in subs.items() if len(s) == 1}


def _same_host_collections(host_of: dict[str, str], dirs: list[str], hosts: dict[str, Counter[str]]
                           ) -> tuple[dict[str, str], list[str]]:
    """asys collections side by side whose syslog names the same hosts are one host's, collected twice (asys run
    again on it): their directories share the first one's node. Side by side collections are otherwise read as
    several hosts' (:func:`asys.host_dirs`)."""
    first: dict[tuple[str, frozenset[str]], str] = {}
    same: dict[str, str] = {}
    for d in dirs:
        parent, _, base = d.rpartition("/")
        if OUTPUT_DIR.fullmatch(base) and hosts.get(d):
            same[d] = first.setdefault((parent, frozenset(hosts[d])), d)
    if all(a == d for d, a in same.items()):
        return host_of, dirs
    for d, a in same.items():
        if a != d:
            hosts[a].update(hosts.pop(d))
    host_of = {r: same.get(h, h) for r, h in host_of.items()}
    return host_of, sorted(set(host_of.values()), key=natural_key)


def host_ids(workers: dict[str, dict[str, Any]], root_name: str) -> dict[str, str]:
    """Names a job event may use for a node: worker directory names and syslog host names."""
    out: dict[str, str] = {}
    for w in workers.values():
        name = w["name"] if w["name"] != "." else root_name
        out[name.rsplit("/", 1)[-1] if name else root_name] = w["node"]
        for h in w["hosts"]:
            out.setdefault(h, w["node"])
        if w["dir"] != ".":  # a worker named after its syslog's host: its folder's name too (worker-1)
            out.setdefault(w["dir"].rsplit("/", 1)[-1], w["node"])
    return out


def unqualify(value: Any, hosts: dict[str, str]) -> Any:
    """The inverse of :func:`opsbrain.bundle.export.qualify`: ``<host>[/<rest>]`` -> ``<node id>[/<rest>]``."""
    if isinstance(value, str):
        host, sep, rest = value.partition("/")
        nid = hosts.get(host) or (host_to_id(host) if _NODE_HOST.fullmatch(host) else None)
        return nid + sep + rest if nid else value
    if isinstance(value, list):
        return [unqualify(v, hosts) for v in value]
    if isinstance(value, dict):
        return {(unqualify(k, hosts) if isinstance(k, str) else k): unqualify(v, hosts) for k, v in value.items()}
    return value


_READER_NODE = re.compile(r"(?<![\w/-])(pod0/node\d+)(?:(/)|(?![\w-]))")
_CITED = re.compile(r"\S+:\d+: ")
"""An evidence item citing a line of the bundle (``file:line: text``): the text as written, never rewritten."""


def user_names(workers: list[dict[str, Any]]) -> dict[str, str]:
    """The reader's node id -> the worker's name, for the workers the reader numbered (``pod0/node<k>`` in sorted
    order: real hosts); the twin's own ``pod0-node35`` directories keep their ids, which are their host names."""
    return {w["node"]: name for w in workers if w.get("named_by") == "sorted order"
            and (name := w.get("name", w["dir"])) != "."}


def in_user_terms(text: str, names: dict[str, str]) -> str:
    """A component id, or a sentence naming some, with the reader's node ids of real hosts (:func:`user_names`)
    replaced by the hosts' names: ``pod0/node2/npu3/hbm`` -> ``worker-3/npu3/hbm``; a host not named
    (:data:`UNNAMED`) is left out of a part's id (``npu3/hbm``, as ``--logs`` names it) and said to be unnamed alone."""
    if not names or "pod0/node" not in text:
        return text

    def named(m: re.Match[str]) -> str:
        name = names.get(m.group(1))
        if name is None:
            return m.group(0)
        return (name + m.group(2) if name else "") if m.group(2) else (name or NO_NAME)
    return _READER_NODE.sub(named, text)


NO_NAME = "the host (not named)"
"""A host not named (:data:`UNNAMED`) where a sentence names it alone."""


def _component(comp: str, names: dict[str, str]) -> str | None:
    """A component id in the user's terms; None for the node of a host not named (as ``--logs`` names none)."""
    mine = in_user_terms(comp, names)
    return None if mine == NO_NAME else real_component(mine)


def diagnosis_in_user_terms(d: dict[str, Any] | None, names: dict[str, str]) -> None:
    """A bundle diagnosis (a dict, changed in place) whose ``component``, ``root.component`` and evidence name real
    hosts by the reader's ids: named as the bundle names them; the reader's id kept in ``internal_component``
    (docs/bundles.md). Twin bundles (no numbered host) are left as they are."""
    if not d or not names:
        return
    comp = d.get("component")
    if isinstance(comp, str) and (mine := _component(comp, names)) != comp:
        d["internal_component"], d["component"] = comp, mine  # (no twin-only part on a real host: where.py)
    root = d.get("root")
    if isinstance(root, dict) and isinstance(root.get("component"), str):
        root["component"] = _component(root["component"], names)
    if isinstance(d.get("evidence"), list):
        d["evidence"] = [in_user_terms(e, names) if isinstance(e, str) and not _CITED.match(e) else e
                         for e in d["evidence"]]


def root_in_user_terms(comp: str | None, workers: list[dict[str, Any]],
                       chips: Mapping[str, ChipMap] | None = None) -> dict[str, Any]:
    """A component in the operator's terms: the worker directory's own name when the reader numbered it (the
    bundle's own name for the files at its root, as the root cluster names them). A real host's device: a die's
    logic id by its npu-smi table (``chips``, :attr:`BundleRead.chips`); where its npu-smi output shows no product,
    ``device_ids`` says its ids are read as written (session 38)."""
    node = "/".join(comp.split("/")[:2]) if comp else None
    mine = (chips or {}).get(node or "")
    out = user_terms(comp, mine)
    for w in workers:
        if w["node"] == node and w["named_by"] == "sorted order":
            out["host"] = w.get("name", w["dir"]) or None  # (None: a host not named, hosts.UNNAMED)
            if out.get("device") is not None:
                out["device_ids"] = NO_PRODUCT if mine is None else f"{mine.product} ({mine.by})"
    return out


NO_PRODUCT = "as written: no npu-smi output of the host's tells Atlas A2 from A3 (docs/formats.md)"
"""A real host's root device whose numbering nothing showed: the id as its logs print it (on A3 a die's logical
id, on A2 the NPU's)."""
