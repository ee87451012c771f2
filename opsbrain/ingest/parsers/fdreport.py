"""MindCluster FaultDiag (``ascend-fd diag``) reports an operator pastes: the tool's own verdict, read as evidence.

The report is a prettytable of ``| title | indicator | description |`` rows (Ascend/mind-cluster
component/ascend-faultdiag/src/ascend_fd/wrapper/print_wrapper.py @22bb3d98, ``_format_fault_attr``,
``_format_fault_class``, ``_parse_fault_detail``), its indicator names from utils/i18n.py (``label_zh`` /
``label_en``): 故障分类 / Fault Category, 故障名称 / Fault Name, 故障设备 / Faulty Device(s), 根因节点 / Root Cause
Node(s) ... Older English reports (the MindCluster documentation's examples) print ``Fault type``, ``Fault`` and
``Faulty device``; older Chinese ones ``类别:`` for ``类型:``. Read here:

- the fault category row ``类型:<class> 组件:<component> 模块:<module>`` (``Type: Software Component: MindIE Module:
  LLM``): the knowledge graph's class/component/module attributes of the fault (kg-config.json), as two signals,
  ``fd:<class>/<component>/<module>`` and ``fd:<class>`` (the party: hardware, software, user, network), each part
  lower-cased, spaces as ``_`` and a ``/`` inside a part (``Software/Hardware``) as ``+``; the reviewed mapping to
  classes is knowledge_base/fd_categories.yaml;
- the faulty-device and root-cause-node rows as ``fd:place`` / ``fd:rootnode`` signals naming the device
  (``['worker-0 device-2']``, ``['LCNE:10.0.0.5']``, ``['worker-2']``), which :func:`opsbrain.ingest.derive.fd_placed`
  turns into the place of the category signals (they are no evidence of their own);
- the rows that are the report's own words (fault description, suggestion, symptom, note, status code, chains) are
  explained with no signal: a software fault's description that names a hardware part, or the root-cluster symptom
  ``所有Plog中无超时信息`` (no timeout in any plog), is no fault of its own; but the root-cause scenario of an error CQE
  (:data:`RE_CQE_SCENE`) is the plogs' finding and reads as one. Key-log rows are left to the other parsers (they
  are the log lines the tool matched).

The fault name row is matched against an imported knowledge graph's names by :mod:`opsbrain.kb.matcher`
(:func:`fault_name`)."""

from __future__ import annotations

import re

from opsbrain.ingest import where
from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened
from opsbrain.lazyre import lazy_compile

FD_PLACE = "fd:place"
FD_ROOT = "fd:rootnode"
PLACES = (FD_PLACE, FD_ROOT)

_CATEGORY = r"故障分类|Fault Category|Fault type"
_NAME = r"故障名称|Fault Name|Fault"
_DEVICE = r"故障设备|故障节点|Faulty Devices?(?:\(s\))?|Faulty Workers"
_ROOT = r"根因节点|Root Cause Nodes?(?:\(s\))?"
_CODE = r"状态码|Status Code"
_QUIET = (r"故障描述|建议方案|现象描述|结果描述|说明|错误码|关键传播链|卡间等待链|根因节点链|"
          r"首错节点|尾错节点|故障区间|故障概率|故障进程|错误示例|正确示例|日志说明|"
          r"Fault Description|Handling Suggestions?|Symptom(?: Description)?|Note|"
          r"Error Code|Fault Propagation Chain|Inter-Device Waiting Chain|Root Cause Node Chain|First Error Device|"
          r"Last Error Device|Fault Occurrence Period|Fault Probability|Fault Process|Incorrect Example|"
          r"Correct Example|Log Specification")


def _row(labels: str) -> str:
    """A table row whose indicator cell is one of ``labels``: group 1 the label, group 2 the description cell."""
    return rf"^\s*\|[^|]*\|\s*({labels})\s*\|\s*(.*?)\s*\|?\s*$"


RE_CATEGORY_ROW = screened(_row(_CATEGORY), re.I)
RE_DEVICE_ROW = screened(_row(f"{_DEVICE}|{_ROOT}"), re.I)
RE_QUIET_ROW = screened(_row(f"{_QUIET}|{_CODE}|{_NAME}"), re.I)
RE_NAME_ROW = lazy_compile(_row(_NAME), re.I)  # read by the knowledge matcher, not here (no signal of its own)
RE_CODE_ROW = lazy_compile(_row(_CODE), re.I)
RE_TRIPLE = lazy_compile(r"(?:类型|类别|Type)\s*[:：](?>(.+?)\s(?:组件|Component)\s*[:：])"
                         r"(?>(.+?)\s(?:模块|Module)\s*[:：])(.+)$", re.I)
