"""Session 34's hardening: one regression test (or more) per defect found, each failing before its fix."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli

BLANK = "  \n\n\t \r\n\u3000\u00a0\n"  # spaces, tabs, CRLF, an ideographic and a no-break space: no text


def _tgz(members: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def check_one_line(res: object, *said: str) -> None:
    out = res  # click's Result
    assert out.exit_code == 2, (out.exit_code, out.output)  # type: ignore[attr-defined]
    err = out.stderr  # type: ignore[attr-defined]
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert out.stdout == ""  # type: ignore[attr-defined]
    for s in said:
        assert s in err, (s, err)


def test_blank_logs_are_refused_as_empty_ones_are(tmp_path: Path) -> None:
    """White space only (a file, stdin, a directory of blank files, several blank files, a blank .gz, an archive of
    blank members) answered "no fault found ... in N lines", exit 0 -- the clean bill of health session 33 took
    away from empty input. Now one line naming --logs and the input, exit 2."""
    import gzip

    home = ["--data-dir", str(tmp_path / "home")]
    blank = tmp_path / "blank.log"
    blank.write_text(BLANK)
    d = tmp_path / "d"
    d.mkdir()
    (d / "a.log").write_text(BLANK)
    (d / "b.log").write_text("")
    gz = tmp_path / "blank.log.gz"
    gz.write_bytes(gzip.compress(BLANK.encode()))
    tgz = tmp_path / "blank.tar.gz"
    tgz.write_bytes(_tgz({"w/a.log": BLANK, "w/b.log": "\n\n"}))
    for args, stdin, said in ((["--logs", str(blank)], None, ("blank file", str(blank))),
                              (["--logs", "-"], BLANK, ("only blank lines on stdin",)),
                              (["--logs", "-", "--json"], BLANK, ("only blank lines on stdin",)),
                              (["--logs", str(d)], None, ("no log text in the directory", str(d))),
                              (["--logs", str(blank), str(d / "a.log")], None, ("these 2 files",)),
                              (["--logs", str(gz)], None, ("blank file", str(gz))),
                              (["--logs", str(tgz)], None, ("its 2 files", str(tgz)))):
        res = CliRunner().invoke(cli, ["diagnose", *args, *home], input=stdin)
        check_one_line(res, "--logs", *said)
    # one line of text among the blank ones is text: an answer
    (d / "c.log").write_text("[ERROR] RUNTIME(1,python):2025-01-01-00:00:00.000.000 [x.cc:1] aicore timeout\n")
    assert CliRunner().invoke(cli, ["diagnose", "--logs", str(d), *home]).exit_code == 0


@pytest.mark.parametrize("archived", [False, True])
def test_a_bundle_of_blank_files_is_refused(tmp_path: Path, archived: bool) -> None:
    """A bundle whose files are all empty or blank answered "no fault found ... in 0 lines of the bundle", exit 0,
    while a bundle without files was already refused."""
    home = ["--data-dir", str(tmp_path / "home")]
    if archived:
        bundle = tmp_path / "b.tar.gz"
        bundle.write_bytes(_tgz({"b/worker-0/plog-1.log": BLANK, "b/worker-0/x.log": ""}))
    else:
        bundle = tmp_path / "b"
        (bundle / "worker-0").mkdir(parents=True)
        (bundle / "worker-0" / "plog-1.log").write_text(BLANK)
        (bundle / "worker-0" / "x.log").write_text("")
    res = CliRunner().invoke(cli, ["diagnose", "--bundle", str(bundle), *home])
    check_one_line(res, str(bundle), "no log text in the bundle", "2 files are empty or blank")


def _state(root: Path, **change: object) -> dict[str, object]:
    return {"version": 1, "root": str(root.resolve()), "saved_at": "2026-12-05T10:00:00", "next_incident": 3,
            "history": [], "files": {"a.log": {"head": "00", "head_n": 1, "inode": 1, "line_no": 4, "offset": 11}},
            **change}


@pytest.mark.parametrize("change, where", [
    ({"next_incident": [None]}, "next_incident: expected a whole number >= 1, got [null]"),
    ({"next_incident": 1e300}, "next_incident"),
    ({"next_incident": True}, "next_incident"),
    ({"files": {"a.log": {"inode": [1], "offset": 0, "head": "", "head_n": 0}}}, "files.a.log.inode"),
    ({"files": {"a.log": {"inode": 1, "offset": 0, "head": 5, "head_n": 0}}}, "files.a.log.head"),
    ({"files": []}, "files: expected a mapping"),
    ({"history": {"a": 1}}, "history: expected a list"),
])
def test_a_watch_state_of_the_wrong_shape_is_one_line(tmp_path: Path, change: dict[str, object], where: str) -> None:
    """``watch --state FILE`` with a field of the wrong type: ``next_incident: [null]`` was a TypeError traceback
    (found by tests/test_fuzz_inputs.py), a list as a file's inode an unhashable-type one."""
    import json

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.log").write_text("[ERROR] x\n")
    state = tmp_path / "state.json"
    state.write_text(json.dumps(_state(logs, **change)))
    res = CliRunner().invoke(cli, ["watch", "--logs", str(logs), "--state", str(state), "--max-runtime", "0.2",
                                   "--data-dir", str(tmp_path / "home")])
    check_one_line(res, str(state), where, "not a watch state file")


