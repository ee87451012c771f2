"""Where a line comes from and what it implicates: host names and device indices as real logs write them.

Hosts are free-form: the twin's ``pod0-node7``, a syslog host field (``Mar 15 03:40:50 dn360 kernel: ...``),
``worker-3``, an IP (``server[10.20.8.111%bond1]``, ``ip=172.16.22.183``), or none at all. Devices are found in the
spellings Ascend tools use (``device_id=3``, ``device 3``, ``[dev3]``, ``devid 3``, ``device[3]``, ``npu3``,
``chip 3``, ``Ascend910-3`` (not the SoC version ``Ascend910B4-1``), ``logicDevId[0]``, ``device=1``). Component ids
follow DESIGN.md for the twin (``pod0/node7/npu3``) and use the host as written otherwise (``worker-3/npu3``,
``10.0.0.5/npu0``, ``npu3``).
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

from faultlib.ids import logical_device, npu_die
from opsbrain.ingest.chipmap import ChipMap
from opsbrain.ingest.screen import screened
from opsbrain.ingest.surface import ISO_STAMP, NOT_A_LEVEL
from opsbrain.lazyre import lazy_compile

if TYPE_CHECKING:
    from opsbrain.ingest.signal import Signal

TWIN_HOST = r"(pod\d+-node\d+(?:-l1sw\d+)?|pod\d+-l2plane\d+-sw\d+)"
RE_TWIN_HOST = screened(TWIN_HOST)
_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|1[0-2]月|0?[1-9]月"
"""A syslog head's month: English's abbreviation, or the zh_CN locale's ``12月`` (rsyslog under LANG=zh_CN.UTF-8:
``12月 05 03:10:00 gz-trn-c12 kernel: ...``), as :data:`opsbrain.ingest.timestamps.MONTH` reads its time."""
_SYSLOG_HEAD = (r"(?:<\d+>)?(?:(?:" + _MONTHS + r")\s+\d+\s+\d\d:\d\d:\d\d(?:\s+\d{4})?\s+([A-Za-z0-9][\w.\-]{0,62})\s+"
                r"(?:kernel|[\w.\-/]+(?:\[\d+\])?)"
                r"|" + ISO_STAMP + r"\s+" + NOT_A_LEVEL + r"([A-Za-z0-9][\w.\-]{0,62})\s+"
                r"(?:kernel|[\w.\-/]+\[\d+\])):")
"""A syslog head (``Dec  2 10:00:00 host prog[pid]: ``) or, stamped as ``journalctl -o short-iso`` and rsyslog's RFC
3339 file format write it, ``2025-01-01T10:00:00+0800 host-7 python[1234]: `` (session 60, probe59a; the kernel's or
a program with its pid: an application's ``<ISO stamp> ERROR main: `` names no host). The host is the first group
or the second."""
RE_SYSLOG_HOST = screened("^" + _SYSLOG_HEAD)
_HEAD_HOST = lazy_compile(_SYSLOG_HEAD)
RE_WORKER = screened(r"(?<![\w-])(worker[-_]?\d+|node[-_]\d+(?:[-_]\d+)*)(?![\w-])", re.I)
RE_IP_FIELD = screened(r"(?:server\[|ip[=:]\s*|host[=:]\s*|serverId\[|hostname[=:]\s*)"
                         r"(\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z][\w.\-]{0,62})")
MAX_DEVICE = 63  # a node has at most 16 NPUs (32 dies); a bigger "device" number is another kind of id
MAX_OPTIONS_GAP = 100
"""Characters between the tool's name and its ``-i``: a command line's options (``npu-smi set -t device-share -i 1``);
bounded, the device scan of a line is linear in its length (unbounded, it reread the line from every tool name)."""

DEVICE_FIELD_PATTERNS = (
    r"(?:logic|phy)?[dD]ev(?:ice)?[_ ]?[iI][dD]\s*[=:\[(]\s*(\d+)",   # device_id=3, deviceId:3, devId[3], dev_id=3
    r"\bdev(?:ice)? id (\d+)\b",  # the 310 driver's "dev id 0, The address does not comply with the NVMe protocol"
    r"logicDevId\[(\d+)\]", r"phydevId\[(\d+)\]", r"\bdevice(?:Phy|Logic|Logical|Physical)[_ ]?Id\s*[=:\[(]\s*(\d+)",
    r"\[devid (\d+)\]", r"\bdevid[\s=:]\s*(\d+)",
    r"\[dev(\d+)\]", r"\bdev(\d+)\b",
    r"\bdevice\s*\[(\d+)\]", r"\bdevice[=:]\s*(\d+)\b", r"\bdevice[ -](\d+)\b", r"\bdevice\((\d+)\)",
    r"\bAscend(?:910|310P?)(?:-(?:V|VPro|IPro))?-(\d+)\b(?!-)", r"\bnpu[ _-]?(?:id[\s=:]*)?(\d+)\b",
    r"\bNPU (\d+)\b", r"\bNPU=(\d+)\b",
    r"\bchip[ _]?(?:id\**[\s=:]*)?(\d+)\b",
    r"\bcard[ _-]?(\d+)\b",
)
r"""A device named in a field of the line (each pattern's one group: its index). A device name of MindCluster's device
plugin is its type and physical id, ``Ascend910-3``, ``Ascend310-0``, ``Ascend310P-2`` (Ascend/mind-cluster @22bb3d98,
component/ascend-device-plugin/pkg/device/ascendcommon.go ``fmt.Sprintf("%s-%d", ...)``; its own patterns
``^Ascend910-\d+``, ``^Ascend310-\d+``, ``^Ascend310P-\d+`` in pkg/common/common.go; the 310P product names
``Ascend310P-V``, ``-VPro``, ``-IPro`` of proto.go likewise): every 910 variant is ``Ascend910``. A SoC version
(``Ascend910B4-1``, ``Ascend910B2``, ``Ascend910_9391``: CANN's soc_version names, a compiler's ``--target``, HAMi's
resource names) names a chip model, not a device; nor does a virtual NPU's template (``Ascend910-2c-100-0``).
onnxruntime's CANN execution provider prints the current device as ``NPU=0`` (onnxruntime/core/providers/cann/
cann_call.cc: ``%s failure %d: %s ; NPU=%d ; hostname=%s ; expr=%s``, the device aclrtGetDevice returns)."""
_DEV_PATTERNS = [
    *DEVICE_FIELD_PATTERNS,
    rf"\b(?:npu-smi|hccn_tool)\b[^|;&]{{0,{MAX_OPTIONS_GAP}}}?\s-i\s*(\d+)\b",  # a query: npu-smi info -t health -i 3
]
"""Device fields as lines write them; ``chipId**:2`` is the runtime's ``chipId:2`` as vendor pages print it in bold
(hiascend troubleshooting pages render the field as ``**chipId**``). ``npu-smi ... -i 3`` and ``hccn_tool -i 3 ...``
name the device they query (``-i``: the device id, in both tools' command references), so their output is that
device's."""
RE_DEVICE = screened("|".join(f"(?:{p})" for p in _DEV_PATTERNS), re.I)
RE_DIE = screened(r"\bdie[ _]?(?:id)?[\s=:]*(\d)\b", re.I)


def twin_node(host: str | None) -> str | None:
    """``pod0-node7`` (or ``pod0-node7-l1sw3``, ``pod0-node7.example``) -> ``pod0/node7``; other hosts (``pod1-node1a``
    and ``pod1-node1b`` are two) -> None."""
    if not host:
        return None
    m = re.match(r"(pod\d+)-(node\d+)(?=$|[-.])", host)
    return f"{m.group(1)}/{m.group(2)}" if m else None


LOCAL_HOST = lazy_compile(r"localhost(?:\.localdomain)?|\(none\)", re.I)
"""A syslog head's host field that names no host: what a machine without a host name of its own logs under
(``Aug  1 08:38:31 localhost kernel: ...``, as in ascend-fd's kg_parse ``messages`` test input); the kernel's
``(none)`` likewise. Its lines are placed by the directory holding them, as lines without a host are (session 36:
``--logs node-7/`` named the host ``localhost`` where ``--bundle`` names it ``node-7``)."""


def _syslog_host(name: str) -> str | None:
    return None if LOCAL_HOST.fullmatch(name) else name


def host_in(text: str) -> str | None:
    """The host a line names or was logged on, as written (None when it names none; a syslog head's ``localhost``
    names none, :data:`LOCAL_HOST`)."""
    if m := RE_TWIN_HOST.search(text):
        return m.group(1)
    if (m := RE_SYSLOG_HOST.match(text)) and (h := _syslog_host(m.group(1) or m.group(2))):
        return h
    if m := RE_IP_FIELD.search(text):
        return m.group(1)
    if m := RE_WORKER.search(text):
        return m.group(1)
    return None


def head_host(head: str) -> str | None:
    """The host of a syslog or journal head taken off a line (:func:`opsbrain.ingest.surface.plain`'s prefix, where
    it may follow a paste's own heads), or None."""
    m = _HEAD_HOST.search(head) if head else None
    return _syslog_host(m.group(1) or m.group(2)) if m else None


_NOT_AN_INDEX = lazy_compile(r"[xX][0-9a-fA-F]|:[0-9a-fA-F]{2}\b|\.\d")
"""What continues a number that is no device index: a hex value (``device_id: 0x1572``, a PCI device id) or a PCI
address (``device_id: 0000:05:00.1``, the kernel's APEI ``[Hardware Error]`` block on any PCIe function)."""


DRAM_LOCATION = lazy_compile(r"\[Hardware Error\]:.{0,160}?\b(?:rank|bank|module|card): ?\d+ .{0,160}?\bdevice: ?\d+")
"""A host memory error's location in the kernel's CPER record (``[Hardware Error]:   node: 1 card: 4 module: 0 rank: 0
bank: 1 device: 14 row: 58165 column: 816``; linux drivers/firmware/efi/cper.c ``cper_mem_err_location``, v5.15:
https://github.com/torvalds/linux/blob/v5.15/drivers/firmware/efi/cper.c): ``device`` is the DRAM device on the
platform's DIMM (the record goes on ``DIMM location: CPU 2 DIMM 30``), no NPU (session 45, tester45h: node-problem-
detector#846's corrected record was placed on npu14). Only in the kernel's ``[Hardware Error]`` block: a
framework's ``rank: 1 device: 3`` keeps its device (the lead, at the merge). The gaps are bounded (the record's
fields sit within a few dozen characters): unbounded, a long line of fields without ``device`` took quadratic time
(review45: 25 s on 100 KB)."""


def device_in(text: str) -> int | None:
    """The device index a line names, as written (logical or physical: whatever the line says); a field whose value
    is a PCI address or a hex id names no NPU (:data:`_NOT_AN_INDEX`), nor a DRAM location's (:data:`DRAM_LOCATION`)."""
    if DRAM_LOCATION.search(text):
        return None
    for m in RE_DEVICE.finditer(text):
        k = next((i for i, g in enumerate(m.groups(), 1) if g is not None), None)
        if k is None or _NOT_AN_INDEX.match(text, m.end(k)):
            continue
        if int(m.group(k)) <= MAX_DEVICE:
            return int(m.group(k))
    return None


def node_component(host: str | None) -> str | None:
    """The node component of a host: the twin's id, or the host as written."""
    if not host:
        return None
    return twin_node(host) or host


def npu_component(node: str | None, dev: int | None) -> str | None:
    if dev is None:
        return None
    return f"{node}/npu{dev}" if node else f"npu{dev}"


def is_twin_node(node: str | None) -> bool:
    """Whether ``node`` is one of the twin's (``pod0/node7``): an Atlas A3 node, whose device ids are logical ids."""
    return bool(node and twin_node(node.replace("/", "-")))


def device_component(node: str | None, dev: int | None, twin: bool | ChipMap) -> str | None:
    """The component a device id names. On an Atlas A3 node (``twin``: the twin's nodes, True; a real host whose
    npu-smi output shows A3, its :class:`~opsbrain.ingest.chipmap.ChipMap`, session 38) the id is a die's logical
    device id, mapped back to that die (``3`` -> ``<node>/npu1/die1``: :func:`faultlib.ids.npu_die`, session 37, or
    the host's ``npu-smi info -m`` row); elsewhere the device as written (``<node>/npu3``: one device per NPU, as on
    Atlas A2, or a real host whose product nothing showed). A real host's line that names no node (``--logs DIR``,
    whose worker directory places it later: :func:`with_host`) is ``npu1/die1``."""
    a3 = twin.a3 if isinstance(twin, ChipMap) else twin
    if dev is None or not (a3 and (node or isinstance(twin, ChipMap))):
        return npu_component(node, dev)
    k, d = twin.die_of(dev) if isinstance(twin, ChipMap) else npu_die(dev)
    return f"{node}/npu{k}/die{d}" if node else f"npu{k}/die{d}"


_DIE_OF_NPU = lazy_compile(r"^(.*/npu\d+)/die\d+$")


def reporting_npu(comp: str) -> str:
    """The part a die's report speaks for: its NPU (``pod0/node3/npu1/die0`` -> ``pod0/node3/npu1``), any other
    component itself. An A3 die's logical device reports for the whole package too (its HBM, the rank the twin runs
    there; session 37), so a die's line is read as its NPU's where lines are grouped with a diagnosed root or
    matched to a fault, as the NPU-numbered lines were before; a root at the die keeps the die."""
    m = _DIE_OF_NPU.match(comp)
    return m.group(1) if m else comp


def twin_device(npu_index: int) -> int:
    """The logical id a twin node's log names for a part of NPU ``npu_index`` as a whole (its die 0's)."""
    return logical_device(npu_index, 0)


_NPU_SEG = lazy_compile(r"npu\d+$")
_PART_SEG = lazy_compile(r"(npu|cpu|l1sw)\d+$|qingtian$|hbm$|die\d+$|roce\d+$")


_TWIN_PART = lazy_compile(r"/(?:qingtian|l1sw\d+)(?=/|$)")


def real_component(comp: str | None) -> str | None:
    """A component of a real host without the twin's own parts (its DPU ``qingtian``, its per-node L1 switch chips
    ``l1sw<k>``): ``worker-0/qingtian`` -> ``worker-0``; the twin's nodes (``pod0/node7/...``) keep them."""
    if not comp or "~" in comp or re.match(r"pod\d+/node\d+", comp) or not (m := _TWIN_PART.search(comp)):
        return comp
    return comp[:m.start()] or comp


@lru_cache(maxsize=8192)  # a pure function of a few hundred ids, asked once per signal (often many times)
def npu_of(comp: str | None) -> str | None:
    """The NPU a component belongs to (``pod0/node1/npu3/hbm`` -> ``pod0/node1/npu3``, ``w1/npu0`` -> itself)."""
    if not comp or "~" in comp:
        return None
    parts = comp.split("/")
    for i, seg in enumerate(parts):
        if _NPU_SEG.fullmatch(seg):
            return "/".join(parts[: i + 1])
    return None


_CHIP_PORT = lazy_compile(r"UB\d+/\d+/\d+")
"""A UB switch port as an LCNE line names it (``ifName=UB0/0/38``, ``port=UB0/0/5``: :mod:`.parsers.twin`'s real
switch lines): right below a name (``gz-l2p0-sw00/UB0/0/38~peer``) it is a chip's own port, and the name a chip's,
not a host's; an L1 chip a bundle or ``--logs`` placed in its host (``gz-a3-r07-n36/l1sw2/UB0/0/5~L2``) is that
host's (:func:`opsbrain.ingest.hostnames.chip_host`)."""


@lru_cache(maxsize=8192)  # (as npu_of)
def node_of(comp: str | None) -> str | None:
    """The node a component (or link) belongs to: ``pod0/node12``, a free host, or None for a bare ``npu3``."""
    if not comp:
        return None
    head = comp.split("~")[0]
    if m := re.match(r"pod\d+/node\d+", head):
        return m.group(0)
    if head.startswith("pod") and "/l2plane" in head:
        return None
    parts = head.split("/")
    if _PART_SEG.fullmatch(parts[0]) or _CHIP_PORT.fullmatch("/".join(parts[1:4])):
        return None  # (a switch chip's own port, its chip no host's: an L2 chip, as the twin's l2plane above)
    return parts[0]


_DIE = lazy_compile(r"/npu(\d+)/die(\d+)$")


def user_terms(comp: str | None, chips: ChipMap | None = None) -> dict[str, object]:
    """A component in an operator's terms: host and device index (npu-smi's NPU ID; and the id itself); for a die,
    also its die (npu-smi's Chip ID) and its logical device id (Chip Logic ID, the id its logs print): ``die``,
    ``logic_id`` (session 37; ``chips``: a real host's npu-smi table, whose row gives the logic id, session 38)."""
    if not comp:
        return {"component": None, "host": None, "device": None}
    npu = npu_of(comp)
    dev = int(npu.rsplit("npu", 1)[1]) if npu else None
    node = node_of(comp)
    host = node.replace("/", "-") if node and node.startswith("pod") else node
    out: dict[str, object] = {"component": comp, "host": host, "device": dev}
    if m := _DIE.search(comp):
        k, d = int(m.group(1)), int(m.group(2))
        out |= {"die": d, "logic_id": chips.logic_of(k, d) if chips is not None else logical_device(k, d)}
    return out


def with_host(s: Signal, host: str) -> Signal:
    """The signal of a line from ``host``'s log (a directory that names the host): its host set, and its component
    below the host where it names none (``npu3/hbm`` -> ``<host>/npu3/hbm``; a link keeps its ends)."""
    comp = s.component
    if comp and "~" not in comp and node_of(comp) is None:
        comp = f"{host}/{comp}"
    return replace(s, component=comp, host=host)


def renamed(s: Signal, host: str) -> Signal:
    """The signal of a line whose host (a syslog head's ``ascend-a01``) is known by another name (its worker
    directory's, ``worker-0``): the host and its node in the component replaced (``ascend-a01/npu3`` ->
    ``worker-0/npu3``); a link between nodes keeps its ends."""
    comp = s.component
    node = node_of(comp)
    if comp and "~" not in comp and node is not None and node == node_component(s.host):
        comp = host + comp[len(node):]
    return replace(s, component=comp, host=host)


def on_host_chip(s: Signal, chip: str, host: str, part: str) -> Signal:
    """The signal of a switch chip's line where the chip is the one inside ``host`` (``gz-a3-r07-n36-l1sw2`` ->
    host ``gz-a3-r07-n36``, part ``l1sw2``: :func:`opsbrain.ingest.hostnames.chip_host`): that host's, and the chip
    a part of it in the component (``gz-a3-r07-n36-l1sw2/UB0/0/5~L2`` -> ``gz-a3-r07-n36/l1sw2/UB0/0/5~L2``), as the
    bundle reader places it."""
    comp = s.component
    if comp and comp.split("~")[0].split("/")[0] == chip:
        comp = f"{host}/{part}{comp[len(chip):]}"
    return replace(s, component=comp, host=host)
