"""Write a generated fault trace of the published InfiniteHBD trace's shape and size (tests run without ../shared).

Shape: a JSON list of events ``{node_id: uuid, event_time: days, event_type: fault_start|fault_end, fault_type:
{Level, Class, Desc}}`` sorted by time, with 584 faults (1,168 events) on 231 servers over 348 days, times at the
published resolution of 1e-4 day, and 14 faults that end at the instant they start -- the published file's sizes
and quirks (its README). Everything else is drawn here, not taken from that trace: the labels are the rows of
opsbrain/scenario/replay_mapping.yaml with weights of this script's own (heavier on "Unknown Error", as such traces
are), onsets uniform over the window, durations log-normal (median 0.6 day, sigma 1.5; assumed) cut at the window.

    .venv/bin/python tests/data/traces/make_infinitehbd_like.py   # rewrites infinitehbd_like.json beside it
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import numpy as np

SERVERS, FAULTS, DAYS, ZERO_LENGTH, RESOLUTION_D = 231, 584, 348.0, 14, 1e-4
LABELS: list[tuple[str, str, str, float]] = [  # Level, Class, Desc, weight (this script's choice)
    ("Other Failure", "Unknown Error", "Unknown Error", 8),
    ("Other Failure", "Stress Test Failure", "Unknown Error", 5),
    ("Hardware Failure", "GPU", "GPU DBE(Double Bit ECC) > Threshold", 3),
    ("Hardware Failure", "Parameter Plane Cable", "Link Down", 2),
    ("Hardware Failure", "GPU", "GPU device unknow error", 2),
    ("Hardware Failure", "Fan", "Speed Critical (Sensor)", 1.5),
    ("Hardware Failure", "GPU", "GPU PCI link width low", 1),
    ("Hardware Failure", "Power Supply", "Power Supply Failure detected", 1),
    ("Other Failure", "Training Task Troubleshooting", "Suspect Machine Offline", 1),
    ("Software Failure", "Other Failures", "Unknown Error", 0.5),
    ("Hardware Failure", "GPU", "GPU xid Error", 0.5),
    ("Hardware Failure", "NIC", "Rnic Gid Error", 0.5),
    ("Hardware Failure", "NIC", "NIC Link Speed low", 0.5),
    ("Hardware Failure", "GPU", "nvidia-smi Timeout", 0.5),
    ("Hardware Failure", "NIC", "NIC Lost", 0.5),
    ("Software Failure", "Software Tool", "Kubelet Date Absent", 0.3),
    ("Hardware Failure", "GPU", "GPU Lost", 0.3),
    ("Hardware Failure", "Motherboard", "Motherboard Failed", 0.2),
    ("Software Failure", "Operating System", "Kernel Panic", 0.2),
    ("Hardware Failure", "RAID Card", "Bus Correctable error", 0.2),
    ("Hardware Failure", "GPU", "Silent Data Corruption", 0.1),
    ("Hardware Failure", "CPU", "Machine Check Exception ( Uncorrectable )", 0.1),
    ("Other Failure", "Test", "Temporarily Offline", 0.1),
    ("Other Failure", "Change", "Remote Optical Module Failure", 0.1),
    ("Hardware Failure", "GPU", "GPU Temperature High", 0.1),
]


def generate(seed: int = 17) -> list[dict]:
    rng = np.random.default_rng(seed)
    nodes = [str(uuid.UUID(int=int(rng.integers(0, 2**62)) << 64 | int(rng.integers(0, 2**62)), version=4))
             for _ in range(SERVERS)]
    w = np.array([x[3] for x in LABELS])
    which = rng.choice(len(LABELS), size=FAULTS, p=w / w.sum())
    host = np.concatenate([np.arange(SERVERS), rng.integers(0, SERVERS, FAULTS - SERVERS)])  # every server faults
    rng.shuffle(host)
    start = np.round(rng.uniform(0.5, DAYS - 0.5, FAULTS), 4)
    dur = np.round(np.minimum(rng.lognormal(np.log(0.6), 1.5, FAULTS), DAYS - start), 4)
    dur = np.maximum(dur, RESOLUTION_D)
    dur[rng.choice(FAULTS, ZERO_LENGTH, replace=False)] = 0.0
    events = []
    for i in range(FAULTS):
        lv, cl, de, _ = LABELS[which[i]]
        ft = {"Level": lv, "Class": cl, "Desc": de}
        for t, ev in ((start[i], "fault_start"), (round(start[i] + dur[i], 4), "fault_end")):
            events.append({"node_id": nodes[host[i]], "event_time": float(t), "event_type": ev, "fault_type": ft})
    events.sort(key=lambda e: (e["event_time"], e["event_type"] != "fault_start"))
    return events


if __name__ == "__main__":
    out = Path(__file__).with_name("infinitehbd_like.json")
    out.write_text(json.dumps(generate(), indent=1) + "\n", encoding="utf-8")
    print(f"wrote {out}")
