"""Polish43: the stop hold (:mod:`opsbrain.stophold`) in the three places review43c left.

- A signal between the hold's two handler swaps (SIGINT, then SIGTERM) left the other signal's handler the hold's.
- A second stop while a stop is held was only noted: a store write that hangs could be stopped only by SIGKILL. It
  now abandons the write at once (one line on stderr, exit 130 / 143), and the first stop says so.
- ``redeliver`` dropped a stop whose restored handler was installed outside Python (``getsignal`` gives None).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from opsbrain.stophold import StopHold

REPO = Path(__file__).resolve().parents[1]
SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _handlers() -> dict[int, Any]:
    return {s: signal.getsignal(s) for s in SIGNALS}


@pytest.fixture
def another_thread() -> Iterator[None]:
    """A second thread, as a real run has (numpy's): the kernel may hand it a signal the main thread blocks."""
    done = threading.Event()
    t = threading.Thread(target=done.wait)
    t.start()
    yield
    done.set()
    t.join()


@pytest.fixture
def handlers_back() -> Iterator[dict[int, Any]]:
    before = _handlers()
    yield before
    for sig, handler in before.items():
        signal.signal(sig, handler)


def _signal_after_swap(monkeypatch: pytest.MonkeyPatch, swapped: int, handler: Any, sig: int) -> None:
    """Send ``sig`` right after ``signal.signal(swapped, handler)``, before the hold swaps the other signal."""
    real = signal.signal

    def then_a_signal(s: int, h: Any) -> Any:
        out = real(s, h)
        if s == swapped and h == handler:
            os.kill(os.getpid(), sig)
            time.sleep(0.05)  # (a handler that can run, runs here)
        return out

    monkeypatch.setattr(signal, "signal", then_a_signal)


@pytest.mark.usefixtures("another_thread")
def test_a_ctrl_c_while_the_hold_is_released_leaves_sigterm_acting(monkeypatch: pytest.MonkeyPatch,
                                                                   handlers_back: dict[int, Any]) -> None:
    """A Ctrl-C right after ``release`` has given SIGINT its handler back, before SIGTERM's: it acts (here a
    KeyboardInterrupt), and a SIGTERM after it acts too instead of being held with nothing to release it."""
    terms: list[int] = []
    signal.signal(signal.SIGTERM, lambda s, _f: terms.append(s))
    hold = StopHold()
    hold.start()
    _signal_after_swap(monkeypatch, signal.SIGINT, handlers_back[signal.SIGINT], signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        hold.release()
    monkeypatch.undo()
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.05)
    assert terms == [signal.SIGTERM]


@pytest.mark.usefixtures("another_thread")
def test_a_sigterm_while_the_hold_starts_leaves_ctrl_c_acting(monkeypatch: pytest.MonkeyPatch,
                                                               handlers_back: dict[int, Any]) -> None:
    """A SIGTERM (the CLI's handler: KeyboardInterrupt) right after ``start`` has held SIGINT, before SIGTERM: it
    acts, and a Ctrl-C after it acts too."""
    def cli_sigterm(_s: int, _f: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, cli_sigterm)
    hold = StopHold()
    _signal_after_swap(monkeypatch, signal.SIGINT, hold._note, signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        hold.start()
    monkeypatch.undo()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
    assert hold.release() is None


def test_redeliver_a_ctrl_c_whose_handler_python_does_not_know(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(signal, "getsignal", lambda _sig: None)  # a handler installed outside Python
    with pytest.raises(KeyboardInterrupt):
        StopHold.redeliver(signal.SIGINT)


def _child(code: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120,
                          cwd=REPO)


def test_redeliver_a_sigterm_whose_handler_python_does_not_know() -> None:
    res = _child("import signal\n"
                 "from opsbrain.stophold import StopHold\n"
                 "signal.getsignal = lambda _sig: None\n"
                 "StopHold.redeliver(signal.SIGTERM)\n"
                 "print('still running')\n")
    assert res.returncode == -signal.SIGTERM and "still running" not in res.stdout, (res.returncode, res.stdout)


HANG = """
import os, signal, sys, time
import opsbrain.store as store_mod

def hangs(self, *a, **k):  # the run store's write hangs (a dead NFS mount): only a stop can end it
    os.kill(os.getpid(), signal.{first})
    time.sleep(0.2)
    os.kill(os.getpid(), signal.{second})
    time.sleep(60)
    raise SystemExit("the write came back")

store_mod.RunStore.finish = hangs
from opsbrain.cli import main
main(["chaos", "run", "hbm-uce-training", "--json"])
"""


@pytest.mark.parametrize(("first", "second", "code"), [("SIGINT", "SIGINT", 130), ("SIGTERM", "SIGTERM", 143),
                                                       ("SIGINT", "SIGTERM", 143)])
def test_a_second_stop_abandons_a_store_write_that_hangs(tmp_path: Path, first: str, second: str,
                                                          code: int) -> None:
    env = {"OPSBRAIN_HOME": str(tmp_path)}
    t0 = time.monotonic()
    res = subprocess.run([sys.executable, "-c", HANG.format(first=first, second=second)], capture_output=True,
                         text=True, env=os.environ | env | {"PYTHONPATH": str(REPO)}, timeout=120, cwd=REPO)
    elapsed = time.monotonic() - t0
    assert res.returncode == code, (res.returncode, res.stderr)
    assert elapsed < 45, elapsed  # not after the write's 60 s
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("opsbrain:")]
    again = "Ctrl-C" if first == "SIGINT" else "SIGTERM"
    assert len(lines) == 2, res.stderr
    assert "journal" in lines[0] and again in lines[0] and "abandon" in lines[0], lines
    assert "journal was not stored" in lines[1], lines
    assert res.stdout == ""  # no journal printed
    from opsbrain.store import RunStore

    store = RunStore(tmp_path)  # opened again: the run of the process that is gone is marked interrupted
    assert [r["status"] for r in store.list_runs()] == ["interrupted"]
