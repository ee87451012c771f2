"""``opsbrain sweep once|run`` through the CLI (JSON, exit codes, bad input), and in-run sweeps inside ``chaos run``:
the degrading module of the built-in ``optical-degradation`` scenario is caught and its link drained well before
the link would have gone down."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.store import RunStore

LINK = "pod0/node36/l1sw2~pod0/l2plane2/sw05"


def run(runner: CliRunner, *args: str, home: Path) -> tuple[int, str, str]:
    res = runner.invoke(cli, list(args), env={"OPSBRAIN_HOME": str(home)})
    return res.exit_code, res.stdout, res.stderr


def test_sweep_once_json_alarm_exits_1(runner: CliRunner, tmp_path: Path) -> None:
    code, out, err = run(runner, "sweep", "once", "--scenario", "optical-degradation", "--at", "9000", "--json",
                         home=tmp_path)
    assert code == 1, err
    data = json.loads(out)  # nothing but JSON on stdout
    assert (data["scenario"], data["at_s"], data["t_s"], data["exit_code"]) == ("optical-degradation", 9000, 9000, 1)
    assert data["checked"]["dom_rx"] == 10752 and data["checked"]["link_light"] == 5376
    trend = [f for f in data["findings"] if f["check"] == "dom_trend" and f["data"]["link"] == LINK]
    assert trend and trend[0]["severity"] == "Alarm" and 0 < trend[0]["predicted_failure_s"] < 2 * 3600
    assert data["severity"] in ("Alarm", "Critical") and data["counts"]["Alarm"] >= 1


def test_sweep_once_without_alarm_exits_0_and_prints_a_table(runner: CliRunner, tmp_path: Path) -> None:
    code, out, err = run(runner, "sweep", "once", "--seed", "0", "--at", "600", home=tmp_path)
    assert code == 0, err
    assert "noise-only-day seed 0 at t=600 s" in out and "Alarm " not in out and "Critical " not in out


@pytest.mark.parametrize("args,needle", [
    (["--at", "-5"], "--at"), (["--at", "100000"], "86400"), (["--at", "nan"], "--at"), (["--at", "soon"], "--at"),
    (["--scenario", "no-such-scenario"], "no-such-scenario"),
])
def test_sweep_once_bad_input_is_one_line_exit_2(runner: CliRunner, tmp_path: Path, args: list[str],
                                                 needle: str) -> None:
    code, out, err = run(runner, "sweep", "once", *args, "--json", home=tmp_path)
    assert code == 2 and out == ""
    assert err.startswith("opsbrain: error:") and needle in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args,needle", [
    (["--interval", "0s"], "--interval"), (["--cron", "every day"], "--cron"),
    (["--interval", "5m", "--cron", "* * * * *"], "at most one"), (["--max-runtime", "-1"], "--max-runtime"),
    (["--speed", "0"], "--speed"), (["--metrics-port", "70000"], "--metrics-port"),
])
def test_sweep_run_bad_input_is_one_line_exit_2(runner: CliRunner, tmp_path: Path, args: list[str],
                                                needle: str) -> None:
    code, out, err = run(runner, "sweep", "run", "--scenario", "noise-only-day", *args, home=tmp_path)
    assert code == 2 and out == "" and needle in err and len(err.strip().splitlines()) == 1


def test_sweep_run_json_summary_and_results_in_the_run_store(runner: CliRunner, tmp_path: Path) -> None:
    code, out, err = run(runner, "sweep", "run", "--scenario", "noise-only-day", "--interval", "0.5s", "--speed",
                         "600", "--max-runtime", "2", "--json", "--data-dir", str(tmp_path), home=tmp_path)
    assert code == 0, err
    data = json.loads(out)
    assert data["stopped_by"] == "max-runtime" and data["sweeps"] >= 1 and not data["errors"]
    assert data["schedule"] == {"id": "sweep-noise-only-day", "trigger": "interval:0.5", "description": "every 0.5 s"}
    started = [json.loads(x) for x in err.splitlines() if x.startswith("{") and "sweeping" in x]
    assert started and started[0]["msg"] == "sweeping noise-only-day every 0.5 s, speed 600x"
    assert started[0]["schedule"] == "sweep-noise-only-day"
    stored = RunStore(tmp_path).list_sweeps()
    assert len(stored) == data["sweeps"] and {r["source"] for r in stored} == {"service"}


# ---- in-run sweeps inside chaos run ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def optical_journal(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    home = tmp_path_factory.mktemp("od")
    code, out, err = run(CliRunner(), "chaos", "run", "optical-degradation", "--json", home=home)
    assert code in (0, 1), err
    return dict(json.loads(out))


def test_inrun_sweeps_drain_the_degrading_link_minutes_before_it_fails(optical_journal: dict[str, Any]) -> None:
    j = optical_journal
    sw = j["sweeps"]
    assert sw["enabled"] and sw["interval_s"] == 300 and sw["sweeps"] == int(j["duration_s"] // 300)
    (pro,) = [p for p in sw["proactive"] if p["component"] == LINK]
    assert pro["check"] == "dom_trend" and pro["diagnosis"]["fault_class"] == "optical_degradation"
    assert [a["action"] for a in pro["actions"]][:2] == ["isolate_link", "reroute"]
    (fault,) = [i for i in j["incidents"] if i["injected"] and i["injected"]["kind"] == "optical_degradation"]
    assert fault["detected_by"] == "sweep" and fault["incident_ids"][0] == pro["id"]
    assert fault["detected_at_s"] == pro["at_s"] and fault["ttd_s"] == pro["at_s"] - fault["injected"]["at_s"]
    assert fault["correct"] and fault["diagnosis"]["component"] == LINK
    assert fault["link_down_at_s"] is not None and fault["lead_time_s"] > 600  # >= 10 min before the link went down
    assert fault["lead_time_s"] == pytest.approx(fault["link_down_at_s"] - fault["detected_at_s"])
    # the drain's own side effects (a stalled training step) join the proactive incident: no new incident for them
    assert not [i for i in j["incidents"] if i["injected"] is None and i["detected_at_s"] is not None
                and pro["at_s"] <= i["detected_at_s"] <= pro["at_s"] + 60]


def test_sweeps_can_be_switched_off_in_the_scenario(runner: CliRunner, tmp_path: Path) -> None:
    data = yaml.safe_load((Path(__file__).parents[1] / "scenarios" / "optical-degradation.yaml").read_text())
    data["spec"]["sweeps"] = {"enabled": False}
    data["spec"]["duration"] = 1800
    path = tmp_path / "no-sweeps.yaml"
    path.write_text(yaml.safe_dump(data))
    code, out, err = run(runner, "chaos", "run", str(path), "--json", home=tmp_path)
    assert code in (0, 1), err
    assert json.loads(out)["sweeps"] == {"enabled": False}
    data["spec"]["sweeps"] = {"interval": -5}
    path.write_text(yaml.safe_dump(data))
    code, _out, err = run(runner, "chaos", "validate", str(path), home=tmp_path)
    assert code == 2 and "spec.sweeps.interval" in err
