"""One reader of npu-smi's ``Error Code`` line (``npu-smi info -t health -i N -c C``; HDK npu-smi reference npusmi_028:
``Error Code : NA`` or the chip's fault codes, one field a line; several codes on one line as in MindCluster
ascend-fd's fixture ``kg_parse/npu_info_after.txt``): the device log parser (every text ``diagnose`` reads) and the
collected-outputs reader (the ``commands`` sweep source) read the same codes from the same line and give the same
``dev:<CODE>`` signals, on the NPU npu-smi's ``-i`` names (opsbrain/ingest/smihealth.py).

Before (session 31), the two parsers were separate: ``80E01801 junk`` gave the sweep 80E01801 and ``diagnose``
nothing, ``0X80E01801`` the other way round, a key-less line after ``Error Code`` was read as more codes by the
sweep only; the sweep's reader gave no signal at all, and the log parser placed the codes on no device."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.ingest.commands import parse_command_outputs
from opsbrain.ingest.smihealth import error_code_line, error_codes
from opsbrain.ingest.text import ingest_text

HEALTH = ("npu-smi info -t health -i {dev} -c {chip}\n"
          "        Health Status                  : Alarm\n"
          "        Error Code                     : {codes}\n"
          "        Error Information              : NA\n")


@pytest.mark.parametrize(("value", "codes", "rejected"), [
    ("80E01801", ("80E01801",), ()),
    ("A4025021 8C03A000 8C084E00", ("A4025021", "8C03A000", "8C084E00"), ()),  # the fixture's layout
    ("0x80e01801,80FA4E00; 0X80E01801", ("80E01801", "80FA4E00"), ()),         # separators, prefix, once each
    ("NA", (), ()),
    ("00000000", (), ()),
    ("80E01801 junk", ("80E01801",), ("junk",)),
    ("507035", (), ("507035",)),
])
def test_the_value_is_read_token_by_token(value: str, codes: tuple[str, ...], rejected: tuple[str, ...]) -> None:
    got = error_codes(value)
    assert (got.codes, got.rejected) == (codes, rejected)


def test_only_the_fields_own_line_is_read() -> None:
    assert error_code_line("        Error Code                     : 80E01801") is not None
    assert error_code_line("                                       : 80E01801") is None  # key-less: not the field
    assert error_code_line("        Error Information              : 80E01801") is None


def _log(text: str) -> list[tuple[str, str | None, int | None, int]]:
    sigs, _stats = ingest_text(text)
    return [(s.kind, s.component, s.device, s.severity) for s in sigs if s.kind.startswith("dev:")]


def _swept(text: str) -> list[tuple[str, str | None, int | None, int]]:
    return [(s.kind, s.component, s.device, s.severity) for s in parse_command_outputs(text).signals
            if s.kind.startswith("dev:")]


@pytest.mark.parametrize(("codes", "want"), [
    ("80E01801 80FA4E00", ["dev:80E01801", "dev:80FA4E00"]),
    ("80E01801 junk", ["dev:80E01801"]),        # was: the sweep read it, diagnose did not
    ("0X80E01801", ["dev:80E01801"]),           # was: diagnose read it, the sweep noted it
    ("NA", []),
    ("00000000", []),
])
def test_diagnose_and_the_sweep_read_the_same_signals(codes: str, want: list[str]) -> None:
    text = HEALTH.format(dev=3, chip=1, codes=codes)
    log, swept = _log(text), _swept(text)
    assert log == swept
    assert [k for k, *_ in log] == want
    assert all(comp == "npu3" and dev == 3 and sev == 2 for _k, comp, dev, sev in log)  # -i 3, not -c 1
    assert parse_command_outputs(text).fault_codes == {3: [k[4:] for k in want]}


def test_a_keyless_line_after_error_code_is_no_code() -> None:
    text = HEALTH.format(dev=2, chip=0, codes="80E01801") + "                                       : 80FA4E00\n"
    text = text.replace("Error Information              : NA\n", "")
    c = parse_command_outputs(text, "w")
    assert c.fault_codes == {2: ["80E01801"]}  # was: 80E01801 and 80FA4E00
    assert [(s.kind, s.component) for s in c.signals] == [("dev:80E01801", "w/npu2")]
    assert [k for k, *_ in _log(text)] == ["dev:80E01801"]


def test_the_sweeps_signals_are_diagnoses_on_a_collected_directory(tmp_path: Path) -> None:
    (tmp_path / "logs" / "w").mkdir(parents=True)
    (tmp_path / "logs" / "w" / "health.txt").write_text(HEALTH.format(dev=3, chip=0, codes="80E01801"))
    from opsbrain.sources.commands import CommandDirSource

    src = CommandDirSource(tmp_path / "logs")
    src.collect()
    assert [(s.kind, s.component, s.device, s.file) for s in src.signals] == [
        ("dev:80E01801", "w/npu3", 3, "w/health.txt")]
    res = CliRunner().invoke(cli, ["diagnose", "--logs", str(tmp_path / "logs"), "--json"],
                             env={"OPSBRAIN_HOME": str(tmp_path / "home")})
    d = json.loads(res.stdout)["diagnosis"]
    assert d["fault_class"] == "hbm_uce" and d["component"] == "w/npu3/hbm", d  # the NPU of -i 3
    assert d["evidence"][0].endswith("on w/npu3")
