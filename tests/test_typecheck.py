"""The code type-checks: ``mypy opsbrain faultlib`` (settings in pyproject.toml) reports no error.

mypy is a dev dependency, so CI runs this with the suite; the first run in a fresh clone checks every module
(about 35 s of CPU), later runs read ``.mypy_cache`` and take about a second.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_reports_no_error() -> None:
    proc = subprocess.run([sys.executable, "-m", "mypy", "opsbrain", "faultlib"], cwd=ROOT, capture_output=True,
                          text=True, timeout=900, check=False)
    assert proc.returncode == 0, f"mypy found errors:\n{proc.stdout[-6000:]}{proc.stderr[-2000:]}"
