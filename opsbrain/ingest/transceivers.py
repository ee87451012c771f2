"""An optical module's lane power beyond the threshold its own dump prints -> ``tk:optical_power`` (session 44,
optread44).

Two dumps print each lane's power together with the module's thresholds, a few lines apart (so no one line says
it, and the line parsers never saw it):

- a Huawei switch's ``display interface transceiver verbose``: a block per port headed ``400GE1/0/25 transceiver
  information:``, its ``Diagnostic information`` giving ``Current RX Power (dBm) :2.04|1.24    (Lane0|Lane1)`` (the
  next lanes on lines of their own, ``2.02|2.15    (Lane2|Lane3)``; a single-lane module ``:-3.07``) and then
  ``Default RX Power High Threshold (dBm) :7.00`` / ``... Low Threshold (dBm)  :-10.00``, the same for TX; older
  VRP prints ``Current Rx Power(dBM)``, ``RX Power(dBM)``, ``Default Rx Power Low  Threshold(dBM)`` and a ``User Set``
  pair that, where printed, is the one in force;
- ``hccn_tool -i N -optical -g`` of an NPU's RoCE port: ``Tx Power0 : 4.4035 mW`` ... ``Rx Power3`` and
  ``TxPower High Thres : 3.5481 mW``, ``TxPower Low Thres``, ``RxPower High Thres``, ``RxPower Low Thres``.

Both readers run this scanner over the same lines (session 44, optbundle44): ``--logs`` from ``LineReader.feed``, line
by line; ``--bundle`` over each file whose bytes :func:`may_hold` a module's answer (:func:`beyond_in`; the signal by
:func:`power_signal` with the line's origin, :func:`opsbrain.bundle.reader.signals_of`).

Both print one pair of thresholds, and it is the alarm pair: Huawei's field table calls them the module's upper and
lower power thresholds, its S-series ``display transceiver diagnosis`` heads the same figures ``Low Alarm Threshold``
/ ``High Alarm Threshold``, and a port configured for it goes ERROR DOWN(transceiver-power-low) below "the lower
alarm threshold"; ascend-fd reports a lane outside hccn_tool's pair as a fault of its own (code Comp_Network_Custom_08;
its text is vendor data, not quoted here). So a lane beyond it is an alarm
(severity 2); no form with a separate warning pair was found for these two tools, so none gives severity 1 (a lane
within its thresholds gives nothing). Sources and real lines: docs/formats.md, "Optical lane power".

Not compared (each gives nothing here):
- a lane that reads no light: the power monitor's floor (``-40.00`` dBm, ``0.0000 mW``) or a lane whose Rx LOS bit
  is set. A port never cabled, shut down (its laser off), or facing a peer that is off reads so, as a failed one does
  (the readout trap of :mod:`opsbrain.ingest.readouts`: blind43 b43c-01); hccn_tool's LOS flags and the switch's own
  LOS alarm say that state, as readouts;
- a module hccn_tool says is not there (``present : not present``): its figures are no module's (ascend-fd's own
  fixture prints both);
- the ``(All lanes)`` figure some CE releases print before the lanes: the lanes' sum, which a per-lane threshold does
  not bound (a Hisense SR4 reading ``6.32 (All lanes)`` against a 5.40 dBm threshold, every lane near 0 dBm);
- ``-`` and ``N/A`` (no diagnostics);
- against a high threshold at the monitor's floor (``0.0000 mW``, -40 dBm or below): a module whose threshold
  fields are unset reads them as zero (``ethtool -m``: ``Laser output power high alarm threshold : 0.0000 mW /
  -inf dBm`` beside lit lanes, gist.github.com/Chester-Gillon/d2c3bc6d76394af4fc9551e1be441dd8), which bounds no
  lit lane (session 44, review44b: every lit lane of such a module read as an alarm). A low threshold there
  bounds nothing either (a lane below it is dark).

Why the signal is no readout (:func:`opsbrain.ingest.readouts.is_readout` leaves it out, so the readout cap of
:mod:`opsbrain.diagnosis.statecap` does not hold an answer it supports): the readout cap is for states with benign
causes, a module not fitted, a port disabled or not cabled. Those read absent or dark, which this reading leaves
out; what remains is a lane with light, measured beyond the alarm threshold the module itself carries, which is the
comparison by which the module raises its own DDM alarm flag and the switch its power alarm. That is an alarm the
dump states (in two lines rather than one), not a bare state; the fault it names is the module's or the fibre's
(optical_degradation), whatever the job did.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from opsbrain.ingest import where
from opsbrain.ingest.chipmap import ChipMap
from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.parsers.hccn import RE_OPTICAL_ABSENT
from opsbrain.ingest.signal import Signal
from opsbrain.ingest.surface import head_source
from opsbrain.lazyre import lazy_compile

KIND = "tk:optical_power"
"""optical_degradation's primary signature (knowledge_base/classes/optical_degradation.yaml): an optical module's Tx/Rx
power out of its threshold, the FaultDiag toolkit's finding of the same fact (a kind says what was found)."""
DARK_DBM = -39.99
"""reason: the power monitors' floor reads -40.00 dBm (0.1 uW, the smallest non-zero count of SFF-8636 / CMIS
monitors; a CE switch prints ``-40.00|-40.00(Lane0|Lane1)`` for a dark lane, :data:`opsbrain.ingest.commands.
NO_LIGHT_DBM`): at or below it a lane has no light, a state (module docstring), not a power out of range."""