"""The class, component and module of a category cell (``类型:Network 组件:Switch 模块:Chip``), each read up to
the first label after it; its groups keep the spaces around the words (:func:`_part` strips them). Written so in
session 42: ``\\s*(.+?)\\s+`` around each part split a run of spaces three ways (4 s on a 500-character cell),
and the atomic groups stop retrying a later label, which can only succeed where the first one did."""
RE_JSON_PART = screened(r'^\s*"(class|component|module)"\s*:\s*"([^"]{1,80})"\s*,?\s*$')
RE_JSON_WORDS = screened(r'^\s*"(?:cause|description|suggestion)_(?:zh|en)"\s*:')
RE_JSON_NAME = lazy_compile(r'^\s*"cause_(?:zh|en)"\s*:\s*"([^"]+)"\s*,?\s*$')
RE_JSON_CODE = lazy_compile(r'^\s*"code"\s*:\s*"([^"]+)"\s*,?\s*$')
JSON_PART = "fd~"
"""diag_report.json (json_wrapper.py ``get_format_json``: ``json.dumps(..., indent=4)``) prints each fault's
knowledge-graph attributes one key a line (``"class": "Network",`` ``"component": "Switch",`` ``"module": "Chip",``;
kg_diag_job.py builds the fault from the entry's attributes): each line is a part (``fd~class:network``) that
:func:`opsbrain.ingest.derive.fd_placed` joins into the category kinds when all three stand together."""
RE_LCNE = lazy_compile(r"\bLCNE\s*:\s*([0-9A-Za-z][\w.:*-]*)", re.I)
_ROOT_LABEL = lazy_compile(_ROOT, re.I)
RE_CQE_SCENE = lazy_compile(r"RoCE重传超次\s*[(（]ERROR CQE[)）]|Excessive RoCE retransmissions \(ERROR CQE\)", re.I)
"""The root-cause analysis's scenario 116, CQE_ERROR (ascend_fd pkg/diag/root_cluster/utils.py: the plogs' error-CQE
links, ``cqe_link_map``, name the root devices), in its description row:
``部分节点发生RoCE重传超次(ERROR CQE)，此类节点为疑似根因节点，请排查。`` / ``Excessive RoCE retransmissions
(ERROR CQE) occur on some nodes. These nodes may be the root cause nodes. Check them.`` (utils/i18n.py
``fault_descriptions_zh`` / ``_en`` 116, Ascend/mind-cluster @22bb3d98; the MindCluster FaultDiag guide's scenario
table, mindxdlFDUG045: 116 CQE_ERROR). The tool's finding is the plogs' ``error cqe``, RoCE retransmissions past the
limit: read as HCCL's own record of it is (``hccl:rdma_error``, :mod:`opsbrain.ingest.parsers.hccl`
``EXCEPTION_KINDS``), not as the report's quiet words. Session 45, tester45c: the guide's Chinese sample report
(mindxdlFDUG029) gave no signal and read config_error 0.30 from the text model."""

_ANY = group_of(globals())


def _part(v: str) -> str:
    return re.sub(r"\s+", "_", v.strip().lower()).replace("/", "+") or "unknown"


def category_kinds(cell: str) -> list[str]:
    """``fd:<class>/<component>/<module>`` and ``fd:<class>`` from a fault category cell; [] when it is not one."""
    m = RE_TRIPLE.search(cell)
    if m is None:
        return []
    cls, comp, mod = (_part(g) for g in m.groups())
    return [f"fd:{cls}/{comp}/{mod}", f"fd:{cls}"]


def fault_name(text: str) -> str | None:
    """The fault name a report row (``|  | 故障名称 | 转发引擎模块功能失效 |``) or a diag_report.json line
    (``"cause_zh": "..."``) gives, or None."""
    m = RE_NAME_ROW.match(text) if "|" in text else RE_JSON_NAME.match(text) if '"cause_' in text else None
    return (m.group(m.lastindex or 1).strip() or None) if m else None


def status_code(text: str) -> str | None:
    """The status code (the knowledge-graph entry id) a report row or a diag_report.json ``"code"`` line gives."""
    m = RE_CODE_ROW.match(text) if "|" in text else RE_JSON_CODE.match(text) if '"code"' in text else None
    return (m.group(m.lastindex or 1).strip() or None) if m else None


def _place(ctx: LineCtx, cell: str) -> tuple[str | None, int | None]:
    """The component the first device of a device-list cell names, and its device index."""
    first = cell.strip("[] ").split(",", 1)[0].strip(" '\"")
    if (m := RE_LCNE.search(first)) is not None:
        return f"LCNE:{m.group(1)}", None
    host = where.host_in(first)
    dev = where.device_in(first)
    node = where.node_component(host) if host else None
    return (where.npu_component(node, dev) or node), dev


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):
        return False
    if '"' in ctx.text and "|" not in ctx.text:
        if (m := RE_JSON_PART.match(ctx.text)) is not None:
            ctx.add(f"{JSON_PART}{m.group(1)}:{_part(m.group(2))}", None, 2)
            return True
        return RE_JSON_WORDS.match(ctx.text) is not None  # the entry's own words, not a log line
    if "|" not in ctx.text:
        return False
    if (m := RE_CATEGORY_ROW.match(ctx.text)) is not None:
        for kind in category_kinds(m.group(2)):
            ctx.add(kind, None, 2)
        return True
    if (m := RE_DEVICE_ROW.match(ctx.text)) is not None:
        comp, dev = _place(ctx, m.group(2))
        if comp is not None:
            ctx.add(FD_ROOT if _ROOT_LABEL.fullmatch(m.group(1)) else FD_PLACE, comp, 0, device=dev)
        return True
    if (m := RE_QUIET_ROW.match(ctx.text)) is None:
        return False
    if RE_CQE_SCENE.search(m.group(2)):  # the root-cause scenario of an error CQE: the plogs' finding, read as such
        ctx.add("hccl:rdma_error", None, max(ctx.sev, 1))
    return True  # the report's own words: no fault of their own


def own_words(text: str) -> bool:
    """True for a row that is the report's own words (description, suggestion, symptom, note, name, status code; in
    diag_report.json the cause, description and suggestion keys): no log line the knowledge base should match as it
    would a log's (the name and code rows are matched by name)."""
    if "|" in text:
        return RE_QUIET_ROW.match(text) is not None
    return '"' in text and RE_JSON_WORDS.match(text) is not None
