"""How a collection's ``environment_check/npu_info_{before,after}.txt`` files are read (the hccn_tool / npu-smi
outputs the MindCluster FaultDiag collection and ascend-fd's fixtures save, docs/bundles.md): the one rule that the
bundle reader (:mod:`opsbrain.bundle.statefiles`) and ``diagnose --logs DIR`` (:class:`opsbrain.ingest.text.
LineReader`) share, so that the same file gives the same evidence in both.

Of such a file, only the link change records (``[devid 3] ... LINK DOWN``), the optical module's answer to
``hccn_tool -i N -optical -g``, the ``-net_health -g`` answer and an npu-smi table row whose health column is not OK
are lines of a fault. ``link status: UP`` after ``hccn_tool -i N -link -g`` is the port's state when the file was
taken, not an event: a port UP in the *before* file and DOWN in the *after* file, with no DOWN record of its own, is a
link-down (:func:`down_ports`; facts.md §7); one UP is no signal at all (before session 33, ``--logs DIR`` read every
such line as a link-up signal: 448 of them in a 14-host bundle). The temperatures and HBM counters of npu-smi are
metrics of the *after* file, not lines."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from opsbrain.ingest.chipmap import ChipMap
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.parsers.device import RE_SMI_HEALTH
from opsbrain.ingest.parsers.hccn import RE_OPTICAL_ABSENT, RE_OPTICAL_LOSS
from opsbrain.ingest.signal import Signal
from opsbrain.lazyre import lazy_compile

NPU_INFO = lazy_compile(r"(?:^|/)npu_info_([^/]+)\.txt$")
"""The file's name; the group is when it was taken (``before``, ``after``)."""
LINK_RECORD = lazy_compile(r"\[(?:devid|device) (\d+)\]\s+\w{3} \w{3}\s+\d+ [\d:]+ \d{4}\s+LINK (UP|DOWN)")
"""hccn_tool's link record (``[devid 3] ...``), and FaultDiag's check file's ``[device 3] ...`` form of it."""
_LINK_CMD = lazy_compile(r"^(?:\$ |\S*/)?hccn_tool -i (\d+) -link -g")
_QUERY_CMD = lazy_compile(r"^(?:\$ |\S*/)?hccn_tool -i (\d+) ")
_OPTICAL_CMD = lazy_compile(r"^(?:\$ |\S*/)?hccn_tool -i \d+ -optical -g")
"""``hccn_tool -i N -optical -g``: its answer's module presence and lane flags (``present : not present``, ``Rx Los
Flag : 0xff``, the lines :mod:`opsbrain.ingest.parsers.hccn` reads) are lines of the device queried, at the file's
time, up to the next command or blank line (the FaultDiag collection's layout)."""
_NET_HEALTH = lazy_compile(r"^net health status\s*:")
"""``hccn_tool -i N -net_health -g``'s answer (``net health status: Receive timeout``): a line of the device the
command queried, at the file's time."""
_SMI_CMD = lazy_compile(r"^(?:\$ |\S*/)?npu-smi ")
_SMI_HEALTH_CMD = lazy_compile(r"^(?:\$ |\S*/)?npu-smi info -t health -i (\d+)")
_SMI_HEALTH_FIELD = lazy_compile(r"^\s*(?:Health Status|Error Code|Error Information)\s*:\s*(\S.*?)\s*$")
"""``npu-smi info -t health -i N [-c chip]``'s answer (the npu-smi reference's "query a chip's health status",
hiascend.com Atlas 200I A2 npusmi_028: ``Health Status`` OK / Warning / Alarm / Critical / UNKNOWN, ``Error Code`` the
black box's fault codes or NA, ``Error Information`` their words): a field that is not OK / NA is a line of NPU N at
the file's time, up to the next command or blank line (session 33: ``--logs DIR`` read its error code by the general
parsers, the bundle reader not at all, so an HBM UCE that npu-smi showed was missed by ``--bundle``)."""
_LINK_STATE = lazy_compile(r"^link status: (\w+)")
_KV = lazy_compile(r"^([A-Za-z](?:[A-Za-z ()]*[A-Za-z()]|[A-Za-z ()]))\s*:\s*(\S+)")
_SMI_ROW = lazy_compile(r"^\|\s*(\d+)\s+\S+\s*\|\s*[A-Za-z]\w*\s*\|\s*\S+\s+([\d.]+)\s")
"""npu-smi's NPU row (``| 0     Ascend910           | OK            | 178.5       36  ...``): NPU ID and temperature.
Its health column is a word: an A3 table's chip row (``| 1     1                   | 0000:9F:00.0  | 0           0
...``, chip and Phy-ID, then the Bus-Id) is no NPU row (session 38: it was read as NPU 1 at 0 degrees)."""
METRICS = {"NPU Temperature (C)": ("npu_temp_c", ""), "HBM Temperature (C)": ("hbm_temp_c", "/hbm"),
           "HBM Double Bit Isolated Pages Count": ("hbm_isolated_rows", "/hbm"),
           "HBM Single Bit Error Count": ("hbm_ce_total", "/hbm")}
"""npu-smi's ``-t temp`` and ``-t ecc`` fields read as metrics: (metric, the part of the NPU it is of)."""