RE_VRP_HEAD = lazy_compile(r"^\s*(\S+) transceiver information:\s*$")
RE_VRP_POWER = lazy_compile(r"^\s*(?:Current )?([RT]X) Power\s*\(dBm\)\s*:\s*+(.*)$", re.I)
RE_VRP_LANES = lazy_compile(r"^\s*(-?\d+(?:\.\d+)?|-)\|(-?\d+(?:\.\d+)?|-)\s*\(Lane(\d+)\|Lane(\d+)\)\s*$")
RE_VRP_ONE = lazy_compile(r"^(-?\d+(?:\.\d+)?)$")
RE_VRP_THRESHOLD = lazy_compile(r"^\s*(Default |User Set )?([RT]X) Power (High|Low)\s+Threshold\s*\(dBm\)\s*:\s*"
                                r"(-?\d+(?:\.\d+)?)\s*$", re.I)
RE_SYSNAME = lazy_compile(r"^\s*sysname\s+(\S+)\s*$")
"""The switch's own name in its ``display current-configuration`` (the MindCluster switch_logs sample prints it
before the transceivers): the host of its ports."""
RE_HCCN_OPTICAL = lazy_compile(r"\s-optical\s+-g\b")
"""``hccn_tool -i N -optical -g`` (on a line naming ``hccn_tool``; the device: :data:`RE_DASH_I`)."""
RE_DASH_I = lazy_compile(r"\s-i\s*+(\d+)\b")
RE_HCCN_POWER = lazy_compile(r"^\s*([RT]x) Power(\d+)\s*:\s*(\d+(?:\.\d+)?)\s*(mW|dBm)\s*$", re.I)
RE_HCCN_THRESHOLD = lazy_compile(r"^\s*([RT]x)Power (High|Low) Thres\s*:\s*(\d+(?:\.\d+)?)\s*(mW|dBm)\s*$", re.I)
RE_RX_LOS = lazy_compile(r"^\s*Rx Los Flag\s*:\s*0x([0-9a-f]+)\s*$", re.I)
RE_COMMAND = lazy_compile(r"\b(?:hccn_tool|npu-smi)\b|^\s*(?:<[^>\s]+>|\[[^\]\s]+\])\s*dis(?:play)?\b")


_OPENERS = ("transceiver information:", "hccn_tool", "sysname")
"""Words one of which a line opening a module's answer (or naming the switch) holds."""
MARKS = (b"transceiver information:", b"-optical")
"""Bytes one of which a text holding a module's answer holds (a switch's block head, hccn_tool's option): a file
without either gives nothing here, told by one search of its bytes (:func:`may_hold`; the bundle reader's test)."""


def may_hold(data: bytes | bytearray) -> bool:
    """Whether a file's bytes may hold a module's answer (:data:`MARKS`): the others are not scanned."""
    return any(m in data for m in MARKS)


def _dbm(value: float, unit: str) -> float:
    """A power in dBm (hccn_tool prints mW; 0 mW is the monitor's floor, no light)."""
    if unit.lower() != "mw":
        return value
    return 10.0 * math.log10(value) if value > 0 else -40.0


@dataclass
class _Block:
    """One module's answer: ``port`` (a switch's interface) or ``dev`` (hccn_tool's ``-i``)."""

    port: str | None = None
    dev: int | None = None
    absent: bool = False
    dark: int = 0  # hccn_tool's Rx LOS lanes (a bitmap)
    lanes: list[tuple[str, int, float, int, str]] = field(default_factory=list)  # (RX|TX, lane, dBm, line, text)
    limits: dict[tuple[str, str], tuple[bool, float]] = field(default_factory=dict)  # (RX|TX, high|low) -> (user, v)
    last: str | None = None  # the power the continuation lines of a switch's lanes belong to


@dataclass(frozen=True)
class Beyond:
    """A lane beyond its module's alarm threshold: where (the line that printed it) and what."""

    line_no: int
    text: str
    port: str | None
    dev: int | None
    host: str | None


