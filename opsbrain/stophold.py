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


@contextmanager
def _blocked() -> Iterator[None]:
    """SIGINT and SIGTERM wait in the kernel while the handlers are swapped (where the platform can block them), so
    none acts between the swap of one and of the other: such a signal used to leave the other's handler the hold's
    (review43c). A signal Python had already caught runs its handler as the block begins, one that comes meanwhile
    runs the new handler as it ends."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


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
        self._saved: dict[int, Any] = {}

    def start(self) -> None:
        if self._saved or threading.current_thread() is not threading.main_thread():
            return
        with _blocked():
            for sig in SIGNALS:
                old = signal.getsignal(sig)
                if old is not signal.SIG_IGN:
                    self._saved[sig] = old
                    signal.signal(sig, self._note)

    def _note(self, signum: int, _frame: Any) -> None:
        if self.noted is None:
            self.noted = signum
            if self.what:
                _tell(f"opsbrain: stopping once {self.what} is stored ({AGAIN.get(signum, 'a second stop')} "
                      "abandons it)")
            return
        _tell(f"opsbrain: stopped again: {self.what or 'the run'} was not stored")
        os._exit(128 + signum)  # at once: unwinding could wait on the very write that hangs

    def release(self) -> int | None:
        with _blocked():
            for sig, old in self._saved.items():
                signal.signal(sig, old)
            self._saved = {}
            noted, self.noted = self.noted, None
        return noted

    @staticmethod
    def redeliver(signum: int | None) -> None:
        """Act on a noted signal as its handler would have: Python's SIGINT handler (and the CLI's SIGTERM one)
        raise KeyboardInterrupt; a default action (SIGTERM outside the CLI) ends the process. A handler installed
        outside Python (``getsignal`` gives None) cannot be called from here: the signal then takes its default
        action (SIGINT: KeyboardInterrupt, Python's default), never dropped (review43c)."""
        if signum is None:
            return
        handler = signal.getsignal(signum)
        if callable(handler):
            handler(signum, None)
        elif handler is None and signum == signal.SIGINT:
            raise KeyboardInterrupt
        elif handler != signal.SIG_IGN:
            if handler is None:
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
