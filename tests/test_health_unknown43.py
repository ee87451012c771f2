"""npu-smi's UNKNOWN health, one state rated alike by every reader (session 43, diag43b).

The npu-smi reference (the chip health queries, npusmi_027 / npusmi_028:
https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2520/re/npu/npusmi_028.html) lists five Health values:
OK, Warning, Alarm, Critical and UNKNOWN, "the device does not exist or has not started". Before, the sweep read
UNKNOWN as Alarm (``HEALTH_RANK["unknown"] = 2``; its finding said "the device reports its health Alarm") while the log
parser read the same table row as ``smi:unknown`` at warning level. Now UNKNOWN is its own state (``Unknown``), rated
Warning by both (opsbrain/ingest/healthstates.py says why). The tables below are the reference's layout (npusmi_007,
the table of tests/test_bundle_paths42.py); the values are ours."""

from __future__ import annotations

from opsbrain.ingest.commands import parse_command_outputs
from opsbrain.ingest.healthstates import HEALTH_STATES, SWEEP_SEVERITY, UNKNOWN, code_of, worse
from opsbrain.ingest.text import ingest_text
from opsbrain.sources.commands import readings_of
from opsbrain.sources.portreadings import shown_unhealthy
from opsbrain.sources.readings import Readings
from tests.test_bundle_paths42 import TABLE
from tests.test_commands_fault_codes import CHIP
from tests.test_exporter_series import NOW, by, sweep

SEVERITY_LEVEL = {"OK": 0, "Warning": 1, "Alarm": 2, "Critical": 2}
"""A sweep severity -> the ingestion signal level it matches (0 info, 1 warning, 2 error)."""


def test_an_unknown_npu_is_its_own_state_rated_warning_by_the_sweep() -> None:
    r = readings_of([parse_command_outputs("npu-smi info\n" + TABLE, "w")], NOW)
    assert r.npu_health == {"w/npu0": 0, "w/npu1": UNKNOWN}
    f = by(sweep(r), "npu_health")["w/npu1"]
    assert f.severity == "Warning" and f.data["health"] == "Unknown"
    assert "Alarm" not in f.evidence and "does not exist or has not started" in f.evidence
    assert "npu-smi info -l" in f.suggested_action


def test_the_sweep_and_the_log_parser_rate_the_same_row_alike() -> None:
    sig = next(s for s in ingest_text(TABLE)[0] if s.kind == "smi:unknown")
    r = readings_of([parse_command_outputs("npu-smi info\n" + TABLE, "w")], NOW)
    f = by(sweep(r), "npu_health")["w/npu1"]
    assert SEVERITY_LEVEL[f.severity] == sig.severity == 1


def test_a_chip_that_reports_an_alarm_outranks_one_that_did_not_answer() -> None:
    def health(*states: str) -> int:
        text = "".join(CHIP.format(dev=2, health=s, codes="NA", info="NA").replace("-c 0", f"-c {k}")
                       for k, s in enumerate(states))
        return readings_of([parse_command_outputs(text, "w")], NOW).npu_health["w/npu2"]

    assert HEALTH_STATES[health("UNKNOWN", "Alarm")] == "Alarm"
    assert HEALTH_STATES[health("Alarm", "UNKNOWN")] == "Alarm"
    assert HEALTH_STATES[health("Warning", "UNKNOWN")] == "Unknown"
    assert HEALTH_STATES[health("UNKNOWN", "OK")] == "Unknown"
    assert worse(code_of("Critical"), UNKNOWN) == code_of("Critical")


def test_an_unknown_npu_is_not_one_its_node_counts_unhealthy() -> None:
    r = Readings(NOW)  # the node's machine_unhealthy_npu_nums is explained by NPUs at Alarm or worse, not Unknown
    r.npu_health = {"n1/npu0": UNKNOWN, "n1/npu1": code_of("Alarm") or 0}
    assert shown_unhealthy(r) == {"n1": 1}
    assert SWEEP_SEVERITY[UNKNOWN] == "Warning"
