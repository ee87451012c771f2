"""Session 36 (review36's finding): ``--data-dir`` holds every store and cache a command writes. Before, the compiled
knowledge base, the line screen's plans and the text model's raw copy went under ``~/.local/share/opsbrain`` (or
``$OPSBRAIN_HOME``) whatever ``--data-dir`` said."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

EXCERPT = "\n".join([  # a runtime init failure: the engine reads it weakly, so the text fallback is consulted too
    "[ERROR] RUNTIME(78,python):2024-03-11-02:22:34.958.800 [npu_driver.cc:2012]78 DeviceOpen:[drv api] "
    "drvDeviceOpen failed: deviceId=0, drvRetCode=4!",
    "[ERROR] RUNTIME(78,python):2024-03-11-02:22:34.958.814 [device.cc:227]78 Init:Failed to open device, "
    "retCode=0x7020014, deviceId=0.",
]) + "\n"


def test_a_diagnosis_writes_its_caches_only_under_the_data_dir_given(tmp_path: Path) -> None:
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("OPSBRAIN_HOME", "XDG_DATA_HOME")} | {"HOME": str(home)}
    r = subprocess.run([sys.executable, "-m", "opsbrain", "diagnose", "--logs", "-", "--data-dir", str(data)],
                       input=EXCERPT, capture_output=True, text=True, env=env, timeout=120, check=False)
    assert r.returncode in (0, 1), r.stderr
    assert [p for p in home.rglob("*") if p.is_file()] == []
    written = {p.name for p in (data / "cache").iterdir()}
    assert "kb-compiled.json" in written and any(n.startswith("screen-") for n in written), written


def test_the_data_dir_given_holds_for_the_command_only(tmp_path: Path) -> None:
    from opsbrain.cli import cli
    from opsbrain.store import default_home

    before = default_home()
    res = CliRunner().invoke(cli, ["runs", "list", "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert default_home() == before
