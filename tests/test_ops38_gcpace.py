"""Session 38 (ops38): every long run is at the long-run collector pace, whoever calls ``run_plan``.

Session 37 put :func:`opsbrain.runner.gcpace.long_run_gc` around ``opsbrain.chaos.run`` only: a campaign's runs (and
sweeps, benchmarks) call ``run_plan`` directly and kept CPython's default pace (a collection of the youngest
generation every 700 allocations). The pace is now set in ``run_plan`` itself, once per run.
"""

from __future__ import annotations

import gc

from opsbrain.campaign import runner as campaign_runner
from opsbrain.campaign.spec import CampaignSpec
from opsbrain.runner.gcpace import GEN0_THRESHOLD


def _thresholds_during_a_campaign_run() -> tuple[list[int], tuple[int, ...]]:
    seen: list[int] = []
    spec = CampaignSpec(pods=1, days=0.25, seeds=1).model_dump_json()
    campaign_runner.run_task(spec, 4, "auto", progress=lambda _now, _end: seen.append(gc.get_threshold()[0]))
    return seen, gc.get_threshold()


def test_a_campaign_run_is_at_the_long_run_pace_and_restores_it() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, *before[1:])  # CPython's default, whatever the test runner set
        seen, after = _thresholds_during_a_campaign_run()
        assert seen and set(seen) == {GEN0_THRESHOLD}
        assert after == (700, *before[1:])
    finally:
        gc.set_threshold(*before)


def test_a_campaign_run_leaves_automatic_collection_off_when_it_was() -> None:
    before = gc.get_threshold()
    try:
        gc.set_threshold(0, *before[1:])
        seen, after = _thresholds_during_a_campaign_run()
        assert seen and set(seen) == {0} and after[0] == 0
    finally:
        gc.set_threshold(*before)
