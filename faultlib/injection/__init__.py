"""Fault injection planning: fault timelines (what, where, when) from scripts, random profiles and traces.

The fault models that act a timeline out in the simulation live in ``faultlib.faults``. Trace replay
(``ReplayReport``, ``replay_trace``: pandas) is loaded on first use, so that a scripted run does not import pandas.
"""

from typing import Any

from faultlib.injection.profiles import PROFILES, InjectionParams, Profile, draw_timeline, get_profile
from faultlib.injection.selectors import TargetIndex, plan_scripted, resolve
from faultlib.injection.spec import FaultPlanError, FaultSpec, Timeline

__all__ = [
    "PROFILES", "FaultPlanError", "FaultSpec", "InjectionParams", "Profile", "ReplayReport", "TargetIndex",
    "Timeline", "draw_timeline", "get_profile", "plan_scripted", "replay_trace", "resolve",
]


def __getattr__(name: str) -> Any:
    if name in ("ReplayReport", "replay_trace"):
        from faultlib.injection import replay

        return getattr(replay, name)
    raise AttributeError(f"module 'faultlib.injection' has no attribute {name!r}")
