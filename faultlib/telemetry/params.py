"""Telemetry parameters: log clock, optical DOM model (healthy values, ageing, noise) and the DOM thresholds."""

from __future__ import annotations

from faultlib.params import P, ParamGroup

MC = "MindCluster diagnosis config thresholds (facts.md §3)"
A = "assumed; "


class TelemetryParams(ParamGroup):
    """What operators read: log clock and the optical DOM (digital optical monitoring) model."""

    epoch: str = P("2025-03-01T00:00:00", "ISO time",
                   "reason: simulated t=0 shown in log timestamps; any fixed date keeps logs deterministic")
    torch_npu_messages: str = P(
        "innerrun", "variant",
        "how torch_npu prints a device error a rank dies of: 'innerrun' = the InnerRun form of older torch_npu "
        "(``RuntimeError: InnerRun: NPU error, error code is 507053``; torch_npu/csrc/core/npu/NPUException.cpp); "
        "'error_codes' = the "
        "torch_npu releases with error codes (docs/zh/user_guide/troubleshooting/error_code_description in "
        "Ascend/pytorch): ``NPU function error: <call>, error code is N``, then ``[ERROR] <time> (PID:p, Device:d, "
        "RankID:r) ERR00100 PTA call acl api failed`` and the ACL text ``[Error]: ...`` (as printed in "
        "vllm-ascend and LLaMA-Factory issues, tests/data/real_logs corpus_d/e)")
    megatron_nan_messages: str = P(
        "assertion", "variant",
        "how Megatron-core's gradient check stops on a NaN local grad norm: 'assertion' = ``AssertionError: Rank R: "
        "found NaN in local grad norm in backward pass before data-parallel communication collective. Device: d, "
        "node: h`` "
        "(param_and_grad_buffer.py check_for_nan_in_grad); 'rerun_state_machine' = the releases whose check goes "
        "through the rerun state machine (param_and_grad_buffer.py check_grads -> validate_result, fatal): "
        "``RuntimeError: Rank R, node h, device d, iteration i: Unexpected result nan (message='found NaN in local "
        "grad norm for bucket #0 in backward pass before data-parallel communication collective')``, as printed in "
        "public "
        "training logs (e.g. flash-dmattn's BF16 backward INF note)")

    boot_lead_s: float = P(
        1200.0, "s", A + "how long before the simulation's start the hosts and their devices booted: a host that has "
        "not rebooted in the run stamps its kernel lines, and its devices their fault events, with the uptime "
        "``sim.now + boot_lead_s``", ge=0)
    boot_uptime_s: float = P(
        120.0, "s", A + "a rebooted host's kernel uptime when it is back in service (the twin's return to HEALTHY): "
        "the kernel's part of a reboot, its own start, systemd's services and the NPU driver loading its devices; "
        "firmware POST runs before the kernel starts and does not count. Its kernel lines and its devices' fault "
        "events after the reboot are stamped ``boot_uptime_s`` plus the time since it was back (session 34), as a "
        "kernel's uptime restarts at each boot", ge=0)
    chip_boot_uptime_s: float = P(
        20.0, "s", A + "a chip's device OS uptime when the chip is back in service after booting on its own (a chip "
        "reset, a chip back from down, a new chip; the twin's return to HEALTHY): the device kernel's start and its "
        "driver modules, after the chip's reset and firmware load, which do not count; below the median of "
        "control.chip_reset_s (60 s), which holds them all. Its fault events are stamped ``chip_boot_uptime_s`` "
        "plus the time since it was back, and numbered from 1 again (session 35): the fault manager's stamp is the "
        "device kernel's local_clock (hicann/driver fms_define.h:65) and its serials are counters of the device's "
        "kernel module (dms_sensor.c:60, dms_event_converge.c:52), which restart at that boot", ge=0)

    # ---- DOM thresholds (what an operator tool alarms on; the model keeps healthy lanes well inside) ----
    dom_rx_warn_dbm: float = P(-6.5, "dBm", "module Rx power warn below, " + MC)
    dom_rx_alarm_dbm: float = P(-10.0, "dBm", "module Rx power alarm below, " + MC)
    dom_tx_warn_dbm: float = P(-7.0, "dBm", "module Tx power warn below, " + MC)
    dom_tx_alarm_dbm: float = P(-9.6, "dBm", "module Tx power alarm below, " + MC)
    dom_power_high_warn_dbm: float = P(5.5, "dBm", "Tx/Rx power high warn above, " + MC)
    dom_power_high_alarm_dbm: float = P(7.0, "dBm", "Tx/Rx power high alarm above, " + MC)
    dom_snr_warn_db: float = P(20.0, "dB", "lane SNR warn below, " + MC)
    dom_snr_alarm_db: float = P(18.0, "dB", "lane SNR alarm below, " + MC)
    dom_bias_low_ma: float = P(6.0, "mA", "Tx bias healthy window low edge, " + MC, gt=0)
    dom_bias_high_ma: float = P(10.0, "mA", "Tx bias healthy window high edge, " + MC, gt=0)
    dom_lane_spread_alarm_db: float = P(3.0, "dB", "lane-to-lane Rx power difference alarm above, " + MC, gt=0)

    # ---- healthy baselines, drawn once per run per module lane ------------------------------------------
    dom_rx_mean_dbm: float = P(
        -2.0, "dBm", A + "healthy 4-lane 200G/400G PAM4 modules receive about -3..0 dBm per lane; centred 4.5 dB "
        "above the Rx warn threshold (" + MC + ")")
    dom_rx_module_sd_db: float = P(
        0.7, "dB", A + "module-to-module spread of Rx power (fibre/connector loss differs per link); keeps "
        ">99.9% of modules above the warn threshold")
    dom_rx_lane_sd_db: float = P(
        0.3, "dB", A + "lane-to-lane spread inside one module; the 3 dB spread alarm (" + MC + ") stays ~7 sd away")
    dom_tx_mean_dbm: float = P(
        1.0, "dBm", A + "launch power per lane of a 200G/400G PAM4 module is about -1..+3 dBm; centred between "
        "the Tx warn (-7) and high warn (+5.5) thresholds (" + MC + ")")
    dom_tx_sd_db: float = P(0.6, "dB", A + "per-lane launch power spread")
    dom_bias_mean_ma: float = P(8.0, "mA", A + "centre of the 6-10 mA healthy Tx bias window (" + MC + ")", gt=0)
    dom_bias_sd_ma: float = P(0.35, "mA", A + "per-lane bias spread: the window edges are ~6 sd away")
    dom_snr_mean_db: float = P(
        26.5, "dB", A + "healthy PAM4 lane SNR, 6.5 dB above the SNR warn threshold (" + MC + "), so that a marginal "
        "module (up to 2 x dom_marginal_loss_db of extra loss, 1 dB SNR per dB) stays above the 18 dB alarm as a "
        "commissioned link must")
    dom_snr_sd_db: float = P(0.8, "dB", A + "per-lane SNR spread")
    dom_snr_per_rx_db: float = P(
        1.0, "dB/dB", A + "receiver SNR falls 1 dB per dB of lost Rx power (shot-noise-limited slope; a thermal-"
        "noise-limited receiver would fall 2 dB/dB): SNR warns at about the same loss as Rx power", ge=0)
    dom_marginal_fraction: float = P(
        0.002, "fraction", A + "a few modules per thousand run with a dirty or tight connector: lower Rx power, "
        "near the warn threshold, still working (gives detectors realistic near-threshold readings)", ge=0, le=1)
    dom_marginal_loss_db: float = P(
        3.0, "dB", A + "extra loss of a marginal module (mean; drawn uniformly in 0..2x): Rx about -5 dBm, at worst "
        "near -8 dBm, between the warn and alarm thresholds", ge=0)

    # ---- ageing and measurement noise ----------------------------------------------------------------
    dom_ageing_tx_db_per_day: float = P(
        0.0005, "dB/day", A + "laser output ageing: about 1 dB lost over ~5 years of service (mean of an "
        "exponential draw per module); shows as a slow drift of Tx power and of the peer's Rx power", ge=0)
    dom_ageing_bias_ma_per_day: float = P(
        0.0008, "mA/day", A + "bias current creeps up as the laser ages (~1.5 mA over 5 years, mean of an "
        "exponential draw per module)", ge=0)
    dom_noise_rx_db: float = P(
        0.1, "dB", A + "read-to-read repeatability of a DOM power reading (the +-3 dB absolute accuracy a module "
        "datasheet allows is part of the baseline spread, not of the read noise)", ge=0)
    dom_noise_tx_db: float = P(0.05, "dB", A + "read-to-read repeatability of Tx power", ge=0)
    dom_noise_bias_ma: float = P(0.05, "mA", A + "read-to-read repeatability of Tx bias", ge=0)
    dom_noise_snr_db: float = P(0.2, "dB", A + "read-to-read repeatability of lane SNR (DSP estimate)", ge=0)
    dom_sample_period_s: float = P(
        1.0, "s", A + "DOM values refresh about once a second in a module; reads within one period see the same "
        "measurement noise", gt=0)
    dom_los_dbm: float = P(
        -40.0, "dBm", "reason: the floor a module reports with no light (loss of signal); far below any threshold",
        lt=0)
