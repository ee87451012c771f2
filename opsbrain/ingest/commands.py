"""Collected command outputs -> readings and signals: ``npu-smi info`` (the device table), ``npu-smi info -i N -t
ecc``, ``npu-smi info -t health -i N [-c C]``, ``hccn_tool -i N -optical -g``, ``-link -g``, ``-link_stat -g``,
``-net_health -g`` and ``-stat -g`` (the RoCE port's packet counters, session 37).

A collected file holds one or more commands, each as its command line (full path or not, ``$ `` / ``# `` prompt
allowed) followed by its output, the way MindCluster's fault-diagnosis collection writes them (ascend-fd test
fixture ``kg_parse/npu_info_before.txt``; layouts in MindCluster docs ``faultdiag/user_guide/03_collecting_logs.md``
and ``devmanager/hccn/hccn_tool.go``, which splits ``-optical -g`` lines at ``:`` into ``Tx Power0 : 4.4035 mW``).
Values the tool prints as ``NA`` or ``not supported`` are left out. See docs/real-cluster.md for the table.
"""

from __future__ import annotations

import contextlib
import math
import re
from dataclasses import dataclass, field
from datetime import datetime

from opsbrain.ingest.healthstates import code_of, worse_word
from opsbrain.ingest.parsers.ctx import stated_level, worded_level
from opsbrain.ingest.signal import Signal
from opsbrain.ingest.smihealth import ErrorCodes, code_signals, error_code_line
from opsbrain.ingest.where import node_component
from opsbrain.lazyre import lazy_compile

RE_PROMPT = lazy_compile(r"(?:[\w.-]+@(?P<host>[A-Za-z0-9][\w.-]*):[^\s#$]*|\[[\w.-]+@(?P<bhost>[A-Za-z0-9][\w.-]*)"
                       r"(?:\s[^\]]*)?\])\s?[#$]\s*")
"""A shell prompt before a command: bash's ``root@worker-3:~# `` (``user@host:path# ``, ``$`` for a user) and the
Red Hat family's ``[root@worker-3 ~]# ``; the host is the command's (a terminal transcript of several hosts)."""
MATCH_ONLY = ("RE_PROMPT",)
"""Regexes only matched at a line's start, never searched (``benchmarks/bench_regex_worst.py`` times their
``match``)."""
RE_COMMAND = lazy_compile(r"^\s*(?:" + RE_PROMPT.pattern + r"|[$#]\s*)?(?:\S*/)?(?P<tool>npu-smi|hccn_tool)\s+"
                        r"(?P<args>.*?)\s*$")
RE_DEV = lazy_compile(r"-i\s+(\d+)")
RE_SMI_ROW = lazy_compile(r"^\|\s*(\d+)\s+(\S+)\s*\|\s*(\w+)\s*\|\s*(\S+)\s+(\S+)\s")
# key and value without their edge spaces, each read by one repeat (session 43: the lazy ``(...*?)\s*`` forms were
# quadratic on a long run of spaces; tests/test_regex_linear43.py checks the same matches)
RE_KV = lazy_compile(r"^\s*(?:\[dev(?:id|ice) \d+\]\s*)?([A-Za-z](?:[\w ()%/.-]*[\w()%/.-])?)\s*:\s*+"
                     r"((?:\S(?:.*\S)?)?)\s*$")
