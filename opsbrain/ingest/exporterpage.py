"""An npu-exporter ``/metrics`` page given to ``diagnose --logs`` (session 41).

A page saved with ``curl -s NODE:8082/metrics > node-1.prom`` (or pasted from one) is no log: before session 41
its lines went through the log parsers and the text fallback, which read the ``# HELP npu_chip_info_error_code the
npu error code`` lines' words as a framework error (confidence 0.34) and left the unhealthy NPU's fault code
0x80E01801 unread. Now a file whose first lines are all the Prometheus text format (``# HELP`` / ``# TYPE`` lines
and samples, Prometheus docs "Exposition formats") and name an npu-exporter series is read as the page it is, by
the same reader the sweeps use (:func:`opsbrain.sources.exporter.parse_page`), and what it says of faults becomes
the signals the same facts give in a log or a collected command output:

- ``npu_chip_info_error_code`` / ``_1`` .. ``_9`` (the device's fault event ids as decimals): ``dev:<CODE>`` on
  ``<node>/npu<id>``, as npu-smi's ``Error Code`` line gives (:mod:`opsbrain.ingest.smihealth`);
- ``npu_chip_info_health_status`` 0 (unhealthy, read as Alarm): ``smi:alarm``, as npu-smi's Health column;
- ``npu_chip_info_link_status`` 0 (DOWN) and ``npu_chip_info_network_status`` 0: ``hccn:down`` and
  ``hccn:net_health_fail`` on the NPU, as ``hccn_tool -link -g`` / ``-net_health -g`` outputs give them
  (:func:`opsbrain.ingest.commands.parse_command_file`).

Names, labels and values: Ascend/mind-cluster @22bb3d98 ``component/npu-exporter/collector/metrics/
collector_for_npu.go`` (``getHealthCode``: Healthy 1, else 0; ``updateErrorCodesInfo``), ``collector_for_network.go``
and ``docs/en/scheduling/api/npu_exporter/01_prometheus_metrics_api.md``. The rest of a page (temperatures,
counters, optical power) are readings for thresholds and windows, not events: the sweep reads them
(``opsbrain sweep once --source prometheus --url file:///path/page.prom``), and the answer's notes say so."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from itertools import chain
from typing import TYPE_CHECKING

from opsbrain.ingest.healthstates import SIGNAL_KIND, SIGNAL_LEVEL
from opsbrain.ingest.signal import Signal

if TYPE_CHECKING:
    from opsbrain.sources.readings import Readings

RE_META = re.compile(r"^#\s*(?:HELP|TYPE)\s+[a-zA-Z_:][a-zA-Z0-9_:]*(?:\s|$)")
RE_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+\S+(?:\s+-?\d+)?\s*$")
RE_CUT = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*|(?:\{.*\})?(?:\s+\S+(?:\s+(?:-\d*|\d+))?)?\s*)$")
"""A sample line cut short (the start of one: a name, some labels, part of a value): the last line of a page whose
download or copy stopped. A log line (a ``[`` or a date first, several words) is none (review41b). Each run of blanks
has one place to go (review42: before, three runs of blanks in a row could share one, a value and a time stamp that
may be empty between them; the same lines match, but a word and a long run of blanks was tried in cubic time: 2.5
minutes for a 4000-character line, the last of a text's first 64)."""
RE_NPU_NAME = re.compile(r"^(?:#\s*(?:HELP|TYPE)\s+)?(?:npu_chip_[a-zA-Z0-9_]+|machine_npu_nums)\b")
"""npu-exporter's own series (its chips' and the node's NPU count): a page of other exporters' series is not read
this way (node_exporter's page is no NPU evidence: it stays text)."""
RE_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
RE_EVENT_SERIES = re.compile(r"^(npu_chip_info_(?:error_code(?:_\d)?|health_status|link_status|network_status))"
                             r"(\{.*\})?\s")


def is_exporter_page(head: list[str]) -> bool:
    """Whether the first lines of an input are an npu-exporter page: every non-blank line a ``# HELP``/``# TYPE``
    line, another comment or a sample (the last may be cut: a truncated page), and one names an npu-exporter
    series."""
    lines = [x.strip() for x in head if x.strip()]
    if len(lines) > 1 and RE_CUT.match(lines[-1]):
        lines = lines[:-1]
    if not lines or not any(RE_NPU_NAME.match(x) for x in lines):
        return False
    return all(page_line(x) for x in lines)


def page_line(line: str) -> bool:
    """A line of the Prometheus text format: blank, a comment or a sample."""
    x = line.strip()
    return not x or x.startswith("#") or RE_SAMPLE.match(x) is not None


def split_page(lines: Iterator[str]) -> tuple[list[str], Iterator[str]]:
    """The page's lines (up to the first line that is none: a page saved with log lines after it, ``curl .../metrics;
    dmesg`` into one file; a last line cut short is the page's) and the lines after it (review41b: before, such a
    file was refused whole and its log lines were lost)."""
    page: list[str] = []
    for raw in lines:
        if page_line(raw):
            page.append(raw)
            continue
        nxt = next(lines, None)
        if nxt is None and RE_CUT.match(raw.strip()):
            page.append(raw)
            return page, iter(())
        return page, chain([raw], [] if nxt is None else [nxt], lines)
    return page, iter(())


def _read(lines: list[str], host: str | None) -> tuple[Readings, bool]:
    """The page's readings, and whether its last line was left out: a page cut inside its last line (a copy or a
    download that stopped) is read without that line. ValueError (the first parse's) when it is not the text
    format."""
    from opsbrain.sources.exporter import parse_page

    try:
        return parse_page("\n".join(lines) + "\n", default_host=host), False
    except ValueError:
        if len(lines) < 2 or not RE_CUT.match(lines[-1].strip()):
            raise
        try:
            return parse_page("\n".join(lines[:-1]) + "\n", default_host=host), True
        except ValueError:
            pass
        raise


def page_signals(lines: list[str], host: str | None, file: str | None, t: float,
                 found: list[str] | None = None) -> tuple[list[Signal], str]:
    """The fault signals of a page's lines (each placed on the line of its series) and one note saying how the
    page was read; ``found`` gets what its node health summary finds beyond them (:func:`node_health_found`).
    ValueError when the text is not the Prometheus text format."""
    from opsbrain.sources.exporter import chip_npu, series_node

    r, cut = _read(lines, host)
    if host is None:  # the summary of a page naming no node (a file given alone): read as its own node's ("")
        _node_summary(r, lines)
    where: dict[tuple[str, str], tuple[int, str]] = {}  # (series family, NPU) -> its first line
    for n, line in enumerate(lines, 1):
        if (m := RE_EVENT_SERIES.match(line)) is None:
            continue
        labels = {k: v for k, v in RE_LABEL.findall(m.group(2) or "")}
        family = "error_code" if m.group(1).startswith("npu_chip_info_error_code") else m.group(1)
        where.setdefault((family, chip_npu(series_node(labels, host), labels)), (n, line.strip()))
    out: list[Signal] = []

    def add(kind: str, npu: str, family: str, severity: int) -> None:
        n, text = where.get((family, npu), (None, f"{family} of {npu}"))
        node, _, dev = npu.rpartition("/npu")
        out.append(Signal(t, kind, npu, node or host, severity, text, device=int(dev) if dev.isdigit() else None,
                          line_no=n, file=file))

    for npu, codes in r.npu_fault_codes.items():
        for code in codes:
            add(f"dev:{code}", npu, "error_code", 2)
    for npu, level in r.npu_health.items():
        if 0 < level < len(SIGNAL_KIND):  # 0 OK; npu-exporter's 0 (unhealthy) is read as Alarm (2): healthstates
            add(SIGNAL_KIND[level], npu, "npu_chip_info_health_status", SIGNAL_LEVEL[level])
    for attr, kind, family in (("link_oper_down", "hccn:down", "npu_chip_info_link_status"),
                               ("link_net_unhealthy", "hccn:net_health_fail", "npu_chip_info_network_status")):
        for port, bad in getattr(r, attr).items():
            if bad and (m := re.match(r"^(.*?npu\d+)/", port)):
                add(kind, m.group(1), family, 2)
    npus = len(r.npu_health or r.npu_temp_c)
    note = (f"{file or 'input'}: an npu-exporter metrics page (Prometheus text format), not log lines: read for its "
            f"{npus} NPUs' fault codes, health and link states ({len(out)} signals); its temperatures, ECC counters "
            "and optical power are the sweep's: opsbrain sweep once --source prometheus --url file:///PATH"
            + (f"; its last line (line {len(lines)}) cut short, not read: a truncated page?" if cut else "")
            + "".join(f"; {x}" for x in node_health_notes(r)))
    if found is not None:
        found += node_health_found(r)
    return out, note


RE_SUMMARY = re.compile(r"^(machine_(?:unhealthy|unknown)_npu_nums)(?:\{\})?\s+(\S+)")
"""The node health summary's two series as npu-exporter writes them: no labels, no time stamp
(collector_for_npu.go ``MustNewConstMetric(machineUnhealthyDesc, ...)``)."""


def _node_summary(r: Readings, lines: list[str]) -> None:
    """A page that names no node (no ``instance``/``node`` label, no host) keeps its summary under node ``""``, where
    its chips' series are (``npu0``): the sweep's reader refuses a count of no node (session 35), the page reader
    says it (session 42)."""
    for line in lines:
        if (m := RE_SUMMARY.match(line.strip())) is not None:
            try:
                v = float(m.group(2))
            except ValueError:
                continue
            if math.isfinite(v) and v == int(v) and v >= 0:  # NaN / +Inf: no count (review42: they raised)
                (r.node_npu_unhealthy if "unhealthy" in m.group(1) else r.node_npu_unknown).setdefault("", v)


def _summary_rows(r: Readings) -> Iterator[tuple[str, float, float, float]]:
    """Per node with a health summary: its name, the NPUs it counts unhealthy, those its chips' series show at fault
    (health Alarm or worse, or a fault code) and the NPUs whose health it could not read."""
    from opsbrain.sources.portreadings import shown_unhealthy

    shown = shown_unhealthy(r)
    for node in sorted(r.node_npu_unhealthy.keys() | r.node_npu_unknown.keys()):
        yield node, r.node_npu_unhealthy.get(node, 0.0), shown.get(node, 0), r.node_npu_unknown.get(node, 0.0)


def node_health_found(r: Readings) -> list[str]:
    """What the page's node health summary finds that its chips' series do not, one phrase per node and kind, for an
    answer's headline (session 43, diag43b: before, an answer whose only finding this was read "no fault found"):
    ``1 NPU unhealthy by the node summary of node-1 (machine_unhealthy_npu_nums; no per-device series explains it)``,
    ``1 NPU whose health the exporter of node-1 could not read (machine_unknown_npu_nums)``. No class is drawn from
    either (:func:`node_health_notes`)."""
    found = []
    for node, bad, seen, unknown in _summary_rows(r):
        of, extra = node or "its node", bad - seen
        if extra > 0:
            them = "them" if extra != 1 else "it"
            found.append(f"{extra:.0f} NPU{'s' * (extra != 1)} unhealthy by the node summary of {of} "
                         f"(machine_unhealthy_npu_nums; no per-device series explains {them})")
        if unknown > 0:
            found.append(f"{unknown:.0f} NPU{'s' * (unknown != 1)} whose health the exporter of {of} could not read "
                         "(machine_unknown_npu_nums)")
    return found


def node_health_notes(r: Readings) -> list[str]:
    """What the page's node health summary says that its chips' series do not (session 42): NPUs counted unhealthy
    (``machine_unhealthy_npu_nums``) beyond those whose own series show a fault (health 0 or a fault code), and NPUs
    whose health the exporter could not read (``machine_unknown_npu_nums``): a symptom of the node, said, from which
    no class is drawn. One line per node; none when there is nothing to say (or the page has no summary: releases
    before 2026-08)."""
    said = []
    for node, bad, seen, unknown in _summary_rows(r):
        parts = []
        if bad > seen:
            parts.append(f"counts {bad:.0f} unhealthy NPUs (machine_unhealthy_npu_nums), its NPUs' own series show "
                         f"{seen} at fault: {bad - seen:.0f} unhealthy NPU(s) no per-device series explains (find "
                         "it: npu-smi info)")
        if unknown > 0:
            parts.append(f"could not read the health of {unknown:.0f} NPUs (machine_unknown_npu_nums)")
        if parts:
            said.append(f"the exporter of {node or 'its node'} " + " and ".join(parts))
    return said


__all__ = ["is_exporter_page", "node_health_found", "node_health_notes", "page_signals", "split_page"]
