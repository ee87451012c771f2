"""A webhook receiver that never answers holds up neither a sweep nor the sweep service's stop (docs/sweeps.md:
a stop waits at most STOP_WAIT_S). Before: each Alarm-or-worse finding was POSTed from the scheduler's one worker
thread with a 5 s timeout, so 28 findings held the sweep (and the process's exit) for minutes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from opsbrain.service.scheduler import STOP_WAIT_S, SweepService, TriggerSpec
from opsbrain.store import RunStore
from opsbrain.sweeps.checks import Finding
from opsbrain.sweeps.sweep import SweepReport


class _ManyAlarms:
    """A pod whose every sweep finds 12 Alarm findings, on other components each time (each a new alert)."""

    name, speed = "alarm-pod", 1.0

    def __init__(self) -> None:
        self.n = 0

    def sweep(self) -> tuple[SweepReport, list[Any]]:
        self.n += 1
        fs = [Finding(f"pod0/node{k}/l1sw2~pod0/l2plane2/sw05", "link_state", "Alarm", "link down", "replace",
                      float(self.n), {}) for k in range(12 * self.n, 12 * self.n + 12)]
        return SweepReport(float(self.n), fs, {"OK": 1, "Warning": 0, "Alarm": len(fs), "Critical": 0}, 1.0,
                           {f.component: "Alarm" for f in fs}, {"link_state": len(fs)}), []


def test_an_unanswering_webhook_holds_up_neither_sweeps_nor_the_stop(blackhole: str, tmp_path: Path) -> None:
    pod: Any = _ManyAlarms()
    svc = SweepService(pod, RunStore(tmp_path), TriggerSpec.from_options("0.2s", None), webhook=blackhole)
    svc.start()
    try:
        deadline = time.monotonic() + 4  # sweeps every 0.2 s go on while the posts wait on the receiver
        while pod.n < 3:
            assert time.monotonic() < deadline, f"only {pod.n} sweep(s) in 4 s: the webhook held the scheduler"
            time.sleep(0.05)
    finally:
        t0 = time.monotonic()
        svc.stop()
        stop_s = time.monotonic() - t0
    assert stop_s <= STOP_WAIT_S + 1.0, stop_s
    assert any("not sent" in e for e in svc.webhook_errors), svc.webhook_errors[:3]  # said, not silently lost
