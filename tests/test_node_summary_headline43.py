"""An exporter page whose only finding is its node health summary says it in the headline (session 43, diag43b).

Session 42 (metrics42) read npu-exporter's ``machine_unhealthy_npu_nums`` / ``machine_unknown_npu_nums`` into the page's
note only: ``diagnose --logs PAGE`` printed "diagnosis: no fault found" and ``--exit-code`` exited 0, as for a clean
page, while an npu-smi UNKNOWN row (``smi:unknown``, a symptom no class explains) exits 1 under ``--exit-code``. The
page is tests/test_exporter_health42.py's (the metrics reference's example summary lines, 8 chips)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from opsbrain.cli import cli
from tests.test_bundle_paths42 import TABLE
from tests.test_exporter_health42 import page

MS = 1723621883587


def _run(path: Path, *flags: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, ["diagnose", *flags, "--logs", str(path)])
    return res.exit_code, res.output


def test_the_headline_says_the_unhealthy_npus_of_the_node_summary(tmp_path: Path) -> None:
    f = tmp_path / "node.prom"
    f.write_text(page(MS, unhealthy=2, unknown=1))
    code, out = _run(f)
    head = out.splitlines()[0]
    assert code == 0 and "no fault found" not in head, out
    assert head == ("diagnosis: 2 NPUs unhealthy by the node summary of its node (machine_unhealthy_npu_nums; no "
                    "per-device series explains them); 1 NPU whose health the exporter of its node could not read "
                    "(machine_unknown_npu_nums); no fault class"), head
    code, out = _run(f, "--json")
    d = json.loads(out)["diagnosis"]
    assert d["fault_class"] == "unknown" and len(d["symptoms"]) == 2 and d["evidence"][0].startswith("no fault class")


def test_exit_code_as_for_any_symptom_without_a_class(tmp_path: Path) -> None:
    f = tmp_path / "node.prom"
    smi = tmp_path / "smi.txt"
    smi.write_text(TABLE)  # npu-smi's UNKNOWN row: smi:unknown, a symptom no class explains
    for unhealthy, unknown in ((1, 0), (0, 1)):
        f.write_text(page(MS, unhealthy=unhealthy, unknown=unknown))
        assert _run(f, "--exit-code")[0] == _run(smi, "--exit-code")[0] == 1
        assert _run(f)[0] == _run(smi)[0] == 0
    f.write_text(page(MS, unhealthy=0, unknown=0))  # a clean page: still nothing found, exit 0 with --exit-code
    code, out = _run(f, "--exit-code")
    assert code == 0 and out.startswith("diagnosis: no fault found"), out
