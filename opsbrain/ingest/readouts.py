"""Readouts: lines that print a state a tool read, not an event, an alarm or an error (session 44, conf44).

A status command prints what it finds now: ``hccn_tool -i N -link -g`` the port's ``link status: DOWN``,
``-net_health -g`` ``net health status: Receive timeout``, ``-optical -g`` ``present : not present`` or a lane's
``Rx Los Flag : 0xff``, the Ascend 950's ``-dev_info`` port table a ``DOWN`` row, ``npu-smi info`` a Health column
other than OK, npu-exporter's page the gauges that repeat them (``npu_chip_info_link_status 0``). The ingestion layer
gives each its signal (:mod:`opsbrain.ingest.parsers.hccn`, :mod:`~opsbrain.ingest.parsers.device`,
:mod:`opsbrain.ingest.exporterpage`), the same kinds the events of the same facts give (``hccn:down`` is also the
port's LINK DOWN history record). But a state names no cause: a port without an optical module, disabled, or never
cabled reads ``DOWN`` as a failed one does (blind43 b43c-01: a single 910B3 node built without modules, whose job
failed on its rank table). :func:`is_readout` tells such a signal from one whose line states the event, so that the
diagnosis can weigh an answer that rests on readouts alone (:mod:`opsbrain.diagnosis.statecap`).

A readout is the bare field as the tool prints it (the whole line, after the collector's heads): a line that says the
same inside a log record (``[ERROR] ... link status: DOWN``) is a program reporting it, not a readout, and so are the
link history's time-stamped records, a device's fault event and an ``Error Code`` line.

Sources of the forms: ``link status: DOWN`` Ascend/mind-cluster @22bb3d98 component/ascend-common/devmanager/hccn/
hccn_tool.go ``GetNPULinkStatus`` ("success result example is: link status: DOWN"); ``net health status`` and the
optical fields, the MindCluster FaultDiag guide's npu_info_before.txt
(https://www.hiascend.com/doc_center/source/zh/mindcluster/70rc1/faultdiag/faultdiagug/mindxdlFDUG021.html); the 950
port table and npu-smi's Health column as their parsers cite them; the exporter's series,
component/npu-exporter/collector/metrics/collector_for_network.go and collector_for_npu.go (same commit).
"""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.device import RE_SMI_HEALTH
from opsbrain.ingest.parsers.hccn import RE_OPTICAL_ABSENT, RE_OPTICAL_LOSS, RE_PORT_TABLE
from opsbrain.ingest.signal import Signal
from opsbrain.lazyre import lazy_compile

RE_LINK_FIELD = lazy_compile(r"^\s*link status\s*:\s*(?:UP|DOWN)\s*$", re.I)
"""``hccn_tool -i N -link -g``'s whole answer."""
RE_HEALTH_FIELD = lazy_compile(r"^\s*net health status\s*:\s*+[^:\[\]]+$", re.I)
"""``hccn_tool -i N -net_health -g``'s whole answer (``net health status: Receive timeout``). The spaces after the
colon are read possessively: the value's repeat reads spaces too, and splitting a run of them between the two was
quadratic (review44: 0.12 s for one 4 KB line of spaces before a colon)."""
RE_GAUGE = lazy_compile(r"^\s*npu_chip_info_(?:link|network|health)_status\b")
"""An npu-exporter state gauge's sample (``npu_chip_info_link_status{id="4",...} 0``), as its page quotes it."""

READOUT_KINDS = frozenset({"hccn:down", "hccn:net_health_fail", "hccn:optical_absent", "hccn:optical_loss",
                           "smi:warning", "smi:alarm", "smi:critical", "smi:abnormal", "smi:unknown"})
"""The kinds a readout gives (the same kinds may come from an event's line: :func:`is_readout` reads the line)."""
_FIELDS = (RE_LINK_FIELD, RE_HEALTH_FIELD, RE_OPTICAL_ABSENT, RE_OPTICAL_LOSS, RE_PORT_TABLE, RE_SMI_HEALTH, RE_GAUGE)


def readout_line(text: str) -> bool:
    """Whether a line is a status readout's field (module docstring)."""
    return any(r.search(text) for r in _FIELDS)


def is_readout(s: Signal) -> bool:
    """Whether the signal's line is a status readout (module docstring): a state, not a stated event."""
    return s.kind in READOUT_KINDS and readout_line(s.text)
