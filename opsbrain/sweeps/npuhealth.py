"""The sweep's ``npu_health`` check: the health each NPU reports of itself and the fault codes it reports.

The health codes are :mod:`opsbrain.ingest.healthstates`' (0 OK, 1 Warning, 2 Alarm, 3 Critical, 4 Unknown; -1 not
read): npu-smi's Health column and ``-t health`` lines (the ``commands`` source), npu-exporter's
``npu_chip_info_health_status`` 1 healthy / 0 unhealthy (read as Alarm; MindCluster NPU Exporter metrics reference).
npu-smi's UNKNOWN (the device does not exist or has not started) is its own state, rated Warning: that module's
docstring says why.
"""

from __future__ import annotations

import numpy as np

from opsbrain.ingest.healthstates import HEALTH_STATES, SWEEP_SEVERITY, UNKNOWN
from opsbrain.sweeps.finding import Finding, worst
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot

UNKNOWN_SAID = ("npu-smi reports its health UNKNOWN: the device does not exist or has not started (npu-smi "
                "reference), so its health and any fault of it could not be read")
UNKNOWN_ACTION = ("check that the NPU is there and started: npu-smi info -l lists it, lspci shows it on the bus, dmesg "
                  "and the driver's log show its start-up; a job's NPU that stays UNKNOWN is lost to that job")


def health_scope(s: Snapshot) -> int:
    """NPUs whose health or fault codes were read."""
    read = s.npu_health >= 0 if s.npu_health is not None else np.zeros(len(s.npus), dtype=bool)
    if s.npu_fault_codes is not None:
        read = read | np.fromiter((bool(c) for c in s.npu_fault_codes), dtype=bool, count=len(s.npus))
    return int(read.sum())


def check_npu_health(s: Snapshot, p: SweepParams) -> list[Finding]:
    """The health each NPU reports of itself, and the fault event codes it reports (npu-exporter's
    ``npu_chip_info_error_code``) with what the knowledge base says of each (:mod:`opsbrain.sweeps.devcodes`): the
    worse of the stated health's severity and the codes' levels (a level asking for no action, or an unknown code, a
    Warning; the Unknown state a Warning)."""
    from opsbrain.sweeps.devcodes import meaning

    health = s.npu_health if s.npu_health is not None else np.full(len(s.npus), -1, dtype=np.int8)
    codes = s.npu_fault_codes or ((),) * len(s.npus)
    out = []
    for i in sorted(set(np.flatnonzero(health > 0).tolist()) | {k for k, c in enumerate(codes) if c}):
        code = int(health[i])
        state = HEALTH_STATES[code] if 0 < code < len(HEALTH_STATES) else None
        known = [meaning(c) for c in codes[i]]
        said = [UNKNOWN_SAID if code == UNKNOWN else
                f"the device reports its health {state} (npu-smi Health, or npu-exporter health_status 0)"
                ] if state else []
        actions = list(dict.fromkeys(f"{m.level}: {m.action}" for m in known if m.action))
        out.append(Finding(
            s.npus[i], "npu_health", worst(SWEEP_SEVERITY[code] if state else "OK", *(m.severity for m in known)),
            "; ".join(said + [m.text() for m in known]),
            ("act on its fault codes' levels (" + "; ".join(actions) + ")") if actions else
            UNKNOWN_ACTION if code == UNKNOWN else
            "read its error codes (npu-smi info -t health -i N shows them) and act on what they say",
            data={"health": state or ("OK" if code == 0 else "not read"),
                  **({"fault_codes": [m.as_dict() for m in known]} if known else {})}))
    return out
