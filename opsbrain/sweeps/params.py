"""Health-sweep parameters: what each check compares against, the windows it reads, the trend-prediction guards.

The DOM and HBM-row thresholds repeat MindCluster's published values (facts.md §3): they are the operator's
configuration, kept apart from the plant's own model parameters (``faultlib.telemetry.params``) on purpose.
"""

from __future__ import annotations

from pydantic import model_validator

from faultlib.params import P, ParamGroup

MC = "MindCluster diagnosis config (facts.md §3)"
A = "assumed; "
HOUR = 3600.0
DAY = 86400.0


class SweepParams(ParamGroup):
    """Thresholds, read windows and trend guards of the scheduled health sweep."""

    interval_s: float = P(300.0, "s", "Meta research clusters run health checks every 5 min (facts.md §4)", gt=0)
    outputs_stale_s: float = P(
        600.0, "s", "reason: collected command outputs (--source commands) refreshed on the sweep's own schedule "
        "(interval_s, 5 min) are at most one interval old when swept, plus the collection's run; older than two "
        "intervals, a refresh was missed and the outputs no longer say how the node is now: their findings are "
        "reported as stale (at most a Warning), not as current", gt=0)

    # ---- HBM ---------------------------------------------------------------------------------------------
    hbm_ce_window_s: float = P(
        600.0, "s", A + "correctable errors are counted over the last 10 min: short enough to see a pre-UCE storm "
        "within one or two sweeps, long enough to hold several benign errors", gt=0)
    hbm_ce_warn_per_h: float = P(
        300.0, "errors/h", A + "~1,000x the median benign rate of a stack (noise.hbm_ce_per_day = 2/day); a benign "
        "burst (mean 20 errors) crosses it in a 10 min window only when it holds >= 50 errors (~8% of bursts)", gt=0)
    hbm_ce_alarm_per_h: float = P(
        1000.0, "errors/h", A + "a CE storm (faults.ce_storm_rate_per_s = 0.5/s = 1,800/h) crosses it within ~6 min; "
        "a benign burst would need >= 167 errors in 10 min (P ~ 2e-4 per burst)", gt=0)
    hbm_ue_window_s: float = P(
        DAY, "s", "uncorrectable (double-bit) ECC errors are counted over 24 h: MindCluster escalates its on-chip "
        "memory UCE event (0x80E01801, RestartBusiness) to ManuallySeparateNPU at 2 times in 86400 s (knowledge_base/"
        "codes.yaml escalation, MindCluster docs en/scheduling/usage/resumable_training/"
        "03_configuring_fault_detection_levels.md)", gt=0)
    hbm_ue_separate: int = P(
        2, "errors", "new uncorrectable ECC errors within hbm_ue_window_s that make the stack Critical (separate the "
        "NPU): the same 2 times in 86400 s, each counted error read as one UCE event (the counter does not tell "
        "events apart: a UCE counted twice separates early, the safe side); one new error is an Alarm "
        "(0x80E01801's RestartBusiness: the job on the NPU fails)", ge=1)
    hbm_rows_warn: int = P(16, "rows", "0x80E18401: >= 16 isolated HBM rows, warning (" + MC + ")", ge=1)
    hbm_rows_replace: int = P(64, "rows", "0x80E18402: isolated HBM rows reached 64, replace the part (" + MC + ")",
                              ge=1)
    hbm_rows_rate_window_s: float = P(
        3600.0, "s", A + "row growth is measured over the last hour to project when the 64-row limit is reached "
        "(a failing stack adds a row every ~10 min: faults.rows_growth_interval_s)", gt=0)

    # ---- optical DOM: MindCluster thresholds ---------------------------------------------------------------
    rx_warn_dbm: float = P(-6.5, "dBm", "module Rx power warn below, " + MC)
    rx_alarm_dbm: float = P(-10.0, "dBm", "module Rx power alarm below, " + MC)
    tx_warn_dbm: float = P(-7.0, "dBm", "module Tx power warn below, " + MC)
    tx_alarm_dbm: float = P(-9.6, "dBm", "module Tx power alarm below, " + MC)
    power_high_warn_dbm: float = P(5.5, "dBm", "Tx/Rx power high warn above, " + MC)
    power_high_alarm_dbm: float = P(7.0, "dBm", "Tx/Rx power high alarm above, " + MC)
    snr_warn_db: float = P(20.0, "dB", "lane SNR warn below, " + MC)
    snr_alarm_db: float = P(18.0, "dB", "lane SNR alarm below, " + MC)
    bias_low_ma: float = P(6.0, "mA", "Tx bias healthy window low edge (warn outside), " + MC, gt=0)
    bias_high_ma: float = P(10.0, "mA", "Tx bias healthy window high edge (warn outside), " + MC, gt=0)
    lane_spread_alarm_db: float = P(3.0, "dB", "lane-to-lane Rx power difference alarm above, " + MC, gt=0)
    dom_confirm_reads: int = P(
        3, "collections", "reason: a lane threshold must hold on this many consecutive DOM collections (this sweep's "
        "and the previous ones; cf. a Prometheus alert's `for:`): read noise alone then seldom carries a lane that "
        "sits near a threshold across it (p^3 per sweep instead of p). Lost light is never debounced", ge=1)
    los_below_dbm: float = P(
        -30.0, "dBm", "reason: a lane reading below this has no light (loss of signal; modules report a floor near "
        "-40 dBm) and is a lost lane, not a low-power reading", lt=0)

    # ---- optical DOM: trend prediction -------------------------------------------------------------------
    trend_window_s: float = P(
        7200.0, "s", A + "Rx power is fitted over the last 2 h: with 0.1 dB read noise and >= 6 reads the slope "
        "error is <= ~0.06 dB/h, far below the ~0.6 dB/h of a failing module (faults.optical_decay_dbm_per_h)", gt=0)
    trend_min_points: int = P(
        6, "reads", "reason: a slope and its standard error need a few degrees of freedom; fewer lit reads in the "
        "window => no prediction", ge=3)
    trend_reread_points: int = P(
        7, "reads", "reason: cost bound. Without a kept history the sweep reads the DOM store at this many evenly "
        "spaced times across the window (a TSDB query): 20 min apart over 2 h", ge=3)
    trend_min_tstat: float = P(
        8.0, "t", "calibrated so that a noise-only pod (43,008 lanes fitted every 5 min, ~1.2e7 fits a day) "
        "gives no trend alarm: one-sided P(t > 8) < 1e-9 per fit even with a few degrees of freedom "
        "(see tests/test_sweeps.py::test_noise_only_pod_day)", gt=0)
    trend_min_span_s: float = P(
        3600.0, "s", "reason: a line through less than an hour of reads would extrapolate hours ahead from minutes "
        "of noise; "
        "no prediction until the window holds this much history", gt=0)
    trend_noise_floor_db: float = P(
        0.1, "dB", A + "DOM power reads repeat to about 0.1 dB (telemetry.dom_noise_rx_db). A residual spread below it "
        "in a short fit is luck of a few reads, not precision: the slope error is never taken below "
        "floor / sqrt(spread of the read times)", ge=0)
    trend_min_slope_db_per_h: float = P(
        0.05, "dB/h", "reason: a slower fall (laser ageing is ~0.0005 dB/day) cannot take a healthy lane to the "
        "alarm threshold within the warn horizon", ge=0)
    trend_warn_horizon_s: float = P(
        DAY, "s", A + "a lane predicted to reach the Rx alarm threshold within a day is worth a ticket", gt=0)
    trend_alarm_horizon_s: float = P(
        2 * HOUR, "s", A + "within 2 h: open a proactive incident now (drain and re-route takes minutes, a "
        "module swap a few hours: control.part_replacement_s)", gt=0)

    # ---- links ------------------------------------------------------------------------------------------------
    link_down_window_s: float = P(DAY, "s", "link-down counts are taken over 24 h, " + MC, gt=0)
    link_down_warn: int = P(3, "downs", "link-down count in 24 h warn, " + MC, ge=1)
    link_down_alarm: int = P(5, "downs", "link-down count in 24 h alarm (0x81078603 x5 => isolate), " + MC, ge=1)
    crc_window_s: float = P(
        3600.0, "s", A + "post-FEC CRC errors are counted over the last hour", gt=0)
    crc_warn_errors: float = P(
        1000.0, "errors", A + "a benign self-healing flap leaves ~200 CRC errors (noise.flap_crc_burst_mean, "
        "exponential: P(> 1,000) ~ 0.7%); a healthy link has ~0.02/h", gt=0)
    crc_alarm_errors: float = P(
        10000.0, "errors", A + "two or more hard flaps in an hour (faults.crc_burst = 5,000 per flap)", gt=0)
    fec_window_s: float = P(600.0, "s", A + "the corrected-codeword rate is averaged over 10 min", gt=0)
    fec_ber_warn: float = P(
        1e-5, "bit error ratio", A + "healthy links run a pre-FEC BER ~1e-8..1e-6 (noise.fec_pre_ber_median); "
        "100x the median is a link to watch", gt=0)
    fec_ber_alarm: float = P(
        1e-4, "bit error ratio", A + "~40% of the ~2.4e-4 pre-FEC BER an RS(544,514) FEC can still correct", gt=0)

    # ---- NPUs -----------------------------------------------------------------------------------------------
    heartbeat_warn_s: float = P(
        3.0, "s", "device plugin polls device health every 1 s (facts.md §3): three missed polls", gt=0)
    heartbeat_alarm_s: float = P(
        10.0, "s", "each NPU pings its gateway every 2.5 s (facts.md §3): four missed pings", gt=0)
    heartbeat_critical_s: float = P(
        30.0, "s", "step-retry timeout 30 s (facts.md §3): the rank is lost to its job", gt=0)
    scrape_skew_s: float = P(
        60.0, "s", "Prometheus's default scrape_interval, 1 m (prometheus.io configuration reference): a real "
        "source's nodes are scraped apart, so on a federated page or a query answer one node's samples may be a "
        "scrape older than another's; only a node's lag beyond it counts as missed heartbeats", gt=0)
    exporter_update_s: float = P(
        5.0, "s", "npu-exporter's -updateTime default: it refreshes its metrics cache every 5 s (range 1-60 s; "
        "Ascend/ascend-npu-exporter cmd/npu-exporter/main.go, the flag's help and updateTimeConst). A chip's samples "
        "may lag its node's newest, and a node's newest the collection, by up to one refresh: only a lag beyond it "
        "counts as missed heartbeats. Set it to the -updateTime the cluster's exporters run with", gt=0)
    npu_temp_warn_c: float = P(85.0, "degC", A + "10 C below the SoC throttle level (faults.npu_temp_throttle_c)")
    npu_temp_alarm_c: float = P(95.0, "degC", A + "SoC temperature past its upper non-critical threshold, 0x80E20207 "
                                "(faults.npu_temp_throttle_c): the chip throttles")
    npu_temp_critical_c: float = P(105.0, "degC", A + "fatal silicon limit (JEDEC-class 105 C, as faults.hbm_temp_"
                                   "fatal_c)")
    hbm_temp_warn_c: float = P(85.0, "degC", A + "10 C below the HBM alarm; healthy stacks run ~68 C (noise."
                               "hbm_temp_mean_c)")
    hbm_temp_alarm_c: float = P(95.0, "degC", A + "HBM temperature past its upper critical threshold, 0x80E00209 "
                                "(faults.hbm_temp_alarm_c)")
    hbm_temp_critical_c: float = P(105.0, "degC", "HBM fatal over-temperature 0x80E0020B, SeparateNPU (facts.md §3; "
                                   "faults.hbm_temp_fatal_c)")

    # ---- stragglers ----------------------------------------------------------------------------------------------
    straggler_warn_ratio: float = P(
        1.10, "x", A + "a rank 10% slower than the job's healthy step time: synchronous steps jitter by a few "
        "percent at most", gt=1)
    straggler_alarm_ratio: float = P(
        1.25, "x", A + "a rank 25% slower drags the whole synchronous job (compute fail-slow, Alibaba ATC'25, "
        "facts.md §4: thermal throttling costs tens of percent)", gt=1)
    straggler_baseline_window_s: float = P(
        DAY, "s", A + "the job's healthy step time is its fastest running step time over the last day", gt=0)

    # ---- spares -----------------------------------------------------------------------------------------------------
    spare_min_nodes: int = P(
        1, "nodes", "ByteRobust sizes warm spares to the p99 of simultaneous failures (facts.md §5); one 384-NPU "
        "pod sees about one unexpected interruption every 5.5 days (facts.md §4), so one spare node", ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> SweepParams:
        pairs = [("rx_alarm_dbm", "rx_warn_dbm"), ("tx_alarm_dbm", "tx_warn_dbm"),
                 ("power_high_warn_dbm", "power_high_alarm_dbm"), ("snr_alarm_db", "snr_warn_db"),
                 ("bias_low_ma", "bias_high_ma"), ("hbm_rows_warn", "hbm_rows_replace"),
                 ("hbm_ce_warn_per_h", "hbm_ce_alarm_per_h"), ("link_down_warn", "link_down_alarm"),
                 ("crc_warn_errors", "crc_alarm_errors"), ("fec_ber_warn", "fec_ber_alarm"),
                 ("heartbeat_warn_s", "heartbeat_alarm_s"), ("heartbeat_alarm_s", "heartbeat_critical_s"),
                 ("npu_temp_warn_c", "npu_temp_alarm_c"), ("npu_temp_alarm_c", "npu_temp_critical_c"),
                 ("hbm_temp_warn_c", "hbm_temp_alarm_c"), ("hbm_temp_alarm_c", "hbm_temp_critical_c"),
                 ("straggler_warn_ratio", "straggler_alarm_ratio"),
                 ("trend_alarm_horizon_s", "trend_warn_horizon_s"), ("los_below_dbm", "rx_alarm_dbm"),
                 ("trend_min_span_s", "trend_window_s")]
        for lo, hi in pairs:
            if getattr(self, lo) > getattr(self, hi):
                raise ValueError(f"{lo} ({getattr(self, lo)}) must not exceed {hi} ({getattr(self, hi)})")
        return self
