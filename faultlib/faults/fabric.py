"""Fault models of the fabric: optical links (a decaying module, flaps, a hard down, a dirty connector) and the UB
switch chips (an on-board L1 chip, an L2 plane chip). The catalogue's other kinds are in :mod:`faultlib.faults.models`,
whose ``MODELS`` lists them all."""

from __future__ import annotations

import math

from faultlib import ids
from faultlib.faults.base import FaultModel, Gen
from faultlib.health import Health


# ---- optical links --------------------------------------------------------------------------------
class _LinkFault(FaultModel):
    def link_ends(self) -> tuple[str, str]:
        lk = self.sim.topology.links[self.target]
        return lk.a, lk.b

    def port_of(self, end: str) -> int:
        """Port number on ``end`` facing the other end (L1 port = L2 chip index, L2 port = node index)."""
        a, b = self.link_ends()
        return ids.index(b, "sw") if end == a else ids.index(a, "node")

    def down(self) -> None:
        self.sim.state.hold_down(self.target, self.truth.id)
        self.set_health(self.target, Health.FAILED)
        self.sim.telemetry.count("link_down_total", self.target)
        self.emit.link_state(self.target, up=False)

    def up(self) -> None:
        """This fault lets its link go; it comes back up only when no other cause holds it down (a flap burst does
        not bring back a link another fault has failed for good)."""
        if self.sim.state.release_down(self.target, self.truth.id) and \
                self.sim.state.health(self.target) == Health.FAILED:
            self.set_health(self.target, Health.HEALTHY)
            self.emit.link_state(self.target, up=True)

    def crc_burst(self, mean: float | None = None) -> None:
        """CRC errors counted around one down: exponential, mean ``faults.crc_burst`` (a hard flap) or the
        background flap's mean (a dirty end-face is the same physics as a background flap)."""
        m = self.p.crc_burst if mean is None else mean
        if m > 0:
            self.sim.telemetry.count("link_crc_total", self.target, float(math.ceil(self.rng.exponential(m))))


class OpticalDegradation(_LinkFault):
    """Rx power decays over hours; lanes lose lock; finally the link goes down."""

    kind = "optical_degradation"

    def run(self) -> Gen:
        lk = self.sim.topology.links[self.target]
        module = lk.modules[-1] if lk.modules else self.target
        rate = float(self.param("dbm_per_hour", self.p.optical_decay_dbm_per_h))
        dom = self.sim.dom
        dom.set_decay(module, self.sim.now, rate)
        rx0 = float(min(dom.read_module(module, self.sim.now)["rx_dbm"]))
        hours_to_lane = max(0.0, (rx0 - self.p.lane_drop_rx_dbm) / rate)
        hours_to_down = max(hours_to_lane, (rx0 - self.p.link_down_rx_dbm) / rate)
        fec_slope = self.sim.telemetry.metrics.slope("link_fec_corrected_total", self.target, self.sim.now)
        self.sim.telemetry.metrics.add("link_fec_corrected_total", self.target, self.sim.now, 0.0,
                                       slope=fec_slope + self.p.degraded_fec_per_s)
        yield self.wait(hours_to_lane * 3600)
        lanes = lk.lanes
        width = ""
        for k in range(1, lanes):
            self.sim.state.set_lanes_down(self.target, k, cause=f"fault:{self.truth.id}")
            a, _ = self.link_ends()
            # UB switch alarm 0x00f10509 with fault id 132332 (port lanes reduced to half) or 132333 (to a quarter),
            # as the Ascend driver's switch-event table names them (hicann/driver src/custom/lqdrv/kernel/
            # ioctl_comm_def.h; MindCluster's device plugin assembles the same tuples). Assumed: a port that loses a
            # lane retrains to the widest width its working lanes allow (half, then a quarter): one alarm per step
            fid = "132332" if 2 * (lanes - k) >= lanes else "132333"
            if fid != width:
                width = fid
                self.emit.switch_alarm(a, "0x00f10509", "L2", self.port_of(a), fault_id=fid)
                # the node's device plugin relays every fault its L1 chips raise (it subscribes to all of them and
                # logs each, whatever the handling level; ascend-fd fixture dl_log/devicePlugin), as for a link-down
                self.emit.plugin_switch(lk.node or ids.node_of(a) or a, "0x00f10509", fid, "L2", "NotHandle",
                                        chip=ids.index(a, "l1sw"), port=self.port_of(a))
            # lanes - 1 drops, evenly spaced, so the link dies when Rx reaches link_down_rx_dbm
            yield self.wait((hours_to_down - hours_to_lane) * 3600 / max(1, lanes - 1))
        self.down()
        self.end()


