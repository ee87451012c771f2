"""Hold an operator's stop (Ctrl-C, SIGTERM) while a finished result is scored and written, then honour it.

A chaos run's simulation is the part worth stopping; once it has ended (or was stopped), the seconds spent scoring
it and writing the journal to the run store and ``--out`` are what make it worth anything. A SIGINT or SIGTERM in
those seconds used to raise KeyboardInterrupt there: the complete journal was dropped and the run stored as
``interrupted`` without one (session 43). :class:`StopHold` notes such a signal instead, and the caller hands it on
(:meth:`StopHold.redeliver`: the handler that was installed runs as if the signal came then) once the write is done.

Main thread only (Python runs signal handlers there); elsewhere, and for a signal set to be ignored, it does
nothing.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)


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


class StopHold:
    """``start()`` begins noting SIGINT/SIGTERM instead of letting them act; ``release()`` restores the handlers
    and returns the first signal noted (``None``: none came); ``redeliver(sig)`` runs the restored handler."""

    def __init__(self) -> None:
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
def held() -> Iterator[StopHold]:
    """Hold SIGINT/SIGTERM for the block; a signal noted is redelivered when the block ends without an error."""
    hold = StopHold()
    hold.start()
    try:
        yield hold
    finally:
        noted = hold.release()
    hold.redeliver(noted)