@dataclass(frozen=True)
class Read:
    """What one line of an npu_info file is. ``record``: a link change record (a line, at its own time); ``line``:
    a line of a fault at the file's time, of NPU ``npu`` (None: of the node: an npu-smi table row names its NPU
    itself); ``state``: the link state of port ``port``; ``metric``: (name, part of the NPU) of NPU ``metric_npu``,
    its value ``value`` (``first``: a table row's, kept where a ``-t`` field gave it already); nothing set: no rule
    of the file's reads the line."""

    record: bool = False
    line: bool = False
    npu: int | None = None
    state: str | None = None
    port: int = 0
    metric: tuple[str, str] | None = None
    metric_npu: int = 0
    value: float = 0.0
    first: bool = False

    @property
    def ruled(self) -> bool:
        """Whether a rule of the file's reads the line (a state or a metric is no line of a fault)."""
        return self.record or self.line or self.state is not None or self.metric is not None


NOTHING = Read()


class NpuInfoScan:
    """One npu_info file, line after line (``None`` for a blank line, which ends a command's answer)."""

    def __init__(self) -> None:
        self.queried: int | None = None  # the device the last hccn_tool command queried
        self.link_dev: int | None = None  # the port the last ``-link -g`` queried
        self.dev: int | None = None  # npu-smi's ``NPU ID`` field
        self.optical = False
        self.health_dev: int | None = None  # the NPU of the ``npu-smi info -t health -i N`` answer being read
        # (its ``-c C`` is not kept: a chip's answer is its NPU's, as opsbrain.ingest.smihealth reads it)

    def step(self, text: str | None) -> Read:
        if text is None:
            self.optical = False
            self.health_dev = None
            return NOTHING
        if LINK_RECORD.search(text):
            return Read(record=True)
        if m := _SMI_HEALTH_CMD.match(text.strip()):
            self.health_dev = int(m.group(1))
            return NOTHING
        if self.health_dev is not None and (m := _SMI_HEALTH_FIELD.match(text)):
            return Read(line=m.group(1).upper() not in ("OK", "NA", "N/A", "NONE", "0"), npu=self.health_dev)
        if _QUERY_CMD.match(text) or _SMI_CMD.match(text.strip()):  # another command (as written, or its full path)
            self.health_dev = None
        if m := _QUERY_CMD.match(text):
            self.queried = int(m.group(1))
            self.optical = bool(_OPTICAL_CMD.match(text))
        elif self.optical and (RE_OPTICAL_ABSENT.search(text) or RE_OPTICAL_LOSS.search(text)):
            return Read(line=True, npu=self.queried) if self.queried is not None else NOTHING
        if m := _LINK_CMD.match(text):
            self.link_dev = int(m.group(1))
            return NOTHING
        if self.queried is not None and _NET_HEALTH.match(text):
            return Read(line=True, npu=self.queried)
        health = RE_SMI_HEALTH.search(text) is not None  # a table row of the node, saying Warning, Alarm, ...
        if (m := _LINK_STATE.match(text)) and self.link_dev is not None:
            return Read(state=m.group(1).upper(), port=self.link_dev)
        if m := _SMI_ROW.match(text):
            return Read(line=health, metric=("npu_temp_c", ""), metric_npu=int(m.group(1)),
                        value=float(m.group(2)), first=True)
        if m := _KV.match(text):
            key, val = m.group(1).strip(), m.group(2)
            if key == "NPU ID" and val.isdigit():
                self.dev = int(val)
            elif key in METRICS and self.dev is not None:
                try:
                    return Read(line=health, metric=METRICS[key], metric_npu=self.dev, value=float(val))
                except ValueError:
                    pass
        return Read(line=health)


def down_ports(before: Mapping[int, str] | None, after: Mapping[int, str]) -> list[int]:
    """The ports of a node that went down between its two files: UP in *before* and DOWN in *after*. Without a
    *before* file (one snapshot collected), a port DOWN among ports mostly UP (session 28: a node whose ports are all
    or mostly down is taken as not cabled for RoCE, no fault read from it)."""
    if before is None:
        states = list(after.values())
        if states.count("UP") <= states.count("DOWN"):
            return []
    return [dev for dev, st in sorted(after.items())
            if st == "DOWN" and (before is None or before.get(dev) == "UP")]


def down_record(dev: int, dt: datetime) -> str:
    """The link record a port found down stands for (hccn_tool's ``-link_stat -g`` form), at ``dt``."""
    return f"[devid {dev}]    {dt:%a %b} {dt.day:2d} {dt:%H:%M:%S %Y}    LINK DOWN"


PortStates = dict[tuple[str, str], dict[int, tuple[str, float, int, str, bool | ChipMap | None]]]
"""(directory, ``before`` / ``after``) of npu_info files -> port -> (its link state, the time, line and file that
gave it, whether the file is a twin host's or a real host's numbering), as ``--logs`` reads them
(:class:`opsbrain.ingest.text.LineReader`)."""


def link_downs(states: PortStates, signals: list[Signal], t0: float) -> list[Signal]:
    """``--logs``' side of :func:`down_ports`: each port a directory's npu_info files found down, a link-down signal
    at the *after* file's line (``t0``: the read's time origin, for the record's text), unless a link record of that
    directory said so already (the bundle reader alike synthesises none where a DOWN record is in the logs)."""
    out: list[Signal] = []
    for (d, when), after in states.items():
        if when != "after":
            continue
        before = states.get((d, "before"))
        told = {s.device for s in signals if s.kind == "hccn:down" and (s.file or "").rpartition("/")[0] == d}
        for port in down_ports({p: v[0] for p, v in before.items()} if before is not None else None,
                               {p: v[0] for p, v in after.items()}):
            if port not in told:
                _state, t, n, file, twin = after[port]
                text = down_record(port, datetime.fromtimestamp(t0 + t))
                out.extend(s.at(line_no=n, file=file) for s in parse_line(text, t, twin=twin))
    return out
