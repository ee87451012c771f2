"""Parameters of a superpod-operations run: the twin's defaults, the strict TPOT bound as the SLO, overrides."""

from __future__ import annotations

from typing import Any

from faultlib.simparams import SimParams


def ops_params(overrides: dict[str, Any] | None = None, tight_slo: bool = True) -> SimParams:
    """SimParams with ``inference.tpot_slo_ms`` set to the paper's strict bound (``tpot_tight_ms``, 15 ms) when
    ``tight_slo``, then the dotted ``overrides`` (``{"demand.trough_ratio": 0.4}``); validated."""
    base = SimParams().model_dump()
    if tight_slo:
        base["inference"]["tpot_slo_ms"] = base["inference"]["tpot_tight_ms"]
    for path, value in (overrides or {}).items():
        node = base
        *head, last = path.split(".")
        for part in head:
            if not isinstance(node.get(part), dict):
                raise ValueError(f"unknown parameter {path!r}")
            node = node[part]
        if last not in node:
            raise ValueError(f"unknown parameter {path!r}")
        node[last] = value
    return SimParams.model_validate(base)
