"""Polish43: a healed link_down case run draws its time down from the run's own parameters (review43c).

``healed_duration`` read ``FaultParams()`` and ``DetectorParams()`` defaults, not the simulation's parameters the
run was built with (where every other fault of the run reads its durations) nor the detector the run's controller
uses: a world built with other fault parameters healed its link_downs by the default law."""

from __future__ import annotations

from typing import Any

import pytest

from faultlib.params import apply_overrides
from opsbrain.kb import cases as case_lib

SEED = 1001  # a link_down run that heals in the training world


class _Injected(Exception):
    pass


def _first_spec(monkeypatch: pytest.MonkeyPatch, overrides: dict[str, Any]) -> Any:
    """The first fault spec run_case injects in a world built with ``overrides`` (the run stops there)."""
    build = case_lib.build_world
    seen: list[Any] = []

    def built_with(seed: int, topo: Any, noise_scale: float = 1.0, world: Any = None) -> Any:
        sim = build(seed, topo, noise_scale, world)
        sim.params = apply_overrides(sim.params, overrides)

        def inject(spec: Any) -> Any:
            seen.append(spec)
            raise _Injected

        sim.inject = inject
        return sim

    monkeypatch.setattr(case_lib, "build_world", built_with)
    with pytest.raises(_Injected):
        case_lib.run_case(SEED, "link_down")
    return seen[0]


def test_a_healed_link_down_follows_the_runs_heal_law(monkeypatch: pytest.MonkeyPatch) -> None:
    default = _first_spec(monkeypatch, {})
    assert default.duration_s is not None and default.duration_s < 1000.0  # median 60 s, p90 300 s
    slow = _first_spec(monkeypatch, {"faults.link_down_heal_s": {"median": 3000.0, "p90": 4000.0}})
    assert slow.duration_s is not None and slow.duration_s > 1000.0
