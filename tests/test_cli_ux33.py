"""Session 33's walk of the command tree as a new on-call engineer (README and --help only): what a person reads
at 3 a.m. -- no Python reprs or raw None, numbers with their units, the option or file named in every error, and
bad output paths refused before minutes of work, not after."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli

REPR = re.compile(r"\bNone\b|\bnan\b|\{'|\('|(?<!\d)\d\.\d{5,}")  # a raw None/nan, a dict or tuple repr, 6+ decimals


def test_campaign_prose_has_no_raw_none_and_rounds_its_numbers(tmp_path: Path) -> None:
    """Runs with no fault have no accuracy and no hands-off share: '-' (was 'correct (None)', 'share None'); the
    auto-vs-manual lines round as the tables do and give reductions as percentages (were 0.993745, 705.260324 s,
    'reduced by 0.7539')."""
    quiet = CliRunner().invoke(cli, ["chaos", "campaign", "--days", "0.5", "--seeds", "2", "--workers", "1",
                                     "--data-dir", str(tmp_path / "a")])
    assert quiet.exit_code == 0, quiet.output
    line = next(x for x in quiet.output.splitlines() if "diagnosis:" in x)
    assert "0/0 correct (-)" in line and "hands-off share -;" in line
    assert "no fault in these runs" in quiet.output
    both = CliRunner().invoke(cli, ["chaos", "campaign", "--days", "1", "--seeds", "2", "--first-seed", "5",
                                    "--policy", "both", "--workers", "1", "--data-dir", str(tmp_path / "b")])
    assert both.exit_code == 0, both.output
    prose = [x for x in both.output.splitlines() if x.startswith(("auto vs manual", "  diagnosis", "  ttr of"))]
    assert len(prose) >= 5
    for x in prose:
        assert not REPR.search(x), x
    assert any(re.search(r"reduced by \d+\.\d%", x) for x in prose)
    assert re.search(r"auto: \d+ interruptions? \(", both.output)  # the noun in the right number: these seeds
    assert not re.search(r"\b1 (interruptions|background faults)\b", both.output)  # had 1, printed '1 interruptions'
    for x in quiet.output.splitlines() + both.output.splitlines():
        assert not REPR.search(x), x


# A plog excerpt in CANN's layout ([LEVEL] MODULE(pid,process):date [file:line][pid] text), written for this test:
# one rank's notify wait times out and its stream sync fails, no remote rank logs a wait.
PLOG = """\
[ERROR] HCCL(40211,python3.9):2025-11-02-03:14:07.551.209 [hccl_communicator.cc:1188][40211][Rank 11] wait notify \
timeout: remote rank 12 did not answer within 1836 s, tag AllReduce_x
[ERROR] HCCL(40211,python3.9):2025-11-02-03:14:07.551.377 [transport_base.cc:420][40211] link between rank 11 and \
rank 12 is broken, errno 107
[ERROR] RUNTIME(40211,python3.9):2025-11-02-03:14:07.560.001 [stream.cc:1062][40211] stream synchronize failed, \
device_id=3, stream_id=7, retCode=0x7100002
"""


def test_diagnose_rule_lists_class_scores_not_a_python_dict(tmp_path: Path) -> None:
    """The root cluster's rule named its vote as a dict repr ({'npu_oom': 0.69, ...}); now 'npu_oom 0.69, ...'."""
    from opsbrain.diagnosis.multirank import weights

    assert weights({"a": 0.1, "b": 0.7}) == "b 0.70, a 0.10" and weights({}) == "none"
    log = tmp_path / "pasted.log"
    log.write_text(PLOG)
    res = CliRunner().invoke(cli, ["diagnose", "--logs", str(log), "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 0, res.output
    rule = next(x for x in res.output.splitlines() if x.strip().startswith("rule:"))
    assert "vote" in rule and not REPR.search(rule), rule


def test_runs_bundle_names_the_scenario_and_says_differences_in_words(tmp_path: Path) -> None:
    """'runs bundle' printed 're-ran b0002 seed 7 ...' (the last bundle's name, a loop variable shadowing the
    scenario's) and a difference as two tuple reprs."""
    import json

    from opsbrain.bundle.writer import compare_journals

    home = str(tmp_path / "home")
    ran = CliRunner().invoke(cli, ["chaos", "run", "dirty-connector-flap", "--json", "--data-dir", home])
    assert ran.exit_code == 0, ran.output
    journal = json.loads(ran.stdout)
    res = CliRunner().invoke(cli, ["runs", "bundle", journal["run_id"], "--out", str(tmp_path / "b"),
                                   "--data-dir", home])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("re-ran dirty-connector-flap seed "), res.output
    as_json = CliRunner().invoke(cli, ["runs", "bundle", journal["run_id"], "--out", str(tmp_path / "c"),
                                       "--data-dir", home, "--json"])
    assert json.loads(as_json.stdout)["scenario"] == "dirty-connector-flap"
    for b in ("b0001", "b0002"):  # their incidents: opened to the millisecond (was '00:21:32.088000')
        d = CliRunner().invoke(cli, ["diagnose", "--bundle", str(tmp_path / "b" / b), "--data-dir", home])
        assert d.exit_code == 0, d.output
        for line in (x for x in d.output.splitlines() if x.startswith("incident ")):
            assert not re.search(r"opened \S*\.\d{4,}", line) and " None " not in line, line
    changed = json.loads(json.dumps(journal))
    changed["incidents"][0]["diagnosis"] = None
    diffs = compare_journals(journal, changed)
    assert diffs and not any(REPR.search(d) for d in diffs), diffs
    assert "diagnosed nothing" in diffs[0]


def _unwritable(tmp_path: Path) -> Path:
    """A directory no file can be created in: a mode-0555 one (not for root, whom modes do not stop), else sysfs
    or procfs, which refuse new files to root too."""
    import tempfile

    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    for d in (ro, Path("/sys"), Path("/proc")):
        try:
            fd, name = tempfile.mkstemp(dir=d)
        except OSError:
            return d
        Path(name).unlink()
    pytest.skip("no unwritable directory here")


def test_unwritable_out_is_refused_before_the_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """'chaos run --out', 'kb train --out', 'runs bundle --out': a directory that takes no file was found out only
    when writing, after the run (the run already stored) or the training; os.access says yes to root everywhere."""
    from opsbrain.errors import InputError
    from opsbrain.fsio import check_output_dir
    from opsbrain.store import RunStore

    bad = _unwritable(tmp_path)
    with pytest.raises(InputError, match="not writable"):
        check_output_dir(bad / "journals", "--out")
    home = tmp_path / "home"
    res = CliRunner().invoke(cli, ["chaos", "run", "dirty-connector-flap", "--out", str(bad / "j"),
                                   "--data-dir", str(home)])
    assert res.exit_code == 2 and "--out" in res.output and "not writable" in res.output, res.output
    assert not RunStore(home).list_runs()  # refused before the run

    def no_training(**_: object) -> None:
        raise AssertionError("trained before checking --out")

    monkeypatch.setattr("opsbrain.kb.training.train_model", no_training)
    res = CliRunner().invoke(cli, ["kb", "train", "--out", str(bad / "m.npz"), "--data-dir", str(home)])
    assert res.exit_code == 2 and "not writable" in res.output, res.output


def _commands(cmd: object, path: list[str]) -> list[tuple[str, object]]:
    import click

    if isinstance(cmd, click.Group):
        ctx = click.Context(cmd)
        return [x for n in cmd.list_commands(ctx) for x in _commands(cmd.get_command(ctx, n), [*path, n])]
    return [(" ".join(path), cmd)]


def test_every_option_of_every_command_says_what_it_does() -> None:
    """--help is all a new on-call engineer has: campaign --spares-per-pod/--executor, replay --policy/--seed,
    runs list --limit and kb train/eval --workers had none (kb train's ranges were checked in the body, one message
    for two options, and not shown)."""
    import click

    bare = [f"{name} {'/'.join(p.opts)}" for name, cmd in _commands(cli, [])
            for p in getattr(cmd, "params", []) if isinstance(p, click.Option) and not p.hidden
            and not (p.help or "").strip()]
    assert bare == []
    res = CliRunner().invoke(cli, ["kb", "train", "--workers", "0"])
    assert res.exit_code == 2 and "'--workers'" in res.output and "--runs-per-class" not in res.output


def test_diagnose_logs_with_no_text_at_all_is_bad_input(tmp_path: Path) -> None:
    """An empty file, an empty directory or nothing on stdin answered 'no fault found ... in 0 lines', exit 0 -- a
    clean bill of health for a paste that never arrived; an empty bundle and an incident file without lines were
    already refused (exit 2). Now one line naming --logs and the input."""
    empty = tmp_path / "empty.log"
    empty.write_text("")
    (tmp_path / "d").mkdir()
    home = ["--data-dir", str(tmp_path / "home")]
    for args, stdin, said in ((["--logs", str(empty)], None, "empty file"),
                              (["--logs", str(tmp_path / "d")], None, "no log text in the directory"),
                              (["--logs", str(empty), str(empty)], None, "these 2 files"),
                              (["--logs", "-"], "", "nothing on stdin"),
                              (["--logs", "-", "--json"], "", "nothing on stdin")):
        res = CliRunner().invoke(cli, ["diagnose", *args, *home], input=stdin)
        assert res.exit_code == 2, (args, res.output)
        assert said in res.stderr and "--logs" in res.stderr and len(res.stderr.splitlines()) == 1, res.stderr
        assert res.stdout == ""
    log = tmp_path / "pasted.log"
    log.write_text(PLOG)
    assert CliRunner().invoke(cli, ["diagnose", "--logs", "-", *home], input=PLOG).exit_code == 0


def test_watch_state_that_is_a_directory_names_the_option(tmp_path: Path) -> None:
    """'watch --state DIR' said 'is a directory (use --bundle for a log bundle, --logs for a folder of logs)':
    diagnose's hint, naming options watch does not have for the wrong one."""
    logs = tmp_path / "logs"
    logs.mkdir()
    res = CliRunner().invoke(cli, ["watch", "--logs", str(logs), "--state", str(logs), "--max-runtime", "0.2",
                                   "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2 and "--state" in res.stderr and "--bundle" not in res.stderr, res.stderr


def test_steady_state_table_gives_each_probe_its_unit_and_bar(tmp_path: Path) -> None:
    """The probe table showed '1554.12', '30.2306', '0.009074' with no unit and no bar (tpot's baseline '-' left
    the reader guessing what it was held to); now 'decode-throughput (tokens/s/NPU)', '<= 50 ms',
    '>= 0.95 x baseline', and it fits an 80-column terminal as a grid."""
    import json

    from opsbrain.cli.journal_view import journal_tables
    from opsbrain.scenario.schema import PROBE_UNITS, Probe

    assert set(PROBE_UNITS) == set(Probe.model_fields["metric"].annotation.__args__)  # type: ignore[union-attr]
    ran = CliRunner().invoke(cli, ["chaos", "run", "node-crash-training", "--json", "--data-dir", str(tmp_path)])
    journal = json.loads(ran.stdout)
    probes = journal_tables(journal)[1]
    rows = {r[0]: r for r in probes.rows}
    assert rows["tpot (ms)"][1] == "<= 50 ms"
    assert rows["decode-throughput (tokens/s/NPU)"][1] == ">= 0.95 x baseline"
    assert "training-step-rate (steps/s)" in rows
    assert probes._grid(80, False) is not None
    for r in probes.rows:
        assert not re.search(r"\bNone\b|\bnan\b", " ".join(r)), r


def test_small_bad_inputs_say_what_to_do(tmp_path: Path) -> None:
    """One line naming the option and the way out: an empty JSON file (was 'Expecting value'), report --baseline
    (the option was not named), a log file given as INCIDENT_FILE (no hint that raw logs go to --logs), and
    superpod run on a scenario without a superpod block (no hint which built-ins have one)."""
    empty = tmp_path / "empty.json"
    empty.write_text("")
    log = tmp_path / "pasted.log"
    log.write_text(PLOG)
    home = ["--data-dir", str(tmp_path / "home")]
    cases = [(["kb", "import", "mindcluster-kg", str(empty), *home], ["empty file"]),
             (["report", str(empty), "--out", str(tmp_path / "r.md")], ["empty file"]),
             (["report", "nosuch-run", "--out", str(tmp_path / "r.md"), "--baseline", "nosuch-base", *home],
              ["no run or campaign 'nosuch-run'"]),
             (["diagnose", str(log), *home], ["not valid JSON", "--logs"]),
             (["superpod", "run", "node-crash-training", "--no-store", *home], ["tenant-slices"])]
    for args, said in cases:
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 2 and len(res.stderr.splitlines()) == 1, (args, res.output)
        assert all(s in res.stderr for s in said), (args, res.stderr)
    ran = CliRunner().invoke(cli, ["chaos", "run", "dirty-connector-flap", "--json", *home])
    run_id = __import__("json").loads(ran.stdout)["run_id"]
    res = CliRunner().invoke(cli, ["report", run_id, "--out", str(tmp_path / "r.md"), "--baseline", "nosuch", *home])
    assert res.exit_code == 2 and "--baseline" in res.stderr, res.stderr


def test_run_summary_counts_in_the_right_number() -> None:
    """'1 faults', '1 noise incidents that ... are one row', '(noise) 1 incidents': the count's noun follows it."""
    from opsbrain.cli.journal_view import count

    assert (count(1, "fault"), count(0, "fault"), count(2, "false positive")) == ("1 fault", "0 faults",
                                                                                    "2 false positives")


def test_an_unreachable_exporter_is_said_in_words(tmp_path: Path) -> None:
    """'cannot fetch: [Errno 111] Connection refused' (Python's OSError str): now 'cannot fetch: Connection
    refused', naming --url and the address."""
    import socket

    with socket.socket() as s:  # a port nothing listens on: bound, never listening
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/metrics"
        res = CliRunner().invoke(cli, ["sweep", "once", "--source", "prometheus", "--url", url,
                                       "--data-dir", str(tmp_path)])
    assert res.exit_code == 2 and "--url" in res.stderr and url in res.stderr, res.stderr
    assert "[Errno" not in res.stderr and "cannot fetch: Connection refused" in res.stderr, res.stderr


def test_replay_line_rounds_ettr_as_goodput_and_shows_none_as_a_dash() -> None:
    """'ETTR 0.986625, goodput 0.986': ETTR now has goodput's three decimals; a run without a training job's ETTR
    printed 'ETTR None'."""
    from opsbrain.scenario import replay as rp

    run = {"interruptions_per_node_day": 1.0, "ettr": 0.986625, "goodput": 0.98612, "detected": 2, "faults": 2,
           "recovered": 2, "verdict": "inconclusive", "run_id": "r"}
    out = {"trace": "t.csv", "events": 4, "faults": 2, "mapped_total": 2, "unmapped_total": 0, "nodes_mapped": 2,
           "pods": 1, "by_kind": {}, "unmapped": {}, "unmapped_reasons": {}, "notes": [],
           "trace_statistics": {"servers": 2, "days": 0.0174, "interruptions_per_node_day": 57.6}, "run": run}
    assert "ETTR 0.987, goodput 0.986" in "\n".join(rp.summary_lines(out))
    stats = out["trace_statistics"] | {"servers": 1}
    one = out | {"events": 2, "faults": 1, "nodes_mapped": 1, "trace_statistics": stats}
    assert "2 events, 1 fault on 1 server over" in rp.summary_lines(one)[0]  # was '1 faults on 1 servers'
    assert rp.summary_lines(one)[0].endswith("; 1 node of 1 pod")
    out["run"] = run | {"ettr": None}
    text = "\n".join(rp.summary_lines(out))
    assert "ETTR -," in text and "None" not in text


def test_watch_advice_names_step_guards_in_the_runbooks_terms(tmp_path: Path) -> None:
    """watch printed an advised step as 'ticket worker-0/npu3 when {'has_component': True}' (a dict repr) and
    its stop line as '1 incidents from 3 lines in 1 files'."""
    from opsbrain.recovery.schema import conditions_text

    assert conditions_text({"has_component": True, "spare_taken": False, "isolated_rows_at_least": 64,
                            "component_kind": ["link", "hbm"], "node_healthy": None}) == (
        "has_component and not spare_taken and isolated_rows_at_least=64 and component_kind=link|hbm")
    logs = tmp_path / "logs" / "worker-0"
    logs.mkdir(parents=True)
    (logs / "plog.log").write_text(PLOG)
    res = CliRunner().invoke(cli, ["watch", "--logs", str(logs.parent), "--from-start", "--max-runtime", "2",
                                   "--poll", "0.1", "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 0, res.output
    assert "advised" in res.stdout
    for line in res.stdout.splitlines():
        assert not REPR.search(line), line
    stop = next(x for x in res.output.splitlines() if x.startswith("stopped"))
    assert re.search(r": 1 incident from 3 lines in 1 file$", stop), stop


def test_kb_coverage_gives_shares_as_percentages_with_one_decimal() -> None:
    """The share column read '1' beside '0.986' and '0.2' (a float's repr); now '100.0%', '98.6%', and the total
    line gives its share too."""
    res = CliRunner().invoke(cli, ["kb", "coverage", "-o", "plain"])
    assert res.exit_code == 0, res.output
    rows = [x.split("\t") for x in res.stdout.splitlines()]
    col = rows[0].index("share")
    assert len(rows) > 2 and all(re.fullmatch(r"\d{1,3}\.\d%", r[col]) for r in rows[1:]), rows
    table = CliRunner().invoke(cli, ["kb", "coverage"]).stdout
    assert re.search(r"all tables: \d+ / \d+ known \(\d+\.\d%\)", table), table


def test_show_commands_leave_unset_fields_out_of_the_yaml() -> None:
    """'kb show' printed 'level: null' for every signature without a level and 'runbooks show' 'when: null' and
    "name: ''" for every step: unset fields, left out now (--json keeps them)."""
    import json

    for args in (["kb", "show", "node_crash"], ["runbooks", "show", "rb-node-crash"]):
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 0, res.output
        assert not re.search(r":\s+(null|'')\s*$", res.stdout, re.M), res.stdout
        assert "null" in json.dumps(json.loads(CliRunner().invoke(cli, [*args, "--json"]).stdout))


def test_scenario_schema_describes_fault_kinds_without_a_wrong_article() -> None:
    """'A aicore_hang fault: ...' in the JSON Schema an editor shows; now 'Fault kind aicore_hang: ...'."""
    import json

    schema = json.loads(CliRunner().invoke(cli, ["chaos", "schema"]).stdout)
    docs = [d.get("description", "") for d in schema["$defs"].values()]
    kinds = [d for d in docs if d.startswith("Fault kind ")]
    assert kinds and not any(re.match(r"A [aeiou]", d) for d in docs)


def test_report_of_an_incident_diagnosed_without_a_component_shows_a_dash(tmp_path: Path) -> None:
    """An incident the diagnosis left at 'unknown' (no component) showed `None` in the report's incident tables
    and 'diagnosed unknown at None' in its timeline, in Markdown and HTML; a superpod report's bound showed a dict
    repr."""
    import json

    from opsbrain.report.superpod import _f

    ran = CliRunner().invoke(cli, ["chaos", "run", "dirty-connector-flap", "--json", "--data-dir", str(tmp_path)])
    journal = json.loads(ran.stdout)
    for i in journal["incidents"]:
        if i.get("diagnosis"):
            i["diagnosis"] |= {"fault_class": "unknown", "component": None}
    src = tmp_path / "j.json"
    src.write_text(json.dumps(journal))
    md = CliRunner().invoke(cli, ["report", str(src), "--format", "md", "--out", "-"])
    assert md.exit_code == 0, md.output
    assert "`None`" not in md.stdout and "at None" not in md.stdout and "diagnosed unknown" in md.stdout
    html = tmp_path / "r.html"
    assert CliRunner().invoke(cli, ["report", str(src), "--out", str(html)]).exit_code == 0
    assert ">None<" not in html.read_text() and "at None" not in html.read_text()
    assert _f({"EMS reads": 0, "actions": 2}) == "EMS reads 0, actions 2" and _f(None) == "-"


def test_a_group_that_lists_its_commands_lists_them_all() -> None:
    """'opsbrain chaos --help' read 'Chaos scenarios: list, validate, schema, run, replay.' and left out campaign."""
    import click

    ctx = click.Context(cli)
    checked = 0
    for name in cli.list_commands(ctx):
        group = cli.get_command(ctx, name)
        if not isinstance(group, click.Group):
            continue
        first = (group.help or "").split(".")[0]
        named = [w.strip() for w in first.split(":", 1)[-1].split(",")] if ":" in first else []
        subs = set(group.list_commands(click.Context(group)))
        if named and set(named) <= subs:
            checked += 1
            assert set(named) == subs, (name, named, subs)
    assert checked >= 2


def test_watch_state_in_a_missing_directory_is_refused_at_the_start(tmp_path: Path) -> None:
    """'watch --state /nonexist/s.json' made /nonexist/ (and its parents) at its first save, against the output
    policy (`report --out`, `chaos run --out`: never a missing parent), and a typo went unnoticed."""
    logs = tmp_path / "logs"
    logs.mkdir()
    missing = tmp_path / "nope" / "deeper"
    res = CliRunner().invoke(cli, ["watch", "--logs", str(logs), "--state", str(missing / "s.json"), "--max-runtime",
                                   "0.2", "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2 and "--state" in res.stderr and "does not exist" in res.stderr, res.stderr
    assert not (tmp_path / "nope").exists()


def test_a_param_override_of_a_group_or_a_distribution_says_what_it_takes() -> None:
    """'--param fabric=1' said 'Input should be a valid dictionary or instance of FabricParams', and
    '--param training.launch_s=5' '... instance of Dist': pydantic's words for the model's class names."""
    for pair, said in (("fabric=1", "a group of parameters"), ("training.launch_s=5", "a distribution, given as JSON")):
        res = CliRunner().invoke(cli, ["topology", "--param", pair])
        assert res.exit_code == 2 and said in res.stderr and "instance of" not in res.stderr, res.stderr
    assert CliRunner().invoke(cli, ["topology", "--param", "fabric.die_links=3"]).exit_code == 0


def test_commands_that_judge_state_their_exit_codes_in_help() -> None:
    """An on-call engineer scripting around 'chaos run' or 'diagnose' had the README's general rule only: now each
    help says what 0 and 1 mean for it (diagnose: 0 with any answer, a found fault included)."""
    for args, said in ((["chaos", "run", "--help"], "1: failed"), (["diagnose", "--help"], "Exit 0 with an answer"),
                       (["sweep", "once", "--help"], "Exit 0"), (["runs", "bundle", "--help"], "exits 1")):
        out = " ".join(CliRunner().invoke(cli, args).output.split())
        assert said in out, (args, out[:300])


def test_kb_import_lists_refused_entries_without_a_list_repr(tmp_path: Path) -> None:
    """'refused ['RestartNPUCodes[1]']: ...' (a Python list); now 'refused RestartNPUCodes[1]: ...'."""
    fixture = Path(__file__).parent / "fixtures" / "vendor_small" / "faultcode_good.json"
    res = CliRunner().invoke(cli, ["kb", "import", "mindcluster-faultcode", str(fixture), "--data-dir",
                                   str(tmp_path)])
    assert res.exit_code == 0, res.output
    refused = [x for x in res.output.splitlines() if x.strip().startswith("refused")]
    assert refused and not any("['" in x for x in refused), refused
    assert any(x.strip().startswith("refused MadeUpLevelCodes[0], MadeUpLevelCodes[1]:") for x in refused)
