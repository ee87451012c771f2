"""npu-smi's health states, one table for every reader that ranks them: the log parser (``smi:<state>`` signals,
:mod:`opsbrain.ingest.parsers.device`), the collected-outputs reader (:mod:`opsbrain.ingest.commands`), the
exporter-page reader (:mod:`opsbrain.ingest.exporterpage`) and the sweep (``Readings.npu_health``, the
``npu_health`` check).

npu-smi's Health column and ``Health`` / ``Health Status`` lines take five values (HDK npu-smi reference, the chip
health queries ``npu-smi info -t health -i id`` and ``-i id -c chip_id``, npusmi_027 / npusmi_028:
https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2520/re/npu/npusmi_028.html): OK (normal),
Warning (一般告警, a minor alarm), Alarm (重要告警, a major alarm), Critical (紧急告警, an urgent alarm), and
UNKNOWN (该设备不存在或未启动: the device does not exist or has not started). The DCMI call behind it,
dcmi_get_device_health (api_024), returns 0..3 for the four alarm levels and 0xFFFFFFFF for a device that does not
exist.

UNKNOWN is therefore not a fifth alarm level: it is a device that did not answer, whose health (and so whatever
fault it has) could not be read. It keeps its own state (code 4, ``Unknown``; before session 43 the sweep read it
as Alarm while the log parser read it as a warning) and is rated **Warning**, everywhere:

- not Alarm or Critical: the device reports no fault; its state is not an alarm level in npu-smi's own list, and
  an NPU that has not started yet (a node still booting, a driver still loading) reads the same;
- not OK, not silence: a device npu-smi lists but cannot read is worth an operator's look (is it present, did its
  driver start, is it off the bus?), as the exporter's own count of NPUs whose health it could not read
  (``machine_unknown_npu_nums``) is a Warning of the sweep's ``npu_count`` check.

An NPU gone from a node whose exporter listed it before is judged by that count check (Critical), not here.

When several readings of one NPU disagree (its chips, or the table and ``-t health``), the worse is kept in the
order OK < Warning < Unknown < Alarm < Critical: a reported alarm says more than a device that did not answer, and a
device that did not answer hides more than a minor alarm.
"""

from __future__ import annotations

HEALTH_STATES = ("OK", "Warning", "Alarm", "Critical", "Unknown")
"""The states by their code in ``Readings.npu_health`` (0 OK .. 3 Critical, 4 Unknown; -1: not read)."""
UNKNOWN = 4
CODE = {s.lower(): i for i, s in enumerate(HEALTH_STATES)}
"""A health word as npu-smi prints it, lower-cased (``unknown`` for ``UNKNOWN``) -> its code."""
ORDER = (0, 1, 3, 4, 2)
"""Each code's place in the worse-of order (OK < Warning < Unknown < Alarm < Critical)."""
SWEEP_SEVERITY = ("OK", "Warning", "Alarm", "Critical", "Warning")
"""Each code's sweep finding severity (the module docstring: Unknown is a Warning)."""
SIGNAL_LEVEL = (0, 1, 2, 2, 1)
"""Each code's ingestion signal severity (0 info, 1 warning, 2 error): ``smi:unknown`` at warning level."""
SIGNAL_KIND = tuple(f"smi:{s.lower()}" for s in HEALTH_STATES)
"""Each code's signal kind (``smi:alarm``, ``smi:unknown``)."""


def code_of(word: str | None) -> int | None:
    """The code of a health word (``Alarm``, ``UNKNOWN``), None for another (``NA``)."""
    return CODE.get((word or "").strip().lower())


def worse(a: int | None, b: int | None) -> int | None:
    """The worse of two codes (module docstring's order); None (not read) loses to any code."""
    if a is None or a < 0:
        return b
    if b is None or b < 0:
        return a
    return a if ORDER[a] >= ORDER[b] else b


def worse_word(a: str | None, b: str | None) -> str | None:
    """The worse of two health words as printed (``b`` on a tie, the later reading); an unknown word loses."""
    ca, cb = code_of(a), code_of(b)
    if cb is None:
        return a if ca is not None else None
    return b if ca is None or worse(ca, cb) == cb else a


def at_fault(code: int) -> bool:
    """Whether the NPU reports a fault of its own: Alarm or Critical (Unknown is no report of a fault)."""
    return code in (2, 3)
