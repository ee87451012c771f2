"""The ``params`` each fault kind accepts in a scenario, one typed model per kind.

Each field is a parameter the kind's fault model reads (``faultlib.faults.models`` and ``.fabric``,
``self.param(...)``); a field left out keeps the model's default (``faultlib.faults.params.FaultParams``). Unknown
keys and out-of-range values are refused with their YAML path. Bounds are sanity limits (a value outside them is a
typo, not an experiment); each says why.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, ConfigDict, Field, create_model

from faultlib.faults.catalog import CATALOG
from faultlib.numbers import NoBoolNumbers

DAY_S = 86400.0


class FaultParamsModel(NoBoolNumbers):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class NoFaultParams(FaultParamsModel):
    """This fault kind has no parameters."""


def _one_line(text: str) -> str:
    """A text printed as one log line: no line break (a second line would be read as a log record of its own),
    tab or other control or separator character (``str.isprintable``, which also refuses what ``splitlines`` breaks
    on)."""
    bad = next((c for c in text if not c.isprintable()), None)
    if bad is not None:
        raise ValueError(f"must be one line of printable text: it is printed as one log line (found {bad!r} at "
                         f"character {text.index(bad)})")
    return text


LogLine = Annotated[str, AfterValidator(_one_line)]

ParamSpec = tuple[Any, dict[str, Any], str]
"""(type, bounds, description) of one fault parameter."""

_SPECS: dict[str, dict[str, ParamSpec]] = {
    "hbm_ce_storm": {"rate_per_s": (float, {"gt": 0, "le": 10_000}, "correctable errors per second during the "
                                    "storm (default faults.ce_storm_rate_per_s); bound: an ECC engine logging "
                                    "10,000 CE/s is far past any storm")},
    "hbm_overtemp": {"ramp_s": (float, {"gt": 0, "le": DAY_S}, "seconds the HBM takes from its nominal to its "
                                "fatal temperature (default faults.overtemp_ramp_s); bound: a day-long climb is a "
                                "drift, not a cooling loss")},
    "hbm_row_exhaustion": {"rows_at_onset": (int, {"ge": 0, "le": 64}, "isolated HBM rows when the fault begins "
                                             "(default faults.rows_at_onset); bound: 64 rows is the replace "
                                             "threshold (control.hbm_rows_replace_threshold)")},
    "optical_degradation": {"dbm_per_hour": (float, {"gt": 0, "le": 100}, "Rx power decay in dB per hour (default "
                                             "faults.optical_decay_dbm_per_h); bound: 100 dB/h darkens a module in "
                                             "minutes, a cut rather than a decay (use link_down)")},
    "link_flap": {"flaps": (int, {"ge": 1, "le": 10_000}, "down/up cycles of the burst (default faults.flap_count); "
                            "bound: 10,000 flaps at the 40 s mean gap is ~5 days")},
    "node_crash": {"cause": (LogLine, {"min_length": 1, "max_length": 300}, "the kernel's panic line, one line of "
                             "printable text (default 'Kernel panic - not syncing: Fatal machine check')")},
    "npu_fail_slow": {"factor": (float, {"gt": 1, "le": 100}, "slowdown of the chip's compute (default "
                                 "faults.fail_slow_factor); bound: 100x slower is a hang (use aicore_hang)")},
    "silent_data_corruption": {"detect_delay_s": (float, {"ge": 0, "le": DAY_S}, "seconds until the NaN shows in "
                                                  "the training log (default faults.sdc_detect_delay_s); bound: a "
                                                  "NaN gradient stops a job within steps, not days")},
}


def _model(kind: str, fields: dict[str, ParamSpec]) -> type[FaultParamsModel]:
    name = "".join(w.title() for w in kind.split("_")) + "Params"
    defs: dict[str, Any] = {f: (t | None, Field(None, description=d, **bounds)) for f, (t, bounds, d) in fields.items()}
    model: type[FaultParamsModel] = create_model(name, __base__=FaultParamsModel, **defs)
    return model


FAULT_PARAMS: dict[str, type[FaultParamsModel]] = {k: _model(k, f) for k, f in _SPECS.items()}
"""Fault kind -> its params model; kinds not listed take no parameters (:class:`NoFaultParams`)."""


def params_model(kind: str) -> type[FaultParamsModel]:
    if kind not in CATALOG:
        raise KeyError(f"unknown fault kind {kind!r}")
    return FAULT_PARAMS.get(kind, NoFaultParams)
