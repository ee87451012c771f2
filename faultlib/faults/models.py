"""One fault model per catalogue kind: progression, telemetry, sympathetic noise, effect on workloads."""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import simpy

from faultlib import ids
from faultlib.faults.base import FaultModel
from faultlib.health import Health
from faultlib.telemetry import formats as fmt

Gen = Generator[simpy.Event, Any, None]


# ---- HBM ------------------------------------------------------------------------------------------
class HbmCeStorm(FaultModel):
    """Correctable-error storm: CE counter climbs fast, periodic device warnings; heals by itself."""

    kind = "hbm_ce_storm"

    def run(self) -> Gen:
        npu = ids.npu_of(self.target) or self.target
        rate = float(self.param("rate_per_s", self.p.ce_storm_rate_per_s))
        dur = float(self.spec.duration_s or self.p.ce_storm_duration_s)
        hub = self.sim.telemetry
        base_slope = hub.metrics.slope("hbm_ce_total", self.target, self.sim.now)
        hub.metrics.add("hbm_ce_total", self.target, self.sim.now, 0.0, slope=base_slope + rate)
        n_reports = max(1, int(dur // 300))
        for _ in range(n_reports):
            # the device reports once errors have accumulated (a report at onset would read ce_count=0)
            yield self.wait(dur / n_reports)
            total = hub.read("hbm_ce_total", self.target, default=0.0) or 0.0
            self.emit.device_event(npu, fmt.HBM_CE_CODE, f"hbm correctable ecc errors, ce_count={int(total)}",
                                   level="WARNING")
        hub.metrics.add("hbm_ce_total", self.target, self.sim.now, 0.0, slope=base_slope)
        self.end()


class HbmUce(FaultModel):
    """Uncorrectable multi-bit ECC error: the rank's process dies; follow-on AICore/bus errors within seconds."""

    kind = "hbm_uce"

    def run(self) -> Gen:
        npu = ids.npu_of(self.target) or self.target
        addr = int(self.rng.integers(0, 2**31))
        self.emit.device_event(npu, "80E01801", f"hbm multi-bit ecc error, uncorrectable, addr=0x{addr:08x}")
        self.emit.plugin(npu, "80E01801", "RestartBusiness")
        self.sim.telemetry.count("hbm_uce_total", self.target)
        self.hit(npu, "crash", "NPU error, error code is 507053")
        self.emit.plog_runtime(npu, 507053, "the error from device(chipId, dieId)")
        yield self.wait(self.p.followon_delay_s)
        self.emit.device_event(npu, "80C98000", "aicore instruction data verify failed")
        self.emit.plog_runtime(npu, 507015)
        self.end()


class HbmRowExhaustion(FaultModel):
    """Isolated HBM rows climb past 16 (warning) to 64: the chip must be separated and replaced."""

    kind = "hbm_row_exhaustion"

    def run(self) -> Gen:
        npu = ids.npu_of(self.target) or self.target
        ctrl = self.sim.params.control
        rows = max(int(self.param("rows_at_onset", self.p.rows_at_onset)),
                   int(self.sim.telemetry.read("hbm_isolated_rows", self.target, default=0.0) or 0))
        warned = False
        while rows < ctrl.hbm_rows_replace_threshold:
            rows += 1
            self.sim.telemetry.metric("hbm_isolated_rows", self.target, float(rows))
            self.emit.device_event(npu, "80E01801", f"hbm multi-bit ecc error, row isolated, isolated_rows={rows}",
                                   level="WARNING")
            if rows >= ctrl.hbm_rows_warn_threshold and not warned:
                warned = True
                self.emit.device_event(npu, "80E18401", f"hbm isolated rows reached {rows}", level="WARNING")
            yield self.wait(self.rng.exponential(self.p.rows_growth_interval_s))
        self.emit.device_event(npu, "80E18402", f"hbm isolated rows reached {rows}, replace the device")
        self.emit.plugin(npu, "80E18402", "SeparateNPU")
        self.set_health(npu, Health.FAILED)
        self.hit(npu, "crash", "NPU error, error code is 507053")
        self.end()


class HbmOvertemp(FaultModel):
    """HBM temperature ramps past the alarm to the fatal limit; the chip stops."""

    kind = "hbm_overtemp"

    def run(self) -> Gen:
        npu = ids.npu_of(self.target) or self.target
        p = self.p
        slope = (p.hbm_temp_fatal_c - p.hbm_temp_nominal_c) / p.overtemp_ramp_s
        self.sim.telemetry.metric("hbm_temp_c", self.target, p.hbm_temp_nominal_c, slope=slope)
        yield self.wait((p.hbm_temp_alarm_c - p.hbm_temp_nominal_c) / slope)
        self.emit.device_event(npu, "80E00209", f"hbm temperature {p.hbm_temp_alarm_c:.0f}C over alarm threshold",
                               level="WARNING")
        yield self.wait((p.hbm_temp_fatal_c - p.hbm_temp_alarm_c) / slope)
        self.sim.telemetry.metric("hbm_temp_c", self.target, p.hbm_temp_fatal_c)
        self.emit.device_event(npu, "80E0020B", f"hbm temperature {p.hbm_temp_fatal_c:.0f}C fatal, device stopped")
        self.emit.plugin(npu, "80E0020B", "SeparateNPU")
        self.set_health(npu, Health.FAILED)
        self.hit(npu, "crash", "NPU error, error code is 507010")
        self.end()


# ---- optical links --------------------------------------------------------------------------------
class _LinkFault(FaultModel):
    def link_ends(self) -> tuple[str, str]:
        lk = self.sim.topology.links[self.target]
        return lk.a, lk.b

    def port_of(self, end: str) -> int:
        """Port number on ``end`` facing the other end (L1 port = L2 chip index, L2 port = node index)."""
        a, b = self.link_ends()
        return ids.index(b, "sw") if end == a else ids.index(a, "node")

    def down(self, reason: str) -> None:
        self.set_health(self.target, Health.FAILED)
        self.sim.telemetry.count("link_down_total", self.target)
        self.emit.link_state(self.target, up=False, reason=reason)

    def up(self) -> None:
        if self.sim.state.health(self.target) == Health.FAILED:
            self.set_health(self.target, Health.HEALTHY)
            self.emit.link_state(self.target, up=True)

    def crc_burst(self) -> None:
        self.sim.telemetry.count("link_crc_total", self.target, float(self.p.crc_burst))


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
        for k in range(1, lanes):
            self.sim.state.set_lanes_down(self.target, k, cause=f"fault:{self.truth.id}")
            a, _ = self.link_ends()
            self.sim.telemetry.log(a, "switch", "WARN", fmt.switch_port_state(
                self.sim.wallclock(), fmt.hostname(a), self.port_of(a), True,
                f"lanes degraded, {lanes - k}/{lanes} lanes up"))
            # lanes - 1 drops, evenly spaced, so the link dies when Rx reaches link_down_rx_dbm
            yield self.wait((hours_to_down - hours_to_lane) * 3600 / max(1, lanes - 1))
        self.down("loss of signal")
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
            self.down("link flap")
            yield self.wait(self.rng.exponential(self.p.flap_down_s))
            self.up()
            n += 1
            yield self.wait(self.rng.exponential(self.p.flap_gap_s))
        self.end()


class LinkDown(_LinkFault):
    kind = "link_down"

    def run(self) -> Gen:
        self.crc_burst()
        self.down(str(self.param("cause", "loss of signal")))
        if (yield from self.heal_after_duration()):
            self.up()
        self.end()


class DirtyConnector(_LinkFault):
    """A short flap that heals by itself (dirty fibre end-face)."""

    kind = "dirty_connector"

    def run(self) -> Gen:
        self.crc_burst()
        self.down("signal lost")
        yield self.wait(self.rng.exponential(self.p.dirty_flap_down_s))
        self.up()
        self.end()


# ---- switches ---------------------------------------------------------------------------------------
class L1SwitchFailure(FaultModel):
    """An on-board L1 chip dies: its 16 uplinks and the dies' links to it go down."""

    kind = "l1_switch_failure"

    def run(self) -> Gen:
        sw = self.target
        node = ids.node_of(sw) or ""
        self.set_health(sw, Health.FAILED)
        self.emit.syslog(node, f"ub switch chip l1sw{ids.index(sw, 'l1sw')} not responding, chip fault")
        for lid in self.sim.topology.links_of[sw]:
            if self.sim.topology.links[lid].kind == "ub_optical":
                self.emit.link_state(lid, up=False, reason="switch chip fault")
        for npu in self.sim.topology.npus_of(node):
            self.emit.device_event(npu, "81B18603", f"ub_port link status up->down, l1sw{ids.index(sw, 'l1sw')}")
        if (yield from self.heal_after_duration()):
            self.set_health(sw, Health.HEALTHY)
        self.end()


class L2SwitchFailure(FaultModel):
    """An L2 chip dies: 48 links of its plane go down at once."""

    kind = "l2_switch_failure"

    def run(self) -> Gen:
        sw = self.target
        self.set_health(sw, Health.FAILED)
        for lid in self.sim.topology.links_of[sw]:
            if self.sim.topology.links[lid].kind == "ub_optical":
                self.emit.link_state(lid, up=False, reason="peer switch chip not responding")
        if (yield from self.heal_after_duration()):
            self.set_health(sw, Health.HEALTHY)
        self.end()


# ---- NPUs ----------------------------------------------------------------------------------------------
class AicoreHang(FaultModel):
    kind = "aicore_hang"

    def run(self) -> Gen:
        die = self.target
        npu = ids.npu_of(die) or die
        self.set_health(die, Health.FAILED)
        self.hit(die, "hang", "HCCL error EI0002: notify wait timeout")
        self.emit.device_event(npu, "80FA4E00", f"ts heartbeat error, die {ids.index(die, 'die')} task scheduler "
                               "not responding")
        yield self.wait(self.p.peer_timeout_report_s)
        self.emit.plog_runtime(npu, 507034)
        self.end()


class NpuOffBus(FaultModel):
    kind = "npu_off_bus"

    def run(self) -> Gen:
        npu = self.target
        node = ids.node_of(npu) or ""
        self.set_health(npu, Health.FAILED)
        self.hit(npu, "crash", "NPU error, error code is 507010")
        self.emit.syslog(node, f"pcieport 0000:{0x80 + ids.index(npu, 'npu'):02x}:00.0: PCIe Bus Error: "
                         "severity=Uncorrected (Fatal), link down")
        yield self.wait(self.p.npu_heartbeat_s * 3)
        self.emit.node_agent(node, f"device Ascend910-{ids.index(npu, 'npu')} heartbeat lost, device "
                             "disconnected")
        self.end()


class NpuFailSlow(FaultModel):
    kind = "npu_fail_slow"

    def run(self) -> Gen:
        npu = self.target
        factor = float(self.param("factor", self.p.fail_slow_factor))
        self.sim.telemetry.metric("npu_temp_c", npu, self.p.npu_temp_throttle_c)
        self.emit.device_event(npu, "80E20207", f"soc temperature {self.p.npu_temp_throttle_c:.0f}C, frequency "
                               "reduced", level="WARNING")
        for w in self.workloads_on(npu):
            if hasattr(w, "set_slowdown"):
                w.set_slowdown(npu, factor)
        yield self.wait(self.spec.duration_s or self.p.fail_slow_duration_s)
        for w in self.workloads_on(npu):
            if hasattr(w, "set_slowdown"):
                w.set_slowdown(npu, 1.0)
        self.sim.telemetry.metric("npu_temp_c", npu, self.sim.params.noise.npu_temp_mean_c)
        self.end()


# ---- nodes ---------------------------------------------------------------------------------------------
class NodeCrash(FaultModel):
    kind = "node_crash"

    def run(self) -> Gen:
        node = self.target
        cause = str(self.param("cause", "Kernel panic - not syncing: Fatal hardware error"))
        self.emit.syslog(node, cause)
        self.set_health(node, Health.FAILED)
        self.hit(node, "crash", "HCCL error EI0006: get socket timeout")
        # the node's L1 chips' uplinks go dark with it: every L2 chip reports its port toward the node down
        for plane in range(self.sim.topology.params.l2_planes):
            for lid in self.sim.topology.uplinks[(node, plane)]:
                self.emit.link_state(lid, up=False, reason="peer down")
        yield self.wait(self.p.node_agent_heartbeat_s)
        self.emit.node_agent(node, f"node {fmt.hostname(node)} heartbeat lost")
        self.end()


class NodeHang(FaultModel):
    kind = "node_hang"

    def run(self) -> Gen:
        node = self.target
        self.set_health(node, Health.FAILED)
        self.hit(node, "hang", "HCCL error EI0002: notify wait timeout")
        self.emit.syslog(node, "watchdog: BUG: soft lockup - CPU#17 stuck for 22s!")
        yield self.wait(self.p.node_agent_heartbeat_s)
        self.emit.node_agent(node, f"node {fmt.hostname(node)} heartbeat lost, devices reported up")
        self.end()


class QingtianFailure(FaultModel):
    kind = "qingtian_failure"

    def run(self) -> Gen:
        card = self.target
        node = ids.node_of(card) or ""
        self.set_health(card, Health.FAILED)
        self.emit.syslog(node, "qingtian: dpu card heartbeat lost, vpc interface eth0 link down")
        self.emit.syslog(node, "nfs: server storage.vpc not responding, still trying", level="WARNING")
        self.hit(node, "hang", "dataloader: read from storage timed out")
        if (yield from self.heal_after_duration()):
            self.set_health(card, Health.HEALTHY)
        self.end()


# ---- RDMA and software -----------------------------------------------------------------------------------
class RocePortDown(FaultModel):
    kind = "roce_port_down"

    def run(self) -> Gen:
        port = self.target
        npu = ids.npu_of(port) or port
        self.set_health(port, Health.FAILED)
        self.emit.device_event(npu, "81078603",
                               f"network port link status up->down, roce port {ids.index(port, 'roce')}")
        self.emit.hccn_link(port, up=False)
        for w in self.workloads_on(npu):
            if w.kind == "inference":
                w.fail(npu, "hang", "HCCL error EI0013: roce error cqe")  # type: ignore[attr-defined]
        yield self.wait(self.p.peer_timeout_report_s)
        self.emit.plog_hccl(npu, "EI0013")
        if (yield from self.heal_after_duration()):
            self.set_health(port, Health.HEALTHY)
            self.emit.hccn_link(port, up=True)
        self.end()


class CollectiveTimeoutSw(FaultModel):
    """A software bug leaves one rank stuck; peers time out waiting; the hardware is healthy."""

    kind = "collective_timeout_sw"

    def run(self) -> Gen:
        node = self.target
        npus = self.sim.topology.npus_of(node)
        stuck = npus[int(self.rng.integers(0, len(npus)))]
        self.hit(stuck, "hang", "HCCL error EI0002: notify wait timeout")
        yield self.wait(self.p.peer_timeout_report_s)
        for w in self.workloads_on(node):
            for other in w.nodes[:4]:
                if other != node:
                    peer = self.sim.topology.npus_of(other)[0]
                    self.emit.plog_hccl(peer, "EI0002", remote=fmt.host_ip(node))
        self.emit.plog_hccl(stuck, "EI9999", "collective operator not launched, host thread blocked")
        self.end()


class SilentDataCorruption(FaultModel):
    kind = "silent_data_corruption"

    def run(self) -> Gen:
        npu = self.target
        node = ids.node_of(npu) or ""
        yield self.wait(self.param("detect_delay_s", self.p.sdc_detect_delay_s))
        for w in self.workloads_on(npu):
            if w.kind == "training":
                self.emit.train(node, f"loss is nan, grad norm is inf on device[{ids.index(npu, 'npu')}]; "
                                "stopping training")
                w.fail(npu, "crash", "loss is nan, grad norm is inf")  # type: ignore[attr-defined]
        self.end()


MODELS: dict[str, type[FaultModel]] = {m.kind: m for m in (
    HbmCeStorm, HbmUce, HbmRowExhaustion, HbmOvertemp, OpticalDegradation, LinkFlap, LinkDown, DirtyConnector,
    L1SwitchFailure, L2SwitchFailure, AicoreHang, NpuOffBus, NpuFailSlow, NodeCrash, NodeHang, QingtianFailure,
    RocePortDown, CollectiveTimeoutSw, SilentDataCorruption)}
