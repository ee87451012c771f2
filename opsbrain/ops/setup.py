"""Parameters of a superpod-operations run: the twin's defaults, the strict TPOT bound as the SLO, overrides."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from faultlib.health import Health
from faultlib.simparams import SimParams

if TYPE_CHECKING:
    from faultlib.engine import Simulation

PLACEABLE = frozenset({Health.HEALTHY, Health.DEGRADED})
"""A node in one of these states may take new work; cordoned takes none, failed / resetting / isolated run none."""


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


def serviceable(sim: Simulation, node: str) -> bool:
    """Whether new work may be placed on ``node`` now: the host is healthy or degraded (not cordoned, failed,
    rebooting or isolated) and so are its chips, dies, HBM and L1 switch chips (in service). The one test the
    autoscaler, the day/night runner and the static layouts' repairer apply to a node or spare they pick (session
    36: the runner's and the repairer's spare choice looked at the host alone, the autoscaler's took a cordoned
    node)."""
    st, topo = sim.state, sim.topology
    return st.health(node) in PLACEABLE and all(st.is_up(c) for c in topo.descendants(node)
                                                if topo.kind.get(c) in ("npu", "die", "hbm", "l1"))
