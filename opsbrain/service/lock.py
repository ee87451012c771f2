"""One sweeper per schedule and data directory: an exclusive ``flock`` on ``<data dir>/locks/<schedule>.lock``, held
while ``opsbrain sweep run`` runs and while ``opsbrain sweep once`` of a real source sweeps (both write the
schedule's kept history, :mod:`opsbrain.sources.keep`; two at once both wrote its one schedule row and history).

The kernel drops the lock when the process ends, however it ends, so a killed sweeper leaves no stale lock; the
file keeps the holder's pid and command for the refusal's message. A ``sweep once`` holds the lock for one sweep
only, so a sweeper that finds it held by one waits for it (at most :data:`ONCE_WAIT_S`); one held by ``sweep run``
(for as long as the service runs) is refused at once: one line, exit 2.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import time
from pathlib import Path
from types import TracebackType

from opsbrain.errors import InputError

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
ONCE = "sweep once"
RUN = "sweep run"
ONCE_WAIT_S = 60.0  # reason: a once-sweep's collection has a 30 s page deadline; two of them fit, a service never ends
_POLL_S = 0.05


def schedule_id_of(name: str) -> str:
    """The schedule id of a pod or cluster name (``sweep run`` and ``sweep once`` share it: its lock and history)."""
    return f"sweep-{name}"


def lock_path(home: Path, schedule: str) -> Path:
    """The lock file of a schedule (its id made a safe file name, with a hash so two ids never share one)."""
    digest = hashlib.sha1(schedule.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return Path(home) / "locks" / f"{_UNSAFE.sub('_', schedule)[:80]}-{digest}.lock"


class ScheduleLock:
    """``with ScheduleLock(home, schedule_id):`` or :meth:`acquire` / :meth:`release`; ``command`` (``sweep run``,
    ``sweep once``) is written beside the pid. InputError (exit 2) when another process holds it (after waiting up
    to ``wait_s``, default :data:`ONCE_WAIT_S`, while that holder is a ``sweep once``)."""

    def __init__(self, home: Path, schedule: str, command: str = RUN, wait_s: float | None = None) -> None:
        self.path = lock_path(home, schedule)
        self.schedule_id = schedule
        self.command = command
        self.wait_s = wait_s
        self.fd: int | None = None

    def acquire(self) -> ScheduleLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise InputError(f"cannot create the schedule lock: {exc.strerror or exc}", file=str(self.path)) from None
        deadline = time.monotonic() + (ONCE_WAIT_S if self.wait_s is None else self.wait_s)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                holder = os.pread(fd, 64, 0).decode("ascii", "replace").split()
                pid, command = (holder[0], " ".join(holder[1:]) or RUN) if holder else ("?", "")
                if command != RUN and time.monotonic() < deadline:  # a one-off sweep (or not yet written): wait
                    time.sleep(_POLL_S)
                    continue
                os.close(fd)
                raise InputError(f"schedule {self.schedule_id!r} is already running from this data directory "
                                 f"({command or 'a sweep'}, pid {pid}, lock {self.path}): stop it first, or give "
                                 "another --name or --data-dir", path=self.command) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {self.command}\n".encode(), 0)
        self.fd = fd
        return self

    def release(self) -> None:
        if self.fd is not None:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> ScheduleLock:
        return self.acquire()

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self.release()
