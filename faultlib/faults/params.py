"""Parameters of the fault models (progressions, sympathetic delays). Each has a source or a reason."""

from __future__ import annotations

from faultlib.durations import D, Dist
from faultlib.params import P, ParamGroup

A = "assumed; "


class FaultParams(ParamGroup):
    ce_storm_duration_s: float = P(1800.0, "s", A + "CE storms before a UCE last tens of minutes", gt=0)
    ce_storm_rate_per_s: float = P(0.5, "errors/s", A + "well above the benign background CE rate", gt=0)
    ce_log_limit: int = P(
        64, "errors", A + "a CE storm's device reports 0x80E01805 (correctable ECC errors reached their logging "
        "limit; IPMI memory sensor 0x0C offset 05h, hicann/driver dms_sensor_type.c) each time it has added this many "
        "errors; the firmware's limit is not public: taken as the 64 single-bit ECC records the device keeps "
        "(HBM_ECC_RECORD_MAX_NUMS, hicann/driver src/ascend_hal/dmc/dsmi/include/dsmi_common.h @ef377e9), each storm "
        "error on a new address, the log starting over after each report; since session 34 the background's steady "
        "errors and bursts fill the same log (faultlib.telemetry.celog)", ge=1)
    ce_sensor_check_s: float = P(
        0.1, "s", "the device's sensor detection timer (DMS_SENSOR_CHECK_TIMER_LEN, 100 ms, hicann/driver "
        "src/sdk_driver/inc/dms/dms_interface.h @ef377e9): a sensor state is read, so reported, at most once per "
        "check; since session 35 (events35) the CE log's 0x80E01805 resumes at the check after its report (the log "
        "started over, so the check no longer finds it full: hicann/driver dms_sensor.c:937-944) unless it is full "
        "again",
        gt=0)
    peer_timeout_report_s: float = P(
        30.0, "s", "when a stalled job's peers report their notify-wait timeout (plog) and RDMA ends their CQE error, "
        "for every stall cause alike; step-retry timeout 30 s (facts.md §3)", ge=0)
    rows_at_onset: int = P(40, "rows", A + "a chip that exhausts rows has been accumulating them for a while", ge=0)
    rows_growth_interval_s: float = P(
        600.0, "s", A + "one more multi-bit row every ~10 min once a stack is failing", gt=0)
    overtemp_ramp_s: float = P(300.0, "s", A + "cooling loss heats HBM over minutes", gt=0)
    hbm_temp_nominal_c: float = P(70.0, "degC", A + "typical HBM operating temperature under load", gt=0)
    hbm_temp_alarm_c: float = P(95.0, "degC", A + "alarm (0x80E00209, upper critical) ahead of the fatal limit", gt=0)
    hbm_temp_fatal_c: float = P(105.0, "degC", A + "HBM fatal temperature (0x80E0020B, upper non-recoverable) near "
                                "JEDEC 105 C limit", gt=0)
    optical_decay_dbm_per_h: float = P(
        0.6, "dB/h", A + "a failing module loses Rx power over hours (healthy ~-2 dBm to alarm -10 dBm in ~13 h)", gt=0)
    lane_drop_rx_dbm: float = P(
        -9.0, "dBm", A + "a lane loses lock a little below the -6.5 warn threshold, before the -10 alarm", lt=0)
    link_down_rx_dbm: float = P(-12.0, "dBm", A + "receiver sensitivity limit: loss of lock on all lanes", lt=0)
    degraded_fec_per_s: float = P(
        50.0, "codewords/s", A + "corrected FEC codewords climb to tens per second on a link losing optical margin, "
        "far above a healthy link's background (pre-FEC BER x line rate, noise.fec_pre_ber_median)", ge=0)
    flap_count: int = P(6, "flaps", A + "a flapping link goes down/up several times per burst", ge=1)
    flap_gap_s: float = P(40.0, "s", A + "mean time between flaps in a burst", gt=0)
    flap_down_s: float = P(1.5, "s", A + "mean time a flapping link stays down", gt=0)
    link_down_heal_s: Dist = D(
        60.0, 300.0, "s", A + "how long a link_down that comes back without a repair stays down (a module or port "
        "that re-trains after a transient, a connector reseated in passing): longer than the 20 s after which "
        "MindCluster escalates a link-down (facts.md §3; a shorter down is only reported) and within minutes. Only "
        "a fault spec with a duration heals; case generation draws its healed link_down runs' durations from this, "
        "conditioned on exceeding the ops brain's detector.link_down_after_s (session 43, link43b); a healed run's "
        "sibling links come back after the same duration, as a scenario item's targets do (session 44)")
    dirty_flap_down_s: float = P(0.5, "s", A + "a dirty end-face flap re-locks within about a second", gt=0)
    crc_burst: float = P(5000.0, "errors", A + "mean CRC errors counted around one hard flap (link_flap, link_down; "
                         "exponential); a dirty connector draws from the background flap's mean instead; since "
                         "session 35 a RoCE port going down (roce_port_down) counts its frames cut by the loss of "
                         "lock (bad FCS) from the same law", ge=0)
    fail_slow_factor: float = P(1.4, "x", A + "thermal throttling slows a chip by tens of percent (Alibaba fail-slow)",
                                gt=1)
    fail_slow_duration_s: float = P(600.0, "s", "compute fail-slow lasts ~10 min (Alibaba ATC'25, facts.md §4)", gt=0)
    npu_temp_throttle_c: float = P(95.0, "degC", A + "SoC temperature at which the chip throttles and the twin prints "
                                   "0x80E20207 (SoC temperature past its upper non-critical threshold, "
                                   "knowledge_base/codes.yaml)", gt=0)
    sdc_detect_delay_s: float = P(
        120.0, "s", A + "a loss spike/NaN shows in the training log a few steps after corruption starts", ge=0)
    npu_heartbeat_s: float = P(2.5, "s", "each NPU pings its gateway every 2.5 s (facts.md §3); the host driver "
                               "reports a stopped device's heartbeat lost after three missed beats", gt=0)
