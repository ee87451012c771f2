"""One fault model per catalogue kind: progression, telemetry, sympathetic noise, effect on workloads. The links' and
switches' models are in :mod:`faultlib.faults.fabric`; :data:`MODELS` names every kind's."""

from __future__ import annotations

import contextlib
import math

import simpy

from faultlib import ids
from faultlib.faults.base import FaultModel, Gen
from faultlib.faults.fabric import (
    DirtyConnector,
    L1SwitchFailure,
    L2SwitchFailure,
    LinkDown,
    LinkFlap,
    OpticalDegradation,
)
from faultlib.health import Health
from faultlib.telemetry import formats as fmt


# ---- HBM ------------------------------------------------------------------------------------------
class HbmCeStorm(FaultModel):
    """Correctable-error storm: the CE counter climbs at ``rate_per_s`` (while its chip runs: the log writes the
    counter's slope, :mod:`faultlib.telemetry.celog`) and heals by itself. The storm's errors join
    the stack's correctable-error log (:mod:`faultlib.telemetry.celog`, the one the background's errors fill too),
    which the device reports each time it holds ``faults.ce_log_limit`` errors (0x80E01805: correctable errors
    reached their logging limit), no more often than its sensor check (``faults.ce_sensor_check_s``): a faster storm
    reports sooner and more often; one that never fills the log before it ends prints nothing. The errors arrive
    independently (a Poisson process at the storm's rate), so the time to fill the log is Gamma-distributed (shape:
    the free records; mean: that many over the rate). The reports are the line background errors print too: only
    their rate tells a storm."""

    kind = "hbm_ce_storm"

    def _rate(self) -> float:
        return float(self.param("rate_per_s", self.p.ce_storm_rate_per_s))

    def run(self) -> Gen:
        rate, dur = self._rate(), float(self.spec.duration_s or self.p.ce_storm_duration_s)
        self.truth.duration_s = dur  # the default too: the journal's injected.duration_s (review41, session 41)
        start, log = self.sim.now, self.sim.ce_logs.of(self.target)
        log.set_rate(log.rate + rate)  # the log writes the counter's slope too (none while the chip is down)
        # nothing shows before the log's first report (unbounded: the storm ends before it fills the log)
        first = max(log.due, log.last_report + self.p.ce_sensor_check_s) - start
        self.truth.quiet_s = first if first <= dur else math.inf

        def on_report(hbm: str, at: float) -> None:  # a burst of the background's may fill the log sooner
            if hbm == self.target and at - start < self.truth.quiet_s:
                self.truth.quiet_s = at - start

        def stop() -> None:  # the storm's errors stop arriving: it healed, or its part was replaced
            self.sim.ce_logs.listeners.remove(on_report)
            log.set_rate(log.rate - rate)

        self.sim.ce_logs.listeners.append(on_report)
        try:
            yield self.wait(dur)
        except simpy.Interrupt:  # replaced mid-storm: the new part's log does not go on at the storm's rate
            stop()
            raise
        stop()
        self.end()


class HbmUce(FaultModel):
    """Uncorrectable multi-bit ECC error: the rank's process dies with the runtime's memory-UCE code. No follow-on
    device codes: the knowledge graph documents none for 0x80E01801 (its rule list is empty)."""

    kind = "hbm_uce"

    def run(self) -> Gen:
        npu = ids.npu_of(self.target) or self.target
        if self.emit.device_event(npu, "80E01801"):  # the plugin hears of a reported event only
            self.emit.plugin(npu, "80E01801", "RestartBusiness")
        self.sim.telemetry.count("hbm_uce_total", self.target)
        self.emit.plog_runtime(npu, 507053)
        self.hit(npu, "crash", self.npu_error(npu, 507053))
        yield self.wait(0)
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
            self.emit.device_event(npu, "80E01801")
            if rows >= ctrl.hbm_rows_warn_threshold and not warned:
                warned = True
                self.emit.device_event(npu, "80E18401")
            yield self.wait(self.rng.exponential(self.p.rows_growth_interval_s))
        if self.emit.device_event(npu, "80E18402"):  # the plugin hears of a reported event only
            self.emit.plugin(npu, "80E18402", "SeparateNPU")
        self.set_health(npu, Health.FAILED)
        self.hit(npu, "crash", self.npu_error(npu, 507053))
        yield from self.repair_for_duration(npu)
        self.end()


