"""What the knowledge base says about signal kinds, as features: for every class, how many signals of the
incident are that class's primary, secondary or ambiguous signatures; and which imported vendor entries, mapped
to a class by the reviewed ``knowledge_base/vendor_map.yaml``, the incident's lines match.

A code listed by three or more classes is ambiguous whatever role a class gives it (real stacks reuse it)."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from opsbrain.ingest import Signal
from opsbrain.ingest.parsers.device import stated_level_severity
from opsbrain.lazyre import lazy_compile

AMBIGUOUS_AT = 3
ROLES = ("primary", "secondary", "ambiguous")
SWITCH_KIND = "swfault:"
"""The kind of a switch fault tuple keeps only its alarm id, not the peer type (L1 or L2 end) or fault id that tell
the classes' tuples apart. An alarm id that three or more classes list is the link-down alarm (0x08520003) that every
link event prints, background flaps included: it counts for no class (as before switch tuples had kinds); an alarm id
one class owns (the L1 chip's forwarding-engine failure 0x00f103b0) counts for it."""


def code_kinds(family: str, code: str) -> list[str]:
    """The signal kinds the ingestion layer gives a knowledge-base code."""
    if family == "device":
        return [f"dev:{code}", f"plugin:{code}"]
    if family == "runtime":
        return [f"rt:{code}"]
    if family == "hccl":
        return [f"hccl:{code}"] if code.startswith("EI") else [f"err:{code}"]
    if family == "switch" and (m := re.search(r"0x([0-9a-f]{8})", code, re.I)):
        return [f"swfault:{m.group(1).upper()}"]  # the alarm id of the tuple, as the device parser names it
    return []


@dataclass
class KindTable:
    """signal kind -> [(class, role)], from the knowledge base's codes and signal signatures."""

    roles: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    @classmethod
    def from_kb(cls, kb: Any) -> KindTable:
        raw: defaultdict[str, dict[str, str]] = defaultdict(dict)
        for fc in kb:
            sig = fc.signatures
            for family, cs in sig.codes():
                for kind in code_kinds(family, cs.code):
                    raw[kind].setdefault(fc.id, cs.role)
            for s in sig.signals:
                raw[s.kind][fc.id] = s.role
            raw[f"vendor:{fc.id}"][fc.id] = "primary"  # an imported vendor entry mapped to this class (vendor_map)
        for kind, by_class in documented_kinds().items():
            for cls_id, role in by_class.items():
                raw[kind].setdefault(cls_id, role)  # a class's own signature wins over the category table
        roles = {}
        for kind, by_class in sorted(raw.items()):  # (kind order: the same in every process, whatever its hash seed)
            amb = len(by_class) >= AMBIGUOUS_AT
            if amb and kind.startswith(SWITCH_KIND):
                continue  # see SWITCH_KIND
            roles[kind] = sorted((c, "ambiguous" if amb else r) for c, r in by_class.items())
        return cls(roles)

    def of(self, kind: str) -> list[tuple[str, str]]:
        return self.roles.get(kind.removesuffix(":recover"), []) if not kind.endswith(":recover") else []

    def features(self, signals: Iterable[Signal]) -> dict[str, float]:
        import math

        c: Counter[str] = Counter()
        for s in signals:
            for cls_id, role in self.of(s.kind):
                c[f"kb:{cls_id}:{role}"] += 1
        return {k: math.log1p(n) for k, n in c.items()}


TORCH_NPU_MODULES = {"PTA": 0, "OPS": 1, "DIST": 2, "GRAPH": 3, "PROF": 4}
"""torch_npu error codes are ``ERR<module><type>`` (two digits, three digits): the submodules of torch_npu's
``SubModule`` enum (torch_npu/csrc/core/npu/NPUException.h); error_code_information.md gives a type's meaning for
every module (``ERR**002``: invalid type)."""


def documented_rows() -> list[tuple[list[str], dict[str, Any]]]:
    """Every documented row of knowledge_base/codes.yaml (runtime, aclnn, CANN and device codes, HCCL's API return
    codes as ``hcclret:N``, one row per message category) with the signal kinds the ingestion layer gives its code."""
    from opsbrain.yamlio import read_package_yaml

    codes = read_package_yaml(Path(str(resources.files("knowledge_base"))) / "codes.yaml") or {}
    out: list[tuple[list[str], dict[str, Any]]] = []
    for row in [*(codes.get("acl_runtime", []) or []), *(codes.get("aclnn_status", []) or [])]:
        out.append(([f"rt:{row['code']}"], row))  # aclnn return codes (161xxx/361xxx/561xxx) share AscendCL's kinds
    for row in codes.get("cann_error_codes", []) or []:
        c = str(row["code"]).upper()
        if c.startswith("ERR**"):  # a torch_npu error type whatever the submodule: ERR<2-digit module><type>
            out.append(([f"err:ERR{m:02d}{c[5:]}" for m in TORCH_NPU_MODULES.values()], row))
        else:
            out.append(([f"hccl:{c}" if c.startswith("EI") else f"err:{c}"], row))
    for row in codes.get("device_event_codes", []) or []:
        c = str(row["code"]).upper().removeprefix("0X")
        out.append(([f"dev:{c}", f"plugin:{c}"], row))
    for row in codes.get("hccl_results", []) or []:
        out.append(([f"hcclret:{int(row['code'])}"], row))
    from opsbrain.ingest.parsers.messages import PART_SECTIONS

    parts = [r for sec in ("messages", *PART_SECTIONS) for r in (codes.get(sec, []) or [])]
    for cat in sorted({str(r.get("category")) for r in parts}):  # every message table gives msg:<category>
        out.append(([f"msg:{cat}"], {"category": cat}))
    return out


NO_ACTION = 1
"""MindCluster handling levels that ask for no action (MindCluster's fault-level configuration, facts.md §3; their
severity by :func:`opsbrain.ingest.parsers.device.stated_level_severity`, whatever the spelling): a
device event documented at one of them (codes.yaml ``level``) supports the class its category speaks for, but does
not name it: the category table's ``primary`` becomes ``secondary`` for that code. The vendor rates the event
informational, so it alone is no confident fault of a class that acts (0x80E01809, multi-bit ECC errors found while
the HBM is scrubbed, NotHandle, was a lone hbm_uce at 0.64). A class whose own signature lists such a code with its
level (hbm_ce_storm's 80E01805, roce_port_down's 81078603) keeps the role it gives."""


def documented_kinds() -> dict[str, dict[str, str]]:
    """signal kind -> {class: role} from the documented code and message table (:func:`documented_rows`), the
    reviewed category -> class table (knowledge_base/categories.yaml) and the reviewed FaultDiag category table
    (knowledge_base/fd_categories.yaml: ``fd:<class>/<component>/<module>`` and ``fd:<party>`` kinds)."""
    from opsbrain.yamlio import read_package_yaml

    base = Path(str(resources.files("knowledge_base")))
    cats = read_package_yaml(base / "categories.yaml") or {}
    out: dict[str, dict[str, str]] = {}
    for kinds, row in documented_rows():
        for cls_id, role in (cats.get(row.get("category")) or {}).items():
            if role == "primary" and stated_level_severity(str(row.get("level", ""))) == NO_ACTION:
                role = "secondary"  # see NO_ACTION
            for kind in kinds:
                out.setdefault(kind, {})[cls_id] = "ambiguous" if row.get("ambiguous") else role
    fd = read_package_yaml(base / "fd_categories.yaml") or {}
    for row in fd.get("rows", []) if isinstance(fd, dict) else []:  # a FaultDiag report's fault categories
        out.setdefault(f"fd:{row['kind']}", {}).update(row.get("classes") or {})
    return out


TIMEOUT_CATEGORY = "timeout"
"""The documented category of the runtime's task-execution timeouts (knowledge_base/codes.yaml ``acl_runtime``: an AI
Core, vector core, AI CPU or FFTS+ task, a stream or event synchronisation that ran past its time). The documents say
that a task on the device did not finish in time, not whose task it was nor why: a kernel that never ends, a collective
waiting on a peer (FFTS+ tasks carry HCCL's too), a hung core. categories.yaml reads the category for the classes of
all three alike (ambiguous), so alone it decides none (:func:`opsbrain.diagnosis.triage.undecided_timeouts`)."""


def documented_timeouts() -> dict[str, str]:
    """``rt:<code>`` -> its name and documented meaning, for every runtime code of :data:`TIMEOUT_CATEGORY`."""
    out: dict[str, str] = {}
    for kinds, row in documented_rows():
        if row.get("category") == TIMEOUT_CATEGORY and row.get("name") and kinds[0].startswith("rt:"):
            out[kinds[0]] = f"{row['name']}: {str(row.get('meaning', '')).rstrip('.')}"
    return out


COMM_TIMEOUT_CATEGORY = "comm_timeout"
"""The documented category of a collective's timeouts (knowledge_base/codes.yaml: EI0002 notify wait, EI0006 get
socket, EI0015 root-info detection, torch_npu's distributed-module timeouts; their error-code messages'
``msg:comm_timeout``): a rank saying that it waited for other ranks in vain."""


@lru_cache(maxsize=1)
def wait_report_kinds() -> frozenset[str]:
    """The signal kinds that are a rank's report of a collective's wait or timeout: every documented code and message
    category of :data:`COMM_TIMEOUT_CATEGORY` and the HCCL parser's wait kinds
    (:data:`opsbrain.ingest.parsers.hccl.WAIT_KINDS`). The part such a signal names is the reporting rank's: a witness
    of the fault (any rank of the job reports it), not its subject (session 43, link43b)."""
    from opsbrain.ingest.parsers.hccl import WAIT_KINDS

    documented = {k for kinds, row in documented_rows() if row.get("category") == COMM_TIMEOUT_CATEGORY for k in kinds}
    return frozenset(documented | WAIT_KINDS)


@lru_cache(maxsize=1)
def default_table() -> KindTable:
    """The kind table of the shipped knowledge base (read once; the knowledge base is immutable package data),
    from its compiled form (:mod:`opsbrain.kb.compiled`: equal to ``KindTable.from_kb(load_kb())``)."""
    from opsbrain.kb.compiled import compiled_kb

    return KindTable({k: list(v) for k, v in compiled_kb().kind_roles.items()})


def another_fault(kind: str, fault_class: str, table: KindTable | None = None) -> bool:
    """Whether the knowledge base reads a signal of ``kind`` as a fault other than one of ``fault_class``: the kind
    is a primary signature of some class and ``fault_class`` gives it no role at all (an HBM's uncorrectable-error
    event beside a flapping link). A kind it does not list, or lists only as secondary or ambiguous evidence, says
    nothing of the kind (default table: the shipped knowledge base)."""
    roles = (table or default_table()).of(kind)
    return any(role == "primary" for _, role in roles) and all(cls != fault_class for cls, _ in roles)


def default_params() -> Any:
    """The defaults of :class:`opsbrain.diagnosis.params.DiagnosisParams` as plain attributes (compiled once)."""
    from opsbrain.kb.compiled import compiled_kb

    return compiled_kb().diagnosis_params


MULTI_PARTY = "/"
"""A knowledge-graph category naming more than one party (``Software/Hardware``, ``Software/Hardware/User``): the
vendor itself does not say whose fault the entry is, so its mapped class may raise a class, never decide one."""


@dataclass(frozen=True)
class VendorRule:
    cls: str | None  # None: the entries it matches decide no class (advice only)
    id_rx: re.Pattern[str] | None
    cause_rx: re.Pattern[str] | None  # on the entry's cause and description (the description lists possible causes)
    category: str | None
    title_rx: re.Pattern[str] | None = None  # on the entry's cause alone (the fault it names)
    decides: bool = True  # False: counts only for an answer the log's own signals already give

    def applies(self, entry: Any) -> bool:
        if self.id_rx and not self.id_rx.search(str(entry.id)):
            return False
        if self.title_rx and not self.title_rx.search(str(entry.cause)):
            return False
        if self.cause_rx and not self.cause_rx.search(f"{entry.cause} {entry.description}"):
            return False
        return not (self.category and self.category.lower() != str(entry.category).lower())


def vendor_map_path() -> Path:
    return Path(str(resources.files("knowledge_base"))) / "vendor_map.yaml"


def raw_vendor_rules(path: Path | None = None) -> list[dict[str, Any]]:
    """The rules of the vendor map as written (``class``, ``id``, ``title``, ``cause``, ``category``, ``decides``)."""
    from opsbrain.yamlio import read_yaml

    doc = read_yaml(path or vendor_map_path())
    return [dict(r) for r in doc.get("rules", [])] if isinstance(doc, dict) else []


def load_vendor_rules(path: Path | None = None) -> list[VendorRule]:
    """The vendor map's rules (default: the shipped map, from the compiled knowledge base)."""
    if path is None:
        from opsbrain.kb.compiled import compiled_kb

        rows = compiled_kb().vendor_rules
    else:
        rows = raw_vendor_rules(path)
    def rx(r: dict[str, Any], key: str, flags: int = re.I) -> re.Pattern[str] | None:
        return lazy_compile(r[key], flags) if r.get(key) else None  # most diagnoses match no vendor entry

    return [VendorRule(None if r.get("class") is None else str(r["class"]), rx(r, "id", 0), rx(r, "cause"),
                       r.get("category"), rx(r, "title"), r.get("decides", True) is not False) for r in rows]


def vendor_mapping(entry: Any, rules: list[VendorRule]) -> tuple[str | None, bool]:
    """The class of the first rule that applies (None: no rule, or a rule that maps to no class) and whether the
    entry may decide it: not when the rule says it only raises, nor when the entry's category names more than one
    party (:data:`MULTI_PARTY`)."""
    for r in rules:
        if r.applies(entry):
            return r.cls, r.cls is not None and r.decides and MULTI_PARTY not in str(entry.category)
    return None, False


def vendor_class(entry: Any, rules: list[VendorRule]) -> str | None:
    """The class of the first rule that applies (None: no rule, or a rule that maps to no class)."""
    return vendor_mapping(entry, rules)[0]
