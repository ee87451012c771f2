"""The ``params`` each fault kind accepts in a scenario, one typed model per kind.

Each field is a parameter the kind's fault model reads (``faultlib.faults.models``, ``self.param(...)``); a field
left out keeps the model's default (``faultlib.faults.params.FaultParams``). Unknown keys and out-of-range values
are refused with their YAML path. Bounds are sanity limits (a value outside them is a typo, not an experiment);
each says why.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from faultlib.faults.catalog import CATALOG

DAY_S = 86400.0


class FaultParamsModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class NoFaultParams(FaultParamsModel):
    """This fault kind has no parameters."""


class HbmCeStormParams(FaultParamsModel):
    rate_per_s: float | None = Field(None, gt=0, le=10_000, description="correctable errors per second during the "
                                     "storm (default faults.ce_storm_rate_per_s); bound: an ECC engine logging "
                                     "10,000 CE/s is far past any storm")


class HbmRowExhaustionParams(FaultParamsModel):
    rows_at_onset: int | None = Field(None, ge=0, le=64, description="isolated HBM rows when the fault begins "
                                      "(default faults.rows_at_onset); bound: 64 rows is the replace threshold "
                                      "(control.hbm_rows_replace_threshold)")


class OpticalDegradationParams(FaultParamsModel):
    dbm_per_hour: float | None = Field(None, gt=0, le=100, description="Rx power decay in dB per hour (default "
                                       "faults.optical_decay_dbm_per_h); bound: 100 dB/h darkens a module in "
                                       "minutes, a cut rather than a decay (use link_down)")


class LinkFlapParams(FaultParamsModel):
    flaps: int | None = Field(None, ge=1, le=10_000, description="down/up cycles of the burst (default "
                              "faults.flap_count); bound: 10,000 flaps at the 40 s mean gap is ~5 days")


class NodeCrashParams(FaultParamsModel):
    cause: str | None = Field(None, min_length=1, max_length=300, description="the kernel's panic line (default "
                              "'Kernel panic - not syncing: Fatal machine check')")


class NpuFailSlowParams(FaultParamsModel):
    factor: float | None = Field(None, gt=1, le=100, description="slowdown of the chip's compute (default "
                                 "faults.fail_slow_factor); bound: 100x slower is a hang (use aicore_hang)")


class SilentDataCorruptionParams(FaultParamsModel):
    detect_delay_s: float | None = Field(None, ge=0, le=DAY_S, description="seconds until the NaN shows in the "
                                         "training log (default faults.sdc_detect_delay_s); bound: a NaN gradient "
                                         "stops a job within steps, not days")


FAULT_PARAMS: dict[str, type[FaultParamsModel]] = {
    "hbm_ce_storm": HbmCeStormParams,
    "hbm_row_exhaustion": HbmRowExhaustionParams,
    "optical_degradation": OpticalDegradationParams,
    "link_flap": LinkFlapParams,
    "node_crash": NodeCrashParams,
    "npu_fail_slow": NpuFailSlowParams,
    "silent_data_corruption": SilentDataCorruptionParams,
}
"""Fault kind -> its params model; kinds not listed take no parameters (:class:`NoFaultParams`)."""


def params_model(kind: str) -> type[FaultParamsModel]:
    if kind not in CATALOG:
        raise KeyError(f"unknown fault kind {kind!r}")
    return FAULT_PARAMS.get(kind, NoFaultParams)