def test_a_watch_state_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    """A state file of 10^5 '[': a RecursionError traceback (json.loads outside the one JSON reader)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    state = tmp_path / "state.json"
    state.write_text("[" * 100_000)
    res = CliRunner().invoke(cli, ["watch", "--logs", str(logs), "--state", str(state), "--max-runtime", "0.2",
                                   "--data-dir", str(tmp_path / "home")])
    check_one_line(res, str(state), "not a watch state file")


@pytest.mark.parametrize("command", [["chaos", "validate"], ["runbooks", "validate"], ["kb", "validate"]])
def test_validate_errors_stay_one_line_each(tmp_path: Path, command: list[str]) -> None:
    """A key holding a CR or a line break (``"x\\ry\\nz": 1``) was echoed as it is by the validate commands: the
    error 'x<CR>y<LF>z: unknown field' broke into lines that did not start with 'opsbrain: error:' (found by
    tests/test_fuzz_inputs.py on a superpod block); each error is one line now, as the root group's are."""
    f = tmp_path / "cr.yaml"
    f.write_text('"x\\ry\\nz\\u2028w": 1\n')
    res = CliRunner().invoke(cli, [*command, str(f)])
    assert res.exit_code == 2
    lines = res.stderr.splitlines()
    assert lines and all(x.startswith(f"opsbrain: error: {f}: ") for x in lines), lines
    assert any("x y z w: unknown field" in x for x in lines), lines


@pytest.mark.parametrize("probe, code, where", [
    ("[]", "1", "probe: expected text"),  # was a TypeError traceback (unhashable list), found by test_fuzz_inputs
    ("{a: 1}", "1", "probe: expected text"),
    ("hcclret", "{a: 1}", "rows[0].code: a code is a whole number or text"),  # these were counted as rows
    ("hcclret", "1.5", "rows[0].code"),
    ("hcclret", "true", "rows[0].code"),
    ("hcclret", "null", "rows[0].code"),
])
def test_a_code_table_of_the_wrong_shape_is_one_line(tmp_path: Path, probe: str, code: str, where: str) -> None:
    """``kb coverage --table FILE``: a probe that is no text crashed; a code that is no number or word (a mapping,
    1.5, true, null) was measured as a row of the table (1.5 even as 'known')."""
    f = tmp_path / "t.yaml"
    f.write_text(f"table: t\nsource: s\nprobe: {probe}\nrows:\n  - code: {code}\n    name: n\n")
    check_one_line(CliRunner().invoke(cli, ["kb", "coverage", "--table", str(f)]), str(f), where)


@pytest.mark.parametrize("command", [["superpod", "run"], ["chaos", "run"], ["chaos", "validate"]])
def test_an_empty_key_in_a_scenario_is_named_with_the_file(tmp_path: Path, command: list[str]) -> None:
    """``"": {...}`` in a scenario's spec (a key hypothesis renamed to ""): the scenario check took the empty key
    for a union member's scalar branch and dropped the error, so the model's own ValidationError came out as
    'spec.: Extra inputs are not permitted', naming no file (superpod run, chaos run) or no error at all."""
    repo = Path(__file__).resolve().parents[1]
    text = (repo / "scenarios/tenant-slices.yaml").read_text()
    f = tmp_path / "s.yaml"
    f.write_text(text.replace("\n  superpod:", '\n  "":', 1))
    extra = ["--no-store"] if command[0] == "superpod" else ["--dry-run"] if command[1] == "run" else []
    res = CliRunner().invoke(cli, [*command, str(f), *extra])
    check_one_line(res, str(f), 'spec[""]: unknown field')


def test_no_maybe_plurals_in_what_the_cli_and_the_reports_print() -> None:
    """'1 fault(s) not detected', '0 spare node(s) left', 'in-place recovery(ies)': the CLI and the reports say a
    count's noun in its number (opsbrain.report.text.count). Every string literal of opsbrain/cli and
    opsbrain/report but docstrings; 'http(s)' is a scheme, not a plural."""
    import ast
    import re

    from opsbrain.report.text import count

    assert [count(1, "fault"), count(0, "fault"), count(2, "in-place recovery", "in-place recoveries")] == [
        "1 fault", "0 faults", "2 in-place recoveries"]
    repo = Path(__file__).resolve().parents[1]
    found = []
    for f in sorted([*(repo / "opsbrain/cli").glob("*.py"), *(repo / "opsbrain/report").glob("*.py")]):
        tree = ast.parse(f.read_text())
        docs = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(
            n, ast.Module | ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef) and n.body and isinstance(
            n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                found += [f"{f.name}:{node.lineno}: {m}" for m in re.findall(r"\w+\((?:s|es|ies)\)", node.value)
                          if m != "http(s)"]
    assert found == []
