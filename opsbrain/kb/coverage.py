"""How much of each documented code table the knowledge base reads: ``opsbrain kb coverage``.

A documented table (``knowledge_base/code_tables/*.yaml``: the codes a source lists, with their documented names,
and the source) is the yardstick; the knowledge base is what is measured. Each code is written into a line of the
real form that code takes in a log (:data:`PROBES`), that line goes through the ingestion layer like any input,
and the signal kinds the code adds (those of the line without the code taken away) are looked up in the kind
table diagnosis uses. A code then reads as one of:

- ``class``: at least one class takes it as a primary or secondary signature;
- ``ambiguous``: classes take it, but only as ambiguous (a generic code: it combines with context);
- ``category``: a documented row (codes.yaml) gives it a category that speaks for no class (``informational``);
- ``unknown``: the ingestion layer reads the code, the knowledge base says nothing about it;
- ``not read``: no signal kind comes from the code (the parsers do not read that form, or refuse it on purpose).

*Known* = class + ambiguous + category. The MindCluster fault-level file (``faultCode.json``, ``SwitchFaultCode.json``)
is measured from a path the user gives (the project ships no vendor file): :func:`faultlevel_table`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opsbrain.errors import InputError

OUTCOMES = ("class", "ambiguous", "category", "unknown", "not read")
KNOWN = frozenset(OUTCOMES[:3])
BLANK = "X"  # what stands in the probe line for the code, for the line's own signals

PROBES: dict[str, str] = {
    # CANN error-code table: the error manager's report line (vllm-ascend#7310: 'EE1003: [PID: 30776] ...')
    "ecode": "{code}: [PID: 30776] 2026-03-16-07:55:33.842.415",
    # AscendCL / runtime / GE return codes as the application prints them (formats.md, cann parser)
    "acl": "[ERROR] aclrtSynchronizeStream(stream) failed: {code}",
    # aclnn return codes as torch_npu relays an aclnn call's status (NPU_CHECK_ERROR; Ascend/pytorch#90)
    "aclnn": "RuntimeError: copy_d2d_baseformat_opapi:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:88 NPU "
             "function error: call aclnnInplaceCopy failed, error code is {code}",
    # torch_npu's error-code line (Ascend/pytorch error_code_information.md, formats.md)
    "torch_npu": "[ERROR] 2024-06-20-10:41:32 (PID:59450, Device:-1, RankID:-1) {code}",
    # HCCL API return codes relayed by torch_npu (vllm-ascend#2712)
    "hcclret": "RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:148 HCCL function "
               "error: hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), "
               "error code is {code}",
    # the runtime's inner numbers (RT_ERROR_*) in its trace lines (hicann/runtime docs/zh/FAQ/EE1023资源不足问题.md)
    "rt_inner": "[ERROR] RUNTIME(227839,rtstest_host):2026-07-13-11:39:20.982.619 [capture_model.cc:1158]227839 "
                "BuildSqCq:alloc all sqcq failed, stream_id=61, model_id=63, retCode={code}.",
    # DCMI return codes in device-plugin lines (Project-HAMi/ascend-device-plugin#66)
    "dcmi": "get cur vDev's activity info failed, err: retCode: {code}",
    # device-os / DSMI fault events (the form MindSpore's UCE handler parses: mindspore ccsrc, ExtractUceTime)
    "device": "device_id=3, event_id=0x{code}, time us=1.",
    # the device plugin's switch fault tuple (ascend-fd fixtures dl_log/devicePlugin)
    "switch": 'switch subscribe got fault:deviceswitch.SwitchFaultEvent{AssembledFaultCode:"{code}"}',
}


@dataclass
class CodeTable:
    """A documented code table: its id, title, source, the probe form of its codes and the codes with their names."""

    id: str
    title: str
    source: str
    probe: str
    rows: list[dict[str, Any]]


@dataclass
class TableCoverage:
    table: CodeTable
    outcome: dict[str, str] = field(default_factory=dict)  # code -> outcome
    classes: dict[str, list[str]] = field(default_factory=dict)  # code -> classes (any role)

    @property
    def known(self) -> int:
        return sum(1 for o in self.outcome.values() if o in KNOWN)

    @property
    def total(self) -> int:
        return len(self.outcome)

    def counts(self) -> dict[str, int]:
        c = Counter(self.outcome.values())
        return {o: c.get(o, 0) for o in OUTCOMES}

    def as_dict(self, missing: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {"table": self.table.id, "title": self.table.title, "source": self.table.source,
                             "known": self.known, "rows": self.total,
                             "share": round(self.known / self.total, 3) if self.total else None, **self.counts()}
        if missing:
            names = {str(r["code"]): r.get("name", "") for r in self.table.rows}
            d["missing"] = [{"code": c, "name": names.get(c, ""), "outcome": o}
                            for c, o in self.outcome.items() if o not in KNOWN]
        return d


def tables_dir() -> Path:
    import knowledge_base

    return knowledge_base.package_dir() / "code_tables"


def read_table(path: Path) -> CodeTable:
    """One table file (``table``, ``title``, ``source``, ``probe``, ``rows: [{code, name}]``); bad input: InputError."""
    from opsbrain.yamlio import read_yaml

    doc = read_yaml(path)
    if not isinstance(doc, dict):
        raise InputError("a code table must be a mapping", file=str(path), path="(top)")
    for key in ("table", "source", "probe", "rows"):
        if key not in doc:
            raise InputError(f"missing {key!r}", file=str(path), path="(top)")
    for key in ("table", "source", "probe", "title"):  # session 34: 'probe: []' was a TypeError traceback
        if key in doc and not (isinstance(doc[key], str) and doc[key].strip()):
            raise InputError("expected text", file=str(path), path=key)
    if doc["probe"] not in PROBES:
        raise InputError(f"unknown probe {doc['probe'][:80]!r} (one of {', '.join(PROBES)})", file=str(path),
                         path="probe")
    rows = doc["rows"]
    if not isinstance(rows, list) or not all(isinstance(r, dict) and "code" in r for r in rows):
        raise InputError("rows must be a list of mappings with a code", file=str(path), path="rows")
    for k, r in enumerate(rows):  # a code is a number or a word: a list, a mapping or 1.5 was counted as a row
        code = r["code"]
        if not (type(code) is int or (isinstance(code, str) and code.strip())):
            raise InputError("a code is a whole number or text", file=str(path), path=f"rows[{k}].code")
        if not isinstance(r.get("name", ""), str):
            raise InputError("expected text", file=str(path), path=f"rows[{k}].name")
    return CodeTable(str(doc["table"]), str(doc.get("title", doc["table"])), str(doc["source"]), str(doc["probe"]),
                     rows)


def shipped_tables() -> list[CodeTable]:
    return [read_table(p) for p in sorted(tables_dir().glob("*.yaml"))]


def faultlevel_table(path: str | Path) -> CodeTable:
    """MindCluster's fault-level file as a table (device ``faultCode.json`` or switch ``SwitchFaultCode.json``): its
    codes, named by their handling level, read by the importer (nothing is saved)."""
    from opsbrain.kb.importers import import_faultcode

    rep = import_faultcode(path, save=False)
    switch = any(str(e["code"]).startswith("[") for e in rep.entries)
    name = Path(path).name
    return CodeTable(f"mindcluster_{'switch' if switch else 'device'}_fault_levels",
                     f"MindCluster fault-level file {name} (hex event ids by handling level)", str(path),
                     "switch" if switch else "device", [{"code": e["code"], "name": e["level"]} for e in rep.entries])


def _kinds(line: str) -> set[str]:
    from opsbrain.ingest import ingest_text

    sigs, _ = ingest_text(line)
    return {s.kind.removesuffix(":recover") for s in sigs}


def category_kinds() -> set[str]:
    """Signal kinds a documented codes.yaml row gives a category to (classes or not)."""
    from opsbrain.diagnosis.knowledge import documented_rows

    return {k for kinds, _row in documented_rows() for k in kinds}


def measure(table: CodeTable, kind_table: Any | None = None, documented: set[str] | None = None) -> TableCoverage:
    """The outcome of every code of ``table`` (default kind table: the shipped knowledge base's)."""
    from opsbrain.diagnosis.knowledge import default_table

    kt = kind_table or default_table()
    documented = category_kinds() if documented is None else documented
    form = PROBES[table.probe]
    base = _kinds(form.replace("{code}", BLANK))
    cov = TableCoverage(table)
    for row in table.rows:
        code = str(row["code"])
        added = _kinds(form.replace("{code}", code)) - base
        roles = [(c, r) for k in sorted(added) for c, r in kt.of(k)]
        if not added:
            outcome = "not read"
        elif any(r != "ambiguous" for _c, r in roles):
            outcome = "class"
        elif roles:
            outcome = "ambiguous"
        elif added & documented:
            outcome = "category"
        else:
            outcome = "unknown"
        cov.outcome[code] = outcome
        cov.classes[code] = sorted({c for c, _r in roles})
    return cov


def coverage(tables: Iterable[CodeTable], kind_table: Any | None = None) -> list[TableCoverage]:
    documented = category_kinds()
    return [measure(t, kind_table, documented) for t in tables]