class HbmOvertemp(FaultModel):
    """HBM temperature ramps past the alarm to the fatal limit; the chip stops."""

    kind = "hbm_overtemp"

    def run(self) -> Gen:
        npu = ids.npu_of(self.target) or self.target
        p = self.p
        slope = (p.hbm_temp_fatal_c - p.hbm_temp_nominal_c) / float(self.param("ramp_s", p.overtemp_ramp_s))
        self.sim.telemetry.metric("hbm_temp_c", self.target, p.hbm_temp_nominal_c, slope=slope)
        yield self.wait((p.hbm_temp_alarm_c - p.hbm_temp_nominal_c) / slope)
        self.emit.device_event(npu, "80E00209")
        yield self.wait((p.hbm_temp_fatal_c - p.hbm_temp_alarm_c) / slope)
        self.sim.telemetry.metric("hbm_temp_c", self.target, p.hbm_temp_fatal_c)
        if self.emit.device_event(npu, "80E0020B"):  # the plugin hears of a reported event only
            self.emit.plugin(npu, "80E0020B", "SeparateNPU")
        self.set_health(npu, Health.FAILED)
        self.hit(npu, "crash", self.npu_error(npu, 507010))
        yield self.wait(self.p.npu_heartbeat_s * 3)
        self.emit.heartbeat_lost(npu)
        yield from self.repair_for_duration(npu)
        self.end()


# ---- NPUs ----------------------------------------------------------------------------------------------
class AicoreHang(FaultModel):
    """A die's compute path hangs: its task scheduler stops answering, and the device OS reports device fault event
    0x80FA4E00, the lost heartbeat of the task-scheduler CPU (knowledge_base/codes.yaml; RestartNPU in MindCluster's
    documented fault-code configuration); the rank stalls silently (peers report the wait, see the workloads); the
    runtime of the rank reports the lost TS heartbeat (507010, ACL_ERROR_RT_LOST_HEARTBEAT)."""

    kind = "aicore_hang"

    def run(self) -> Gen:
        die = self.target
        npu = ids.npu_of(die) or die
        self.set_health(die, Health.FAILED)
        self.hit(die, "hang", "")
        self.emit.device_event(npu, "80FA4E00", part=die)  # the hung die's own logical device reports it
        yield self.wait(self.p.peer_timeout_report_s)
        self.emit.plog_runtime(npu, 507010)
        yield from self.repair_for_duration(die, held=npu)  # the chip is repaired (RestartNPU resets the chip)
        self.end()


ON_BUS = "npu_on_bus"
"""1 while the driver lists the chip, 0 while it is off the bus: npu-exporter publishes the count of the chips the
driver lists as ``machine_npu_nums`` (its chip list is re-read on a timer), so a chip off the bus drops out of it."""


class NpuOffBus(FaultModel):
    """The chip leaves the PCIe bus: a fatal AER report on the host, the rank dies with 507010, and the driver
    reports the device's heartbeat lost (0x40F84E00) after three missed beats. The driver stops listing the chip
    (:data:`ON_BUS` 0) until it is back in service (a repair, a reset, a replacement)."""

    kind = "npu_off_bus"

    def run(self) -> Gen:
        npu = self.target
        node = ids.node_of(npu) or ""
        self.set_health(npu, Health.FAILED)
        self.sim.telemetry.metric(ON_BUS, npu, 0.0)

        def back(cid: str, _old: object, new: object) -> None:
            if cid == npu and new == Health.HEALTHY:
                self.sim.telemetry.metric(ON_BUS, npu, 1.0)
                self.sim.state.unsubscribe(back)

        self.sim.state.subscribe(back)
        self.hit(npu, "crash", self.npu_error(npu, 507010))
        self.emit.kernel(node, fmt.pcie_aer(f"0000:{0x80 + ids.index(npu, 'npu'):02x}:00.0", 2,
                                            int(self.rng.integers(0, 3))))
        yield self.wait(self.p.npu_heartbeat_s * 3)
        self.emit.heartbeat_lost(npu)
        yield from self.repair_for_duration(npu)
        self.end()