RE_NUM_UNIT = lazy_compile(r"^(-?\d+(?:\.\d+)?)\s*([A-Za-z%]*)$")
RE_LANE = lazy_compile(r"^(Tx Power|Rx Power|Tx Bias|Media SNR Lane)\s*(\d*)$", re.I)
"""A lane's field; one without a lane number (``Rx Power : 0.0000 mW``, the single-lane layout in MindCluster's
faultdiag/user_guide/03_collecting_logs.md) is lane 0."""
RE_LINK_RECORD = lazy_compile(r"\[dev(?:id|ice) (\d+)\]\s+(\w{3} \w{3}\s+\d+ [\d:]+ \d{4})\s+LINK (UP|DOWN)")
"""A link-change record, prefixed ``[devid N]`` or ``[device N]`` (both in MindCluster's docs and npu-exporter's
hccn_tool.go comment)."""
RE_STAT = lazy_compile(r"^\s*([a-z][a-z0-9_]*)\s*:\s*(\d+)\s*$")
"""A counter of ``hccn_tool -i N -stat -g`` (``mac_rx_fcs_err_pkt_num:0``)."""
RE_LINK_STATUS = lazy_compile(r"link status\s*:\s*(UP|DOWN)", re.I)
RE_NET_HEALTH = lazy_compile(r"net health status\s*:\s*(.+?)\s*$", re.I)
RE_HEALTH_CMD = lazy_compile(r"-t\s+health\b")
RE_CHIP = lazy_compile(r"-c\s+(\d+)")
RE_HEALTH_KV = lazy_compile(r"^\s*(?:([A-Za-z](?:[A-Za-z ]*[A-Za-z])?)\s*)?:\s*+((?:\S(?:.*\S)?)?)\s*$")
"""A line of ``npu-smi info -t health``: ``Health Status : Alarm``, ``NPU ID : 3``, or a continuation of ``Error
Information`` with no key of its own (``                : node type=adda, ...``, not read). ``Error Code`` lines are
:func:`opsbrain.ingest.smihealth.error_code_line`'s."""
NO_LIGHT_DBM = -40.0
"""A lane the module flags as loss of signal (``Rx Los Flag`` bit set) or reading 0 mW: no light."""


@dataclass
class CommandReadings:
    """What a host's collected outputs say, per device index (as the tools number them)."""

    host: str | None
    npu_temp_c: dict[int, float] = field(default_factory=dict)
    npu_health: dict[int, str] = field(default_factory=dict)
    hbm_ce_total: dict[int, float] = field(default_factory=dict)
    hbm_ue_total: dict[int, float] = field(default_factory=dict)
    hbm_rows: dict[int, float] = field(default_factory=dict)
    optics: dict[int, dict[str, list[float]]] = field(default_factory=dict)
    los_lanes: dict[int, int] = field(default_factory=dict)
    link_down: dict[int, bool] = field(default_factory=dict)
    net_unhealthy: dict[int, bool] = field(default_factory=dict)
    link_down_times: dict[int, list[float]] = field(default_factory=dict)
    fault_codes: dict[int, list[str]] = field(default_factory=dict)
    """The fault codes ``npu-smi info -t health`` prints per NPU (its chips' together), upper-case 8-digit hex
    without ``0x`` as npu-exporter's are read; an empty list: read, no fault (``NA``)."""
    health_status: dict[int, str] = field(default_factory=dict)
    """``Health Status`` / ``Health`` of ``npu-smi info -t health`` (the worst of the NPU's chips)."""
    port_stats: dict[int, dict[str, int]] = field(default_factory=dict)
    """``hccn_tool -i N -stat -g``'s packet counters of the NPU's RoCE port (``roce_rx_err_pkt_num:11``), by the
    tool's own names; counters since the device's last reset (session 37)."""
    signals: list[Signal] = field(default_factory=list)
    """What the outputs say as the ingestion layer's signals, as ``diagnose`` reads the same text: ``hccn:down`` /
    ``hccn:up``, ``hccn:net_health_fail`` and the ``-t health`` codes' ``dev:<CODE>`` on ``<host>/npu<N>``."""
    notes: list[tuple[str, str]] = field(default_factory=list)
    """(reason, example) per value read but not used (a garbled ``Error Code``)."""
    commands: int = 0
    failed: list[tuple[str, str]] = field(default_factory=list)
    """(command line, the tool's own error line) per command whose output read nothing and says it failed
    (:data:`RE_TOOL_ERROR`: ``dcmi model initialized failed ... ret is -8020``, a shared library not loaded)."""

    def size(self) -> int:
        """How many values were read (a command that added none read nothing)."""
        return (len(self.npu_temp_c) + len(self.npu_health) + len(self.hbm_ce_total) + len(self.hbm_ue_total)
                + len(self.hbm_rows) + len(self.optics) + len(self.los_lanes) + len(self.link_down)
                + len(self.net_unhealthy) + sum(map(len, self.link_down_times.values())) + len(self.fault_codes)
                + len(self.health_status) + len(self.notes) + sum(map(len, self.port_stats.values())))