class LinkFlap(_LinkFault):
    """Bursts of down/up with CRC bursts; keeps flapping for ``duration_s`` (default: one burst)."""

    kind = "link_flap"

    def run(self) -> Gen:
        count = int(self.param("flaps", self.p.flap_count))
        deadline = self.sim.now + self.spec.duration_s if self.spec.duration_s else -math.inf
        n = 0
        while n < count or self.sim.now < deadline:
            if self.sim.state.health(self.target) == Health.ISOLATED:
                break
            self.crc_burst()
            self.down()
            yield self.wait(self.rng.exponential(self.p.flap_down_s))
            self.up()
            n += 1
            yield self.wait(self.rng.exponential(self.p.flap_gap_s))
        self.end()


class LinkDown(_LinkFault):
    kind = "link_down"

    def run(self) -> Gen:
        self.crc_burst()
        self.down()
        if (yield from self.heal_after_duration()):
            self.up()
        self.end()


class DirtyConnector(_LinkFault):
    """A short flap that heals by itself (dirty fibre end-face)."""

    kind = "dirty_connector"

    def run(self) -> Gen:
        self.crc_burst(self.sim.params.noise.flap_crc_burst_mean)
        self.down()
        yield self.wait(self.rng.exponential(self.p.dirty_flap_down_s))
        self.up()
        self.end()


# ---- switches ---------------------------------------------------------------------------------------
class L1SwitchFailure(FaultModel):
    """An on-board L1 chip dies: its 16 uplinks and the dies' links to it go down. The dead chip logs nothing; the
    L2 chips log their ports down, the node's device plugin relays the chip's fatal-fault tuple
    ``[0x00f103b0,155907,na,na]`` (fault id 155907: a fatal switch-chip fault in the driver's switch-event table,
    hicann/driver src/custom/lqdrv/kernel/ioctl_comm_def.h; MindCluster's documentation lists it among
    SeparateFaultCodes) naming the chip, and each NPU's device OS reports its UB port down (0x81B18603, NotHandle)."""

    kind = "l1_switch_failure"

    def run(self) -> Gen:
        sw = self.target
        node = ids.node_of(sw) or ""
        self.set_health(sw, Health.FAILED)
        self.emit.plugin_switch(node, "0x00f103b0", "155907", "na", "SeparateNPU", chip=ids.index(sw, "l1sw"))
        for lid in self.sim.topology.links_of[sw]:
            if self.sim.topology.links[lid].kind == "ub_optical":
                self.emit.link_state(lid, up=False, l1_alive=False, by=sw)
        for npu in self.sim.topology.npus_of(node):
            self.emit.device_event(npu, "81B18603")
        if (yield from self.heal_after_duration()):
            self.set_health(sw, Health.HEALTHY)
            for npu in self.sim.topology.npus_of(node):  # the ports are up again: the event resumes (session 35)
                self.emit.device_event(npu, "81B18603", recovered=True)
        self.end()


class L2SwitchFailure(FaultModel):
    """An L2 chip dies: 48 links of its plane go down at once; only the L1 ends (and their nodes' plugins) log."""

    kind = "l2_switch_failure"

    def run(self) -> Gen:
        sw = self.target
        self.set_health(sw, Health.FAILED)
        for lid in self.sim.topology.links_of[sw]:
            if self.sim.topology.links[lid].kind == "ub_optical":
                self.emit.link_state(lid, up=False, l2_alive=False, by=sw)
        if (yield from self.heal_after_duration()):
            self.set_health(sw, Health.HEALTHY)
        self.end()
