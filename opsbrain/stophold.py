"""Hold an operator's stop (Ctrl-C, SIGTERM) while a finished result is scored and written, then honour it.

A chaos run's simulation is the part worth stopping; once it has ended (or was stopped), the seconds spent scoring
it and writing the journal to the run store and ``--out`` are what make it worth anything. A SIGINT or SIGTERM in
those seconds used to raise KeyboardInterrupt there: the complete journal was dropped and the run stored as
``interrupted`` without one (session 43). :class:`StopHold` notes such a signal instead, and the caller hands it on
(:meth:`StopHold.redeliver`: the handler that was installed runs as if the signal came then) once the write is done.
A second stop while one is held abandons the write: the process exits at once, 128 + the signal's number (a write
that hangs, on a dead network mount, no longer takes SIGKILL to end; polish43).

Main thread only (Python runs signal handlers there); elsewhere, and for a signal set to be ignored, it does
nothing.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)
AGAIN: dict[int, str] = {signal.SIGINT: "Ctrl-C again", signal.SIGTERM: "a second SIGTERM"}


def _tell(line: str) -> None:
    """One line on stderr from a signal handler (through ``sys.stderr``, so that a progress display keeps it above
    itself; straight to the file descriptor when that stream is busy or gone)."""
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (RuntimeError, OSError, ValueError, AttributeError):  # a reentrant write, a closed stream
        with suppress(OSError):
            os.write(2, (line + "\n").encode())


class StopHold:
    """``start()`` begins noting SIGINT/SIGTERM instead of letting them act; ``release()`` restores the handlers
    and returns the first signal noted (``None``: none came); ``redeliver(sig)`` runs the restored handler.

    A second signal while held ends the process at once (exit 128 + its number). ``what`` (say ``"the run's
    journal"``) is what the hold waits to store: the first stop then says so and that a second one abandons it, the
    second that it was not stored. Without it the first stop is noted silently (a run scored for a caller that
    stores it under a hold of its own, or a campaign's pool worker)."""

    def __init__(self, what: str | None = None) -> None:
        self.what = what
        self.noted: int | None = None
        self.holding = False
        self._saved: dict[int, Any] = {}  # the handlers the hold replaced, to restore
        self._theirs: dict[int, Any] = {}  # the same, kept for :meth:`_note` to act as them when not holding

    def start(self) -> None:
        """Install the hold's handler for both signals, then hold. Until the hold begins, its handler acts as the
        one it replaced: a signal between the two swaps acts as it would have (review43c: it could leave the
        other signal held for good, with nothing to release it)."""
        if self._saved or threading.current_thread() is not threading.main_thread():
            return
        for sig in SIGNALS:
            old = signal.getsignal(sig)
            old = self._theirs.get(sig, old) if old == self._note else old  # still ours from a cut release
            if old is not signal.SIG_IGN:
                self._saved[sig] = self._theirs[sig] = old
        for held_sig in self._saved:
            signal.signal(held_sig, self._note)
        self.holding = True

    def _note(self, signum: int, frame: Any) -> None:
        if not self.holding:  # the handlers are being swapped: act as the one this replaced (or replaces again)
            _act(signum, self._theirs.get(signum, signal.SIG_DFL), frame)
            return
        if self.noted is None:
            self.noted = signum
            if self.what:
                _tell(f"opsbrain: stopping once {self.what} is stored ({AGAIN.get(signum, 'a second stop')} "
                      "abandons it)")
            return
        _tell(f"opsbrain: stopped again: {self.what or 'the run'} was not stored")
        os._exit(128 + signum)  # at once: unwinding could wait on the very write that hangs

    def release(self) -> int | None:
        """Stop holding, then put the handlers back: a signal while they are put back acts as its own handler,
        whichever of the two is installed, and none is left held."""
        self.holding = False
        saved, self._saved = self._saved, {}
        for sig, old in saved.items():
            signal.signal(sig, old)
        noted, self.noted = self.noted, None
        return noted

    @staticmethod
    def redeliver(signum: int | None) -> None:
        """Act on a noted signal as its handler would have: Python's SIGINT handler (and the CLI's SIGTERM one)
        raise KeyboardInterrupt; a default action (SIGTERM outside the CLI) ends the process. A handler installed
        outside Python (``getsignal`` gives None) cannot be called from here: the signal then takes its default
        action (SIGINT: KeyboardInterrupt, Python's default), never dropped (review43c)."""
        if signum is not None:
            _act(signum, signal.getsignal(signum), None)


def _act(signum: int, handler: Any, frame: Any) -> None:
    """Do what ``handler`` (``signal.getsignal``'s answer) does on ``signum``."""
    if callable(handler):
        handler(signum, frame)
    elif handler is None and signum == signal.SIGINT:
        raise KeyboardInterrupt
    elif handler != signal.SIG_IGN:  # the default action (a handler Python cannot call: the default too)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)


@contextmanager
def held(what: str | None = None) -> Iterator[StopHold]:
    """Hold SIGINT/SIGTERM for the block; a signal noted is redelivered when the block ends without an error."""
    hold = StopHold(what)
    hold.start()
    try:
        yield hold
    finally:
        noted = hold.release()
    hold.redeliver(noted)