class NpuFailSlow(FaultModel):
    kind = "npu_fail_slow"

    def run(self) -> Gen:
        npu = self.target
        factor = float(self.param("factor", self.p.fail_slow_factor))
        self.sim.telemetry.metric("npu_temp_c", npu, self.p.npu_temp_throttle_c)
        self.emit.device_event(npu, "80E20207")
        for w in self.workloads_on(npu):
            if hasattr(w, "set_slowdown"):
                w.set_slowdown(npu, factor)
        self.truth.duration_s = dur = float(self.spec.duration_s or self.p.fail_slow_duration_s)  # default: review41
        yield self.wait(dur)
        self.on_replaced()
        self.end()

    def on_replaced(self) -> None:
        npu = self.target
        for w in self.workloads_on(npu):
            if hasattr(w, "set_slowdown"):
                with contextlib.suppress(ValueError):  # the job moved off this NPU meanwhile
                    w.set_slowdown(npu, 1.0)
        self.sim.telemetry.metric("npu_temp_c", npu, self.sim.params.noise.npu_temp_mean_c)
        self.emit.device_event(npu, "80E20207", recovered=True)  # below its threshold again (a new part: nothing)


# ---- nodes ---------------------------------------------------------------------------------------------
class NodeCrash(FaultModel):
    """Kernel panic: the host stops. Its ranks die silently (peers wait, see the workloads); the L2 chips log
    their ports toward the node down (the node's own L1 chips and plugin are on the dead board); the panic text
    itself is the kernel's (kernel/panic.c; read from vmcore-dmesg after the reboot). The host then stays stopped
    (:meth:`~faultlib.state.PlantState.halt_host`: nothing on its board writes a line) until it is back in service.
    A host that is already stopped cannot crash again: nothing runs to panic and its ports are already down, so the
    fault changes and prints nothing (it ends at once, ``cause`` says why)."""

    kind = "node_crash"

    def run(self) -> Gen:
        node = self.target
        if self.sim.state.host_down(node):
            self.truth.quiet_s = math.inf  # nothing any detection path reads changes (the scorer censors it)
            yield self.wait(0)
            self.end(cause="a crash of a host that had already stopped")
            return
        cause = str(self.param("cause", "Kernel panic - not syncing: Fatal machine check"))
        self.emit.kernel(node, cause)
        self.sim.state.halt_host(node)
        self.set_health(node, Health.FAILED)
        for plane in range(self.sim.topology.params.l2_planes):
            for lid in self.sim.topology.uplinks[(node, plane)]:
                self.emit.link_state(lid, up=False, l1_alive=False, by=node)
        yield self.wait(0)
        yield from self.repair_for_duration(node)
        self.end()


class NodeHang(FaultModel):
    """The host hangs (soft lockup): the kernel's watchdog line, the ranks stall silently, heartbeats stop."""

    kind = "node_hang"

    def run(self) -> Gen:
        node = self.target
        self.set_health(node, Health.FAILED)
        self.hit(node, "hang", "")
        cpu = int(self.rng.integers(0, 192))
        secs = int(self.rng.integers(22, 27))
        # the watchdog reports a CPU stuck for more than 2 x watchdog_thresh (10 s by default: 20 s;
        # Documentation/admin-guide/lockup-watchdogs.rst), saying how long: the line comes that long after the onset
        self.hold_repair(node)  # from the onset, as repair_for_duration holds it
        yield self.wait(float(secs))
        if self.sim.state.health(node) == Health.FAILED:
            self.emit.kernel(node, fmt.soft_lockup(cpu, secs, "python3", fmt.pid_of(node)))
        yield from self.repair_for_duration(node)
        self.end()


class QingtianFailure(FaultModel):
    """The Qingtian card fails: the node loses its VPC plane and storage path. What shows is the kernel's NFS and
    hung-task lines (no documented Qingtian-specific code was found); the ranks block in I/O."""

    kind = "qingtian_failure"

    def run(self) -> Gen:
        card = self.target
        node = ids.node_of(card) or ""
        self.set_health(card, Health.FAILED)
        self.emit.kernel(node, fmt.nfs_not_responding("storage.vpc"), level="WARNING")
        self.hit(node, "hang", "")
        yield self.wait(120.0)  # kernel/hung_task.c default hung_task_timeout_secs
        if self.sim.state.health(card) == Health.FAILED:
            # khungtaskd reports every task blocked past the timeout, at most hung_task_warnings (default 10) per
            # boot (kernel/hung_task.c; Documentation/admin-guide/sysctl/kernel.rst): one rank process per NPU
            # of the workloads on the node blocks in I/O; an idle node has none to report
            blocked = [n for n in self.sim.topology.npus_of(node) if self.workloads_on(n)][:10]
            for npu in blocked:
                self.emit.kernel(node, fmt.hung_task("python3", fmt.pid_of(npu)))
        if (yield from self.heal_after_duration()):
            self.set_health(card, Health.HEALTHY)
        self.end()


