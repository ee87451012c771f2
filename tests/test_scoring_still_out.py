"""A link its response only drained or routed around, never isolated nor repaired, and still down at the run's end
is reported still out of service, never recovered, and its workloads' loss stays the fault's until the end of the
run (session 31: a link-down held by the circuit breaker scored "recovered" 21 s after onset while the link stayed
dark, its drain lapsed and nobody was to repair it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.report.build import build_run_report
from opsbrain.report.markdown import render_run
from opsbrain.runner import scoring
from tests.test_scoring_impact import _home, _run, _write  # noqa: F401  (_home: the run store in tmp_path)

LINK = "pod0/node20/l1sw4~pod0/l2plane4/sw11"
DOWN = [(700.0, "failed", "fault:f7")]


def test_a_dark_link_traffic_was_moved_off_is_still_out_until_isolated_or_back() -> None:
    out = scoring.still_out_of_service("f7", 700.0, DOWN, [717.0], True, 1500.0)
    assert out is not None and out["since_s"] == 700.0 and out["drained"]
    assert out["reason"] == "drained, never isolated or repaired, still down"
    undrained = scoring.still_out_of_service("f7", 700.0, DOWN, [723.5], False, 1500.0)
    assert undrained is not None and "routed around" in undrained["reason"]
    isolated = [*DOWN, (735.0, "isolated", "isolate_link")]
    assert scoring.still_out_of_service("f7", 700.0, isolated, [717.0], True, 1500.0) is None
    relocked = [*DOWN, (730.0, "healthy", "fault:f7")]  # it came back (a repair, or it re-locked)
    assert scoring.still_out_of_service("f7", 700.0, relocked, [717.0], True, 1500.0) is None
    # nothing moved traffic off it (a baseline: ticket and replacement under way): its workloads decide
    assert scoring.still_out_of_service("f7", 700.0, DOWN, [], False, 1500.0) is None
    assert scoring.still_out_of_service("f7", 700.0, DOWN, [650.0], False, 1500.0) is None  # before it went out
    # a fault that never took its link out (another cause's state change)
    assert scoring.still_out_of_service("f7", 700.0, [(700.0, "failed", "fault:f1")], [717.0], True, 1500.0) is None



def _spec(duration: int, faults: list[dict[str, Any]]) -> dict[str, Any]:
    return {"duration": duration, "seed": 7, "topology": {"pods": 1, "spares": 2},
            "workloads": [{"name": "serve", "kind": "inference", "first_node": 0},
                          {"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
            "faults": faults}


def test_a_link_the_breaker_kept_from_isolation_is_not_recovered_though_its_service_came_back(
        tmp_path: Path) -> None:
    """Six nodes crash, the circuit breaker opens; a link of the serving nodes dies 75 s later: its responses drain
    and re-route it (decode back within its bar at 721 s) but may not isolate it; the drain ends after its
    hold-down and the link stays dark to the end."""
    crashes = [{"at": 600 + 5 * k, "kind": "node_crash", "target": f"pod0/node{n}"}
               for k, n in enumerate((33, 34, 36, 37, 39, 40))]
    j = _run(_write(tmp_path, "held", _spec(1500, [*crashes, {"at": 700, "kind": "link_down", "target": LINK}])))
    f = next(i for i in j["incidents"] if i["injected"] and i["injected"]["kind"] == "link_down")
    assert any(a["action"] == "guardrail" and "circuit breaker" in a["detail"]["reason"] for a in f["actions"])
    assert not any(a["action"] == "isolate_link" and a["status"] == "succeeded" for a in f["actions"])
    assert f["ttr_s"] is None and f["recovered_at_s"] is None  # was 21.0: "recovered" with the link dark
    assert f["still_out_of_service"]["since_s"] == 700.0 and not f["still_out_of_service"]["drained"]
    assert f["impact"]["serve"]["lost_tokens"] > 0
    md = render_run(build_run_report(j))
    assert f"Isolate or repair {LINK}: still out of service at the end of the run" in md
    assert "(still out of service at the end of the run: routed around" in md


def _moved_off_reason(actions: list[dict[str, Any]]) -> str:
    """What the run must say of a link its response moved traffic off without isolating it: "drained" when a drain
    succeeded (the diagnosis abstained first: the same-part rule takes the link out until a cause is named),
    "routed around" when only a re-route did (the first verdict named link_down below the runbook bar)."""
    drained = any(a["action"] == "drain_link" and a["status"] == "succeeded" for a in actions)
    how = "drained" if drained else "routed around (no drain holds it now)"
    return f"{how}, never isolated or repaired, still down"


def test_a_short_run_ends_with_the_link_moved_off_and_says_so(tmp_path: Path) -> None:
    """The run ends 20 s after a link-down of a training node: traffic moved off (drained or re-routed, as the
    first verdict's confidence decides), not isolated yet."""
    link = "pod0/node36/l1sw2~pod0/l2plane2/sw05"
    j = _run(_write(tmp_path, "short", _spec(620, [{"at": 600, "kind": "link_down", "target": link}])))
    f = next(i for i in j["incidents"] if i["injected"])
    assert any(a["action"] in ("drain_link", "reroute") and a["status"] == "succeeded" for a in f["actions"])
    assert not any(a["action"] == "isolate_link" and a["status"] == "succeeded" for a in f["actions"])
    assert f["ttr_s"] is None
    out = f["still_out_of_service"]
    assert out["since_s"] == 600.0 and out["reason"] == _moved_off_reason(f["actions"])
    assert out["drained"] == out["reason"].startswith("drained")
    assert j["summary"]["recovered"] == 0


def test_an_isolated_link_is_no_longer_said_to_be_out(tmp_path: Path) -> None:
    """Given the time to isolate it (rb-link-down's confirmation wait), the same link is handled: no mark."""
    link = "pod0/node36/l1sw2~pod0/l2plane2/sw05"
    j = _run(_write(tmp_path, "long", _spec(700, [{"at": 600, "kind": "link_down", "target": link}])))
    f = next(i for i in j["incidents"] if i["injected"])
    assert "still_out_of_service" not in f and f["ttr_s"] is not None


def test_chaos_run_says_the_link_is_still_out_of_service(tmp_path: Path) -> None:
    """The CLI's summary names the link and says it is not recovered, its loss counted to the end of the run."""
    from click.testing import CliRunner

    from opsbrain.cli import cli

    link = "pod0/node36/l1sw2~pod0/l2plane2/sw05"
    path = _write(tmp_path, "short", _spec(620, [{"at": 600, "kind": "link_down", "target": link}]))
    res = CliRunner().invoke(cli, ["chaos", "run", str(path)], env={"OPSBRAIN_HOME": str(tmp_path / "home")})
    said = [f"still out of service at the end of the run: {link} (link_down): {how}, never isolated or repaired, "
            "still down; not recovered, its loss counted until the end of the run"
            for how in ("drained", "routed around (no drain holds it now)")]
    assert sum(line in res.stdout for line in said) == 1, res.stdout
    assert "0 recovered" in res.stdout