class TransceiverScan:
    """The lines of one file, in order (``None``: the end of the file); :meth:`step` returns the lanes of a module
    found beyond its thresholds when the module's answer ends (a blank line, another command or module, the end)."""

    def __init__(self) -> None:
        self.block: _Block | None = None
        self.sysname: str | None = None

    def step(self, line: str | None, n: int = 0) -> list[Beyond]:
        if line is None or not line.strip():
            return self._close()
        if self.block is None and not any(w in line for w in _OPENERS):
            return []  # most lines of a log: one scan of a few words
        if m := RE_VRP_HEAD.match(line):
            out = self._close()
            self.block = _Block(port=m.group(1))
            return out
        if "hccn_tool" in line and RE_HCCN_OPTICAL.search(line) and (m := RE_DASH_I.search(line)):
            out = self._close()
            self.block = _Block(dev=int(m.group(1)))
            return out
        if RE_COMMAND.search(line):
            return self._close()
        if m := RE_SYSNAME.match(line):
            self.sysname = m.group(1)
            return []
        b = self.block
        if b is None:
            return []
        if b.port is not None:
            self._vrp(b, line, n)
        else:
            self._hccn(b, line, n)
        return []

    def _vrp(self, b: _Block, line: str, n: int) -> None:
        if m := RE_VRP_POWER.match(line):
            b.last = m.group(1).upper()
            value = m.group(2).strip()
            if lanes := RE_VRP_LANES.match(value):
                self._lanes(b, lanes, line, n)
            elif one := RE_VRP_ONE.match(value):  # a single-lane module (``(All lanes)``: a sum, not read)
                b.lanes.append((b.last, 0, float(one.group(1)), n, line.strip()))
            return
        if b.last is not None and (lanes := RE_VRP_LANES.match(line)):
            self._lanes(b, lanes, line, n)
            return
        b.last = None
        if m := RE_VRP_THRESHOLD.match(line):
            user = (m.group(1) or "").strip().lower() == "user set"
            key = (m.group(2).upper(), m.group(3).lower())
            if user or not b.limits.get(key, (False, 0.0))[0]:  # a user-set threshold, where printed, is in force
                b.limits[key] = (user, float(m.group(4)))

    @staticmethod
    def _lanes(b: _Block, m: re.Match[str], line: str, n: int) -> None:
        assert b.last is not None
        for value, lane in ((m.group(1), m.group(3)), (m.group(2), m.group(4))):
            if value != "-":
                b.lanes.append((b.last, int(lane), float(value), n, line.strip()))

    @staticmethod
    def _hccn(b: _Block, line: str, n: int) -> None:
        if RE_OPTICAL_ABSENT.search(line):
            b.absent = True
        elif m := RE_HCCN_POWER.match(line):
            b.lanes.append((m.group(1).upper(), int(m.group(2)), _dbm(float(m.group(3)), m.group(4)), n,
                            line.strip()))
        elif m := RE_HCCN_THRESHOLD.match(line):
            b.limits[(m.group(1).upper(), m.group(2).lower())] = (False, _dbm(float(m.group(3)), m.group(4)))
        elif m := RE_RX_LOS.match(line):
            b.dark = int(m.group(1), 16)

    def _close(self) -> list[Beyond]:
        b, self.block = self.block, None
        if b is None or b.absent:
            return []
        out: dict[int, Beyond] = {}  # one a line (two lanes share a switch's line)
        for side, lane, dbm, n, text in b.lanes:
            if dbm <= DARK_DBM or (side == "RX" and b.dark >> lane & 1):
                continue  # no light: a state, not a power out of range (module docstring)
            high, low = b.limits.get((side, "high")), b.limits.get((side, "low"))
            if (high is not None and high[1] > DARK_DBM and dbm > high[1]) or (low is not None and dbm < low[1]):
                out.setdefault(n, Beyond(n, text, b.port, b.dev, self.sysname))
        return list(out.values())


def beyond_in(lines: Iterable[str]) -> list[Beyond]:
    """The lanes beyond their thresholds in one file's lines (numbered from 1, as given): :class:`TransceiverScan`
    over them, as ``LineReader.feed`` runs it line by line (the bundle reader's use, for a file :func:`may_hold`)."""
    scan, out = TransceiverScan(), []
    for n, line in enumerate(lines, start=1):
        out += scan.step(line, n)
    return out + scan.step(None)


def power_signal(found: Beyond, t: float, head: str = "", twin: bool | ChipMap | None = None,
                 origin: str | None = None) -> Signal:
    """The signal of a lane beyond its threshold, placed as :func:`opsbrain.ingest.parsers.parse_line` places a
    line's: a switch port's on the link from that port (``<switch>/<port>~peer``, as a real switch's port state is,
    :mod:`opsbrain.ingest.parsers.twin`), an NPU port's on the NPU (as hccn_tool's other optical readings are).
    ``origin``: in a bundle, the component whose file held it (a node, or a switch's folder), as ``parse_line``'s:
    the node of an NPU's answer, the switch where the dump prints no ``sysname``."""
    host = where.host_in(found.text) or where.head_host(head) or head_source(head)
    if found.port is not None:
        switch = host or found.host or origin
        return Signal(t, KIND, f"{switch or 'switch'}/{found.port}~peer", switch, 2, found.text)
    node = where.node_component(host)
    if origin and where.twin_node(host) is None and (own := where.node_of(origin)):
        node = own  # (parse_line's rule: a line that names no twin host is the node's whose file holds it)
    ctx = LineCtx(found.text, t, host, node, origin, 2, stated=True, file_device=found.dev, twin=twin)
    ctx.add(KIND, ctx.npu(found.dev), 2, device=found.dev)
    return ctx.out[0]
