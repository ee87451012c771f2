"""Initializer for every process-pool worker opsbrain starts (case runs, campaigns, validation grids)."""

from __future__ import annotations

import os
import signal
import sys


def init_worker(parent_pid: int | None = None) -> None:
    """A worker never outlives the command that started it: on Linux the kernel SIGKILLs it when its parent dies
    (``PR_SET_PDEATHSIG``, so a ``kill -9`` of ``kb train`` or a campaign leaves no orphans), and SIGTERM kills it
    (the default action, not the CLI's SIGTERM-as-Ctrl-C handler the worker inherited from its parent).

    ``parent_pid`` (the pool owner's ``os.getpid()``, passed as ``initargs``) closes the race where the parent dies
    between the fork and this call: the kernel then never sends the signal, so the worker checks and exits."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if parent_pid is not None and os.getppid() != parent_pid:  # the parent died before the prctl took hold
        os._exit(1)