# ---- RDMA and software -----------------------------------------------------------------------------------
class RocePortDown(FaultModel):
    """A die's RoCE port goes down: the device OS reports 0x81078603, hccn_tool records LINK DOWN, and once RDMA
    retransmissions run out HCCL on both ends reports the error CQE (hicann/hccl docs: Error CQE Occurred). The
    frames the port was receiving as it lost lock fail their FCS: counted on its link's ``link_crc_total`` as for a
    UB link's hard down (``faults.crc_burst``; npu-exporter publishes the count as ``npu_chip_info_rx_fcs_num``)."""

    kind = "roce_port_down"

    def run(self) -> Gen:
        port = self.target
        npu = ids.npu_of(port) or port
        node = ids.node_of(port) or ""
        link = ids.link(port, f"{ids.pod_of(port)}/rdma")
        if self.p.crc_burst > 0 and link in self.sim.topology.links:
            self.sim.telemetry.count("link_crc_total", link, float(math.ceil(self.rng.exponential(self.p.crc_burst))))
        self.set_health(port, Health.FAILED)
        self.emit.device_event(npu, "81078603", part=port)  # reported by the port's die (its logical device)
        self.emit.hccn_link(port, up=False)
        for w in self.workloads_on(npu):
            if w.kind == "inference":
                w.fail(npu, "hang", "")  # type: ignore[attr-defined]
        yield self.wait(self.p.peer_timeout_report_s)
        peers = [n for w in self.workloads_on(npu) for n in w.nodes if n != node][:1]
        for peer in peers:
            self.emit.plog_cqe(npu, peer)
            self.emit.plog_cqe(self.sim.topology.npus_of(peer)[0], node)
        if (yield from self.heal_after_duration()):
            self.set_health(port, Health.HEALTHY)
            self.emit.device_event(npu, "81078603", recovered=True, part=port)  # the port is up again (session 35)
            self.emit.hccn_link(port, up=True)
        self.end()


class CollectiveTimeoutSw(FaultModel):
    """A software bug leaves one rank stuck; the hardware is healthy. Nothing is printed by the fault: peers report
    the wait as for any stall (the workloads), and the stuck rank prints nothing."""

    kind = "collective_timeout_sw"

    def run(self) -> Gen:
        node = self.target
        npus = self.sim.topology.npus_of(node)
        stuck = npus[int(self.rng.integers(0, len(npus)))]
        self.hit(stuck, "hang", "")
        yield self.wait(0)
        self.end()


class SilentDataCorruption(FaultModel):
    """Wrong results from a chip: no hardware code exists for it (facts.md §4). After a few steps its gradients
    turn NaN and Megatron's gradient check stops the job with its own text, naming the rank, device and host whose
    local gradient norm was NaN (megatron/core/distributed/param_and_grad_buffer.py: ``check_for_nan_in_grad``'s
    assertion, or the rerun state machine in later releases; ``telemetry.megatron_nan_messages``)."""

    kind = "silent_data_corruption"

    def quiet_s(self) -> float:
        return max(0.0, float(self.param("detect_delay_s", self.p.sdc_detect_delay_s)))

    def run(self) -> Gen:
        npu = self.target
        node = ids.node_of(npu) or ""
        yield self.wait(self.quiet_s())
        for w in self.workloads_on(npu):
            if w.kind == "training":
                ranks = getattr(w, "ranks", [])
                r = ranks.index(npu) if npu in ranks else 0
                step = w.current_step()  # type: ignore[attr-defined]
                text = fmt.nan_grad_error(r, fmt.device_index(npu), fmt.hostname(node), step,
                                          self.sim.params.telemetry.megatron_nan_messages)
                w.fail(npu, "crash", text)  # type: ignore[attr-defined]
        self.end()


MODELS: dict[str, type[FaultModel]] = {m.kind: m for m in (
    HbmCeStorm, HbmUce, HbmRowExhaustion, HbmOvertemp, OpticalDegradation, LinkFlap, LinkDown, DirtyConnector,
    L1SwitchFailure, L2SwitchFailure, AicoreHang, NpuOffBus, NpuFailSlow, NodeCrash, NodeHang, QingtianFailure,
    RocePortDown, CollectiveTimeoutSw, SilentDataCorruption)}
