"""MindIE's daemon kills its own process group when it gives up starting (session 48, the lead;
:data:`opsbrain.ingest.parsers.sigkill.RE_SELF_KILL`): the shell's ``Killed`` after ``Failed to init endpoint!`` is
that kill, not a kill from outside, and gives no ``os:sigkill`` (which leans to npu_oom) under ``--logs``, ``--bundle``
or in the fallback's text. Any other ``Killed`` is read as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.parsers.sigkill import KilledTracebackScan, killed_tracebacks_in
from opsbrain.ingest.text import ingest_text

ENDED = """\
root@localhost:/usr/local/Ascend/mindie/latest/mindie-service# ./bin/mindieservice_daemon
Check path: config.json failed, by: Check Other group permission failed: Current permission is 4, but required no \
greater than 0.
Failed check model config.json! take modelConfig.modelWeightPath to empty
ERR: Failed to init endpoint! Please check the service log or console output.
Killed
"""
"""blind47's b47l-01 (hiascend forum thread-02104167047335054008: config.json's permission; chmod 640 fixed it)."""
MODELS = """\
LLMInferEngine failed to init LLMInferModels
ERR: Failed to init endpoint! Please check the service log or console output.
Killed
"""
"""A MindIE 2.0.T3.1 start as a public notes page pastes it (its cause was the rank table variable)."""
KILLED = "Killed\n"


def _kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text)[0]]


def test_the_shell_kill_after_the_daemon_gives_up_gives_no_signal() -> None:
    assert "os:sigkill" not in _kinds(ENDED) and "os:sigkill" not in _kinds(MODELS)
    assert "cfg:env" in _kinds(ENDED)
    assert _kinds(KILLED) == ["os:sigkill"]  # the control: a bare Killed alone is read
    assert "os:sigkill" in _kinds(KILLED + MODELS)  # a Killed before the announcement is another kill


def test_the_scan_takes_only_a_killed_near_the_announcement() -> None:
    head = MODELS.splitlines()[1]
    assert killed_tracebacks_in([head, "Killed"]) == {2}
    assert killed_tracebacks_in([head] + ["x"] * 25 + ["Killed"]) == set()  # too far: another kill
    assert killed_tracebacks_in([head, "Killed", "Killed"]) == {2}  # one announcement, one kill
    scan = KilledTracebackScan()
    assert list(scan.step(1, head)) == [] and list(scan.step(2, "[1]+  Killed    ./bin/mindieservice_daemon")) == [2]


def test_the_daemon_start_failure_does_not_lean_to_memory(tmp_path: Path, engine: Any) -> None:
    (tmp_path / "ended.log").write_text(ENDED)
    d = diagnose_logs(str(tmp_path / "ended.log"), engine)["diagnosis"]
    assert d["fault_class"] == "config_error"
    assert not any("os:sigkill" in e for e in d["evidence"])
    assert all(e["text"] != "Killed" for e in d.get("evidence_lines", []))


@pytest.mark.parametrize("packed", [False, True])
def test_a_bundle_reads_the_self_kill_as_logs_does(tmp_path: Path, engine: Any, packed: bool) -> None:
    from opsbrain.bundle.layout import BundleParams

    log = tmp_path / "worker-0" / "mindie.log"
    log.parent.mkdir(parents=True)
    log.write_text(ENDED)
    params = BundleParams(hold_text_bytes=0) if packed else None
    rep = diagnose_bundle(tmp_path, engine, params=params)
    assert "os:sigkill" not in {k for inc in rep["incidents"] for k in inc["kinds"]}
    assert rep["diagnosis"]["fault_class"] == diagnose_logs(str(tmp_path), engine)["diagnosis"]["fault_class"] \
        == "config_error"