RE_TOOL_ERROR = lazy_compile(r"\b(?:error|errors|failed|fail|failure|cannot|can't|not found|denied|invalid|"
                           r"no such|not exist|does not exist|ret(?: is|=|:)\s*-\d+)\b", re.I)
"""A line in which a tool says it failed: npu-smi's DCMI errors (``dcmi model initialized failed, because the device
is used. ret is -8020``), the loader's ``error while loading shared libraries``, the shell's ``command not found``,
``Permission denied``. Only a command whose output read nothing is judged by it (``npu-smi info -t health`` prints
``Error Code`` and ``Error Information`` lines when it works)."""


def _number(text: str) -> tuple[float, str] | None:
    m = RE_NUM_UNIT.match(text.strip())
    return (float(m.group(1)), m.group(2)) if m else None


def _sections(text: str) -> list[tuple[str, str, list[str]]]:
    """(tool, arguments, output lines) per command of a collected file."""
    return [(tool, args, lines) for tool, args, lines, _host in _prompted(text)]


def _prompted(text: str) -> list[tuple[str, str, list[str], str | None]]:
    """(tool, arguments, output lines, the host its prompt names or None) per command of a collected file; a
    prompt line before any other command (``root@worker-3:~# ls``) ends the output before it."""
    out: list[tuple[str, str, list[str], str | None]] = []
    done = False
    for line in text.splitlines():
        if m := RE_COMMAND.match(line):
            out.append((m.group("tool"), m.group("args"), [], m.group("host") or m.group("bhost")))
            done = False
        elif out and RE_PROMPT.match(line.lstrip()):
            done = True  # another command's prompt: its output is not the last command's
        elif out and not done:
            out[-1][2].append(line)
    return out


def parse_command_file(text: str, host: str | None = None, file: str | None = None) -> list[CommandReadings]:
    """:func:`parse_command_outputs` of a file, per host: the commands whose shell prompt names a host
    (``root@worker-3:~# npu-smi info``) are that host's, the others ``host``'s (the directory's)."""
    sections = _prompted(text)
    hosts = list(dict.fromkeys(h or host for *_x, h in sections))
    if len(hosts) <= 1:
        return [parse_command_outputs(text, hosts[0] if hosts else host, file)]
    parts: dict[str | None, list[str]] = {h: [] for h in hosts}
    for tool, args, lines, h in sections:
        parts[h or host] += [f"{tool} {args}", *lines]
    return [parse_command_outputs("\n".join(body), h, file) for h, body in parts.items()]


def ctime_seconds(text: str) -> float | None:
    try:
        return datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y").timestamp()
    except ValueError:
        return None


def _optical(out: CommandReadings, dev: int, lines: list[str]) -> None:
    fields: dict[str, list[float]] = {}
    present = True
    for line in lines:
        m = RE_KV.match(line)
        if not m:
            continue
        key, value = m.group(1).strip(), m.group(2)
        if key.lower() == "present":
            present = value.strip().lower() == "present"
            continue
        if key.lower() == "rx los flag":
            with contextlib.suppress(ValueError):
                out.los_lanes[dev] = int(value, 16)
            continue
        lane = RE_LANE.match(key)
        num = _number(value)
        if not lane or num is None:
            continue
        kind, k = lane.group(1).lower(), int(lane.group(2) or 0)
        val, unit = num
        if kind in ("tx power", "rx power"):
            name = "tx_dbm" if kind == "tx power" else "rx_dbm"
            val = 10.0 * math.log10(val) if unit.lower() == "mw" and val > 0 else (
                NO_LIGHT_DBM if unit.lower() == "mw" else val)
        else:
            name = "bias_ma" if kind == "tx bias" else "snr_db"
        lanes = fields.setdefault(name, [])
        while len(lanes) <= k:
            lanes.append(math.nan)
        lanes[k] = val
    if not present or not fields:
        return
    flags = out.los_lanes.get(dev, 0)
    rx = fields.get("rx_dbm", [])
    for k in range(len(rx)):
        if flags >> k & 1:
            rx[k] = NO_LIGHT_DBM
    out.optics[dev] = fields


