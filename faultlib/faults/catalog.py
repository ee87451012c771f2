"""The fault kinds the plant can suffer: what each targets, how it is handled, where it counts.

This table is the shared vocabulary of the fault models, the injectors (scripted, random, trace replay) and the
knowledge base. Handling levels follow MindCluster's scale (facts.md §3); categories follow the Llama 3 405B
interruption table (facts.md §4); ``interrupts`` says whether the fault interrupts a job by itself (counted in
the Llama 3 table) or is a precursor / degradation that does not.
"""

from __future__ import annotations

from dataclasses import dataclass

HANDLING_LEVELS = ("NotHandle", "SubHealth", "RestartRequest", "RestartBusiness", "FreeRestartNPU",
                   "RestartNPU", "PreSeparateNPU", "SeparateNPU", "ManuallySeparateNPU")


@dataclass(frozen=True, slots=True)
class FaultKind:
    name: str
    family: str          # hbm | optical | switch | npu | node | rdma | software
    targets: tuple[str, ...]  # topology kinds it can hit ("hbm", "npu", "ub_optical", "l2", ...)
    level: str           # MindCluster handling level
    category: str        # Llama 3 root-cause category (or "none" for non-interrupting faults)
    interrupts: bool     # interrupts a job on its own
    self_heals: bool
    summary: str


_KINDS = [
    FaultKind("hbm_ce_storm", "hbm", ("hbm",), "SubHealth", "none", False, True,
              "burst of correctable HBM ECC errors; a precursor of an uncorrectable error"),
    FaultKind("hbm_uce", "hbm", ("hbm",), "RestartBusiness", "GPU HBM3 memory", True, False,
              "uncorrectable multi-bit HBM ECC error; the process on that NPU dies"),
    FaultKind("hbm_row_exhaustion", "hbm", ("hbm",), "SeparateNPU", "GPU HBM3 memory", True, False,
              "isolated HBM rows reach the replacement threshold; the chip must be replaced"),
    FaultKind("hbm_overtemp", "hbm", ("hbm",), "SeparateNPU", "GPU thermal interface + sensor", True, False,
              "fatal HBM over-temperature; the chip stops"),
    FaultKind("optical_degradation", "optical", ("ub_optical",), "SubHealth", "none", False, False,
              "optical module ageing: Rx power decays over hours, SNR falls, lanes drop, then the link dies"),
    FaultKind("link_flap", "optical", ("ub_optical",), "RestartRequest", "network switch/cable", True, False,
              "link goes down and up in bursts with CRC error bursts"),
    FaultKind("link_down", "optical", ("ub_optical",), "PreSeparateNPU", "network switch/cable", True, False,
              "module death or fibre cut: the link stays down"),
    FaultKind("dirty_connector", "optical", ("ub_optical",), "NotHandle", "none", False, True,
              "dirty fibre end-face: a short flap that heals by itself"),
    FaultKind("l1_switch_failure", "switch", ("l1",), "SeparateNPU", "network switch/cable", True, False,
              "an on-board L1 UB switch chip dies: the node loses one of its 7 planes"),
    FaultKind("l2_switch_failure", "switch", ("l2",), "RestartRequest", "network switch/cable", True, False,
              "an L2 UB switch chip dies: 48 links of one plane go down at once"),
    FaultKind("aicore_hang", "npu", ("die",), "RestartNPU", "faulty GPU", True, False,
              "a die's AI cores hang; its ranks stop progressing"),
    FaultKind("npu_off_bus", "npu", ("npu",), "SeparateNPU", "GPU system processor", True, False,
              "the chip falls off the bus: heartbeat lost, device gone"),
    FaultKind("npu_fail_slow", "npu", ("npu",), "SubHealth", "none", False, False,
              "thermal throttling: a straggler slows every synchronous step"),
    FaultKind("node_crash", "node", ("node",), "SeparateNPU", "host maintenance", True, False,
              "kernel panic or power loss: the node and all its ports go down"),
    FaultKind("node_hang", "node", ("node",), "RestartBusiness", "host maintenance", True, False,
              "the host hangs: heartbeat lost while devices still report up"),
    FaultKind("qingtian_failure", "node", ("qingtian",), "RestartBusiness", "IO expansion board", True, False,
              "the Qingtian card fails: VPC plane and storage path of the node are lost"),
    FaultKind("roce_port_down", "rdma", ("roce",), "RestartRequest", "NIC", True, False,
              "a die's RoCE port goes down; traffic can borrow the sibling die's port"),
    FaultKind("collective_timeout_sw", "software", ("node",), "RestartBusiness", "software bug", True, False,
              "a software bug leaves a rank stuck; the collective times out with healthy hardware"),
    FaultKind("silent_data_corruption", "software", ("npu",), "RestartBusiness", "silent data corruption", True,
              False, "wrong results from a chip: loss spike or NaN, no hardware error reported"),
]

CATALOG: dict[str, FaultKind] = {k.name: k for k in _KINDS}

SURVIVES_STOP = frozenset({"npu_off_bus", "l1_switch_failure", "qingtian_failure"})
"""Kinds that are a broken part, whether its host runs or not: injected while the host is stopped they show once it
is back (a chip dead on its bus, a dead switch chip or card is still dead after the reboot). Every other kind on a
host's part is an event of a running host (a hang, an error raised on a memory access, heat, throttling, a port
going down, a stuck or wrong computation): on a stopped host nothing runs for it to happen to, and it changes
nothing (see faultlib.engine, docs/faults.md)."""


def kind(name: str) -> FaultKind:
    try:
        return CATALOG[name]
    except KeyError:
        raise KeyError(f"unknown fault kind {name!r} (known: {', '.join(sorted(CATALOG))})") from None
