"""Session 46, review46c (a third read of the last merges): hccn_tool's ping output ends at its summary line
(``N packets transmitted, M received, X% packet loss``, nothing after it), so the device its header
``device N PING <ip>`` names (polish46) is not given to the unrelated lines that follow the summary."""

from __future__ import annotations

from pathlib import Path

from opsbrain.ingest.text import ingest_text

HEAD = "device 3 PING 11.12.165.80\n"
LOST = "3 packets transmitted, 0 received, 100.00% packet loss\n"
RUNTIME = ("[ERROR] RUNTIME(1234,python):2025-01-01-00:00:00.000.000 [device_error_proc.cc:100]Device fault, "
           "code 507010\n")


def _devices(text: str) -> dict[str, int | None]:
    return {s.kind: s.device for s in ingest_text(text)[0]}


def test_the_ping_headers_device_ends_with_its_summary() -> None:
    got = _devices(HEAD + LOST + RUNTIME)
    assert got["hccn:net_health_fail"] == 3  # the summary is still the pinging device's
    assert got["rt:507010"] is None  # a runtime line after the ping's output names no device of the ping's


def test_a_command_lines_ping_ends_with_its_summary_too() -> None:
    got = _devices("hccn_tool -i 2 -ping -g address 10.0.0.21\n" + LOST + RUNTIME)
    assert got["hccn:net_health_fail"] == 2 and got["rt:507010"] is None


def test_the_replies_before_the_summary_keep_the_device() -> None:
    got = _devices(HEAD + "recv seq=0,time=0.114000ms\n" + RUNTIME + LOST)
    assert got["rt:507010"] == 3 and got["hccn:net_health_fail"] == 3  # inside the output: as before


def test_eval_refuses_a_text_model_with_the_text_fallback_off(tmp_path: Path) -> None:
    """``kb eval --real F --no-text-fallback --text-model M`` read nothing with M and said nothing of it."""
    import json

    from click.testing import CliRunner

    from opsbrain.cli import cli
    from tests.test_textextra import EXTRA, _write

    faults = _write(tmp_path / "f.yaml", EXTRA[:1])
    m = tmp_path / "m.json"
    m.write_text(json.dumps({"format": 1, "classes": ["config_error", "framework_error"], "intercept": [0.0, 0.0],
                             "vocab": [["zqwidget", 1.0, [5.0, -5.0]]], "meta": {}}), encoding="utf-8")
    res = CliRunner().invoke(cli, ["kb", "eval", "--real", str(faults), "--no-text-fallback",
                                   "--text-model", str(m), "--data-dir", str(tmp_path / "d")])
    assert res.exit_code == 2, res.output
    assert "--text-model" in res.output and "--no-text-fallback" in res.output
    assert len(res.output.strip().splitlines()) == 1