def _stat(out: CommandReadings, dev: int, lines: list[str]) -> None:
    """``hccn_tool -i N -stat -g``: ``packet statistics:`` then one ``name:count`` line per counter
    (``roce_rx_err_pkt_num:11``; ascend-fd's fixture st_testcase ``npu_info_after.txt``), read as npu-exporter reads
    it (devmanager/hccn/hccn_tool.go ``GetNPUStatInfo``: a line split at ``:`` into two parts, the count a whole
    number). A later run of the command for the same device in the file replaces the earlier one."""
    stats: dict[str, int] = {}
    for line in lines:
        if (m := RE_STAT.match(line)) is not None:
            stats[m.group(1)] = int(m.group(2))
    if stats:
        out.port_stats[dev] = stats


def _health(out: CommandReadings, dev: int | None, chip: str, lines: list[str],
            chips: dict[tuple[int, str], tuple[str | None, list[str] | None]], file: str | None = None) -> None:
    """``npu-smi info -t health -i N [-c C]`` (npu-smi manual, "Querying the Health Status of a Chip": ``Health
    Status``, ``Error Code``, ``Error Information``; ``-i N`` alone: ``NPU ID``, ``Health``, ``Error Code``; the
    ascend-fd fixture ``kg_parse/npu_info_after.txt`` prints several codes on one line, ``A4025021 8C03A000
    8C084E00``, and continues ``Error Information`` on lines with no key). The ``Error Code`` line is read by
    :func:`opsbrain.ingest.smihealth.error_code_line`, as the log parser reads it, and its codes become the same
    ``dev:<CODE>`` signals on ``<host>/npu<N>`` (N: npu-smi's NPU id, ``-i``). Each chip's reading replaces an
    earlier one of the same chip in the file; the NPU's are its chips' together (:func:`parse_command_outputs`)."""
    health: str | None = None
    codes: list[str] | None = None
    code_lines: list[tuple[str, ErrorCodes]] = []
    for line in lines:
        if (got := error_code_line(line)) is not None:
            codes = [] if codes is None else codes
            out.notes += [("npu-smi info -t health Error Code values that are no hex fault code, not used",
                           f"npu{'?' if dev is None else dev} {tok[:40]!r}") for tok in got.rejected]
            codes += [c for c in got.codes if c not in codes]  # 0: no fault, as the exporter's 0
            code_lines.append((line, got))
            continue
        m = RE_HEALTH_KV.match(line)
        if not m or not m.group(1):  # a key-less line continues Error Information: not read
            continue
        key, value = m.group(1).strip().lower(), m.group(2)
        if key == "npu id" and dev is None and value.isdigit():
            dev = int(value)
        elif key in ("health status", "health") and code_of(value) is not None:
            health = worse_word(health, value)  # the worst of the chips (healthstates' order)
    if dev is None or (health is None and codes is None):
        shown = " ".join(" ".join(lines).split())[:60]
        out.notes.append(("npu-smi info -t health outputs without a device or a Health / Error Code line, not used",
                          f"npu{'?' if dev is None else dev}: {shown!r}"))
        return
    chips[(dev, chip)] = (health, codes)
    node = node_component(out.host)
    for line, got in code_lines:
        sev = stated_level(line, None)  # the severity diagnose --logs gives the line
        out.signals += code_signals(got, t=0.0, node=node, host=out.host, device=dev,
                                    severity=worded_level(line) if sev is None else sev, text=line.strip(),
                                    file=file)


def _reads(tool: str, args: str) -> bool:
    """Whether opsbrain reads this command's output (the module docstring's list; another command's failure, such
    as ``npu-smi info -i 0 -t board``'s ``Invalid card id.``, costs no reading)."""
    if tool == "npu-smi":
        plain = args.split()[:1] == ["info"] and "-t" not in args and not RE_DEV.search(args)
        return plain or bool(RE_HEALTH_CMD.search(args)) or ("-t ecc" in args and bool(RE_DEV.search(args)))
    return bool(RE_DEV.search(args)) and (any(k in args for k in ("-optical", "-link", "-net_health"))
                                         or "-stat" in args.split())


def _judge(out: CommandReadings, read: bool, section: tuple[str, str, list[str]]) -> None:
    """Keep a command that read nothing and whose output says it failed in ``out.failed`` with that line."""
    tool, args, lines = section
    if read or not _reads(tool, args):
        return
    if said := next((ln.strip() for ln in lines if RE_TOOL_ERROR.search(ln)), None):
        out.failed.append((f"{tool} {args}".strip(), said[:200]))


