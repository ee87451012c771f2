"""The heartbeat check: how long each NPU has not been heard from."""

from __future__ import annotations

import numpy as np

from opsbrain.sweeps.finding import SEVERITIES, Finding, levels
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot


def check_heartbeat(s: Snapshot, p: SweepParams) -> list[Finding]:
    """Age of each NPU's last heartbeat (warn 3 s, alarm 10 s, critical 30 s)."""
    age = s.heartbeat_age_s
    lv = levels(age, p.heartbeat_warn_s, p.heartbeat_alarm_s, p.heartbeat_critical_s)
    actions = {1: "the NPU missed heartbeats: check it again next sweep",
               2: "the NPU stopped answering: check the device plugin and the node; prepare a spare",
               3: "the NPU is lost: move its rank to a spare (process-level recovery) and reset or separate the chip"}
    return [Finding(s.npus[i], "heartbeat", SEVERITIES[lv[i]],
                    f"no heartbeat for {age[i]:.0f} s (warn {p.heartbeat_warn_s:.0f} s, alarm "
                    f"{p.heartbeat_alarm_s:.0f} s, critical {p.heartbeat_critical_s:.0f} s)",
                    actions[int(lv[i])], data={"age_s": age[i]}) for i in np.flatnonzero(lv)]
