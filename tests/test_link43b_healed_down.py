"""How long a link's last down lasted stays readable after the link came back (session 43, link43b).

``dark_for_s`` exists only while a link is dark: once its up arrives nothing said whether it had been down 0.5 s
(a dirty connector's blip, only reported) or 30 s (past the 20 s after which MindCluster escalates a link-down:
link_down by the knowledge base's definition). scen41 found a scenario's ``link_down`` with ``duration: 30`` read
dirty_connector. ``last_down_s`` is the time the last completed down lasted (from its down and up signals)."""

from __future__ import annotations

import math

from opsbrain.diagnosis.features import incident_features
from opsbrain.ingest import Signal

LINK = "pod1/node34/l1sw3~pod1/l2plane3/sw09"
OTHER = "pod1/node34/l1sw5~pod1/l2plane5/sw01"


def _sw(t: float, kind: str, link: str = LINK) -> Signal:
    return Signal(t, kind, link, link.split("~")[0], 2 if kind.endswith("down") else 1, f"{kind} {link}")


def test_a_link_down_30_s_then_up_keeps_its_time_down() -> None:
    # both ends report the down and the up, a few hundred ms apart
    sigs = [_sw(100.0, "sw:down"), _sw(100.3, "port:down"), _sw(130.0, "sw:up"), _sw(130.2, "port:up")]
    f = incident_features(sigs, 135.0)
    assert "dark_for_s" not in f  # back up: no longer dark
    assert math.isclose(math.expm1(f["last_down_s"]), 30.0)


def test_the_last_down_of_a_flapping_link_is_its_last_blip() -> None:
    sigs = [_sw(100.0, "sw:down"), _sw(130.0, "sw:up"), _sw(170.0, "sw:down"), _sw(170.5, "sw:up")]
    assert math.isclose(math.expm1(incident_features(sigs, 175.0)["last_down_s"]), 0.5)


def test_a_link_still_dark_or_never_down_gives_no_last_down() -> None:
    assert "last_down_s" not in incident_features([_sw(100.0, "sw:down")], 110.0)
    # of two links, the longest last down counts; a dark one has none yet
    sigs = [_sw(100.0, "sw:down"), _sw(100.8, "sw:up"), _sw(100.0, "sw:down", OTHER), _sw(125.0, "sw:up", OTHER)]
    assert math.isclose(math.expm1(incident_features(sigs, 130.0)["last_down_s"]), 25.0)


def test_case_generation_has_link_downs_that_heal_past_the_threshold() -> None:
    """Training had no link_down whose link came back (every one stayed dark), so nothing taught the model what a
    link down 30 s and then up is. A share of link_down case runs now heal, after faults.link_down_heal_s drawn
    past the detector's link_down_after_s (a shorter down is a dirty connector's blip by the definition); their
    moments after the up carry last_down_s past it, labelled link_down."""
    from opsbrain.detection import DetectorParams
    from opsbrain.kb import cases as case_lib

    w = case_lib.TRAIN_WORLD
    floor = DetectorParams().link_down_after_s
    seeds = [s for s in range(200) if case_lib.healed_duration(s, "link_down", w) is not None]
    assert 0.15 * 200 < len(seeds) < 0.45 * 200  # about the world's share, on a stream of its own
    assert all(case_lib.healed_duration(s, "link_down", w) > floor for s in seeds)  # type: ignore[operator]
    assert case_lib.healed_duration(seeds[0], "link_flap", w) is None
    cases = case_lib.run_case(seeds[0], "link_down", False, w.noise_scale)
    healed = [c for c in cases if c.injected and c.label == "link_down" and "last_down_s" in c.features]
    assert healed and math.expm1(healed[-1].features["last_down_s"]) > floor