def parse_command_outputs(text: str, host: str | None = None, file: str | None = None) -> CommandReadings:
    """Readings and signals of one collected file (never raises: lines it does not know are skipped). A host its
    prompts name is taken where the caller gives none (:func:`parse_command_file` splits a file of several)."""
    if host is None:
        host = next((h for *_x, h in _prompted(text) if h), None)
    out = CommandReadings(host)
    node = node_component(host)
    chips: dict[tuple[int, str], tuple[str | None, list[str] | None]] = {}
    sections = _sections(text)
    before = 0
    for i, (tool, args, lines) in enumerate(sections):
        if i:
            _judge(out, before != out.size() + len(chips), sections[i - 1])
        before = out.size() + len(chips)
        out.commands += 1
        d = RE_DEV.search(args)
        dev = int(d.group(1)) if d else None
        if tool == "npu-smi" and RE_HEALTH_CMD.search(args):
            c = RE_CHIP.search(args)
            _health(out, dev, c.group(1) if c else "", lines, chips, file)
            continue
        if tool == "npu-smi" and args.split()[:1] == ["info"] and dev is None and "-t" not in args:
            health: dict[int, str] = {}
            temps: dict[int, float] = {}
            for line in lines:
                if m := RE_SMI_ROW.match(line):  # on Atlas A3, one row per die of the NPU: the worst is kept
                    n = int(m.group(1))
                    health[n] = worse_word(health.get(n), m.group(3)) or health.get(n) or m.group(3)
                    temp = _number(m.group(5))
                    if temp is not None:
                        temps[n] = max(temp[0], temps.get(n, -math.inf))
            out.npu_health.update(health)  # a later run of the command in the same file is the newer reading
            out.npu_temp_c.update(temps)
            continue
        if tool == "npu-smi" and "-t ecc" in args and dev is not None:
            rows = 0.0
            for line in lines:
                m = RE_KV.match(line)
                if not m or (num := _number(m.group(2))) is None:
                    continue
                key = m.group(1).lower()
                if key == "hbm single bit aggregate total err cnt":
                    out.hbm_ce_total[dev] = num[0]
                elif key == "hbm double bit aggregate total err cnt":
                    out.hbm_ue_total[dev] = num[0]
                elif key in ("hbm single bit isolated pages count", "hbm double bit isolated pages count"):
                    rows += num[0]
                    out.hbm_rows[dev] = rows
            continue
        if tool != "hccn_tool" or dev is None:
            continue
        comp = f"{node}/npu{dev}" if node else f"npu{dev}"
        if "-optical" in args:
            _optical(out, dev, lines)
        elif "-stat" in args.split():
            _stat(out, dev, lines)
        elif "-link_stat" in args:
            for line in lines:
                if (m := RE_LINK_RECORD.search(line)) and m.group(3) == "DOWN" and (t := ctime_seconds(m.group(2))):
                    out.link_down_times.setdefault(dev, []).append(t)
        elif "-link" in args:
            for line in lines:
                if m := RE_LINK_STATUS.search(line):
                    down = m.group(1).upper() == "DOWN"
                    out.link_down[dev] = down
                    out.signals.append(Signal(0.0, "hccn:down" if down else "hccn:up", comp, host, 2 if down else 0,
                                              line.strip(), device=dev, file=file))
        elif "-net_health" in args:
            for line in lines:
                if not (m := RE_NET_HEALTH.search(line)):
                    continue
                out.net_unhealthy[dev] = m.group(1).lower() not in ("success", "init")
                if out.net_unhealthy[dev]:
                    out.signals.append(Signal(0.0, "hccn:net_health_fail", comp, host, 2, line.strip(), device=dev,
                                              file=file))
    if sections:
        _judge(out, before != out.size() + len(chips), sections[-1])
    for (n, _chip), (state, found) in sorted(chips.items()):
        if state is not None:
            out.health_status[n] = worse_word(out.health_status.get(n), state) or state
        if found is not None:
            have = out.fault_codes.setdefault(n, [])
            have += [c for c in found if c not in have]
    return out
