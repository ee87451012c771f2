"""The README's exit-code list says what a stop by SIGTERM returns (session 35): 143 for a command stopped by it,
130 for ``chaos campaign`` (as Ctrl-C; tests/test_hardening_sigterm.py checks both), 0 for the services ``sweep run``
and ``watch`` (checked here for ``sweep run``)."""

from __future__ import annotations

import os
import re
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.service import scheduler

README = Path(__file__).resolve().parents[1] / "README.md"


def exit_paragraph() -> str:
    text = " ".join(README.read_text(encoding="utf-8").split())
    m = re.search(r"Exit codes: 0 ok.*?traceback instead\.", text)
    assert m, "the README's exit-code paragraph"
    return m.group(0)


def test_the_readme_says_what_sigterm_returns() -> None:
    para = exit_paragraph()
    assert "143 SIGTERM" in para
    assert re.search(r"`chaos campaign`, which exits 130 on SIGTERM", para)
    assert re.search(r"`sweep run` and `watch`, which once running stop cleanly on SIGINT or SIGTERM and exit 0", para)


def test_sweep_run_exits_0_on_sigterm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = scheduler.run_service

    def signalled(*a: Any, on_start: Callable[[Any], None] | None = None, **k: Any) -> dict[str, Any]:
        def started(svc: Any) -> None:  # once the service is up (a SIGTERM during start-up is any command's: 143)
            if on_start is not None:
                on_start(svc)
            threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM)).start()

        return real(*a, on_start=started, **k)

    monkeypatch.setattr(scheduler, "run_service", signalled)
    res = CliRunner().invoke(cli, ["sweep", "run", "--scenario", "noise-only-day", "--interval", "1s",
                                   "--max-runtime", "60", "--json"], env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 0, res.output[-500:]
    assert '"stopped_by": "SIGTERM"' in res.output, res.output[-500:]
