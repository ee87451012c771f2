"""One running service per schedule and data directory: an exclusive ``flock`` on ``<data dir>/locks/<schedule>.lock``
held while ``opsbrain sweep run`` runs (two runs of ``--name lab`` both wrote its one schedule row and history).

The kernel drops the lock when the process ends, however it ends, so a killed service leaves no stale lock; the
file keeps the holder's pid for the refusal's message.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
from pathlib import Path
from types import TracebackType

from opsbrain.errors import InputError

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def lock_path(home: Path, schedule_id: str) -> Path:
    """The lock file of a schedule (its id made a safe file name, with a hash so two ids never share one)."""
    digest = hashlib.sha1(schedule_id.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return Path(home) / "locks" / f"{_UNSAFE.sub('_', schedule_id)[:80]}-{digest}.lock"


class ScheduleLock:
    """``with ScheduleLock(home, schedule_id):`` or :meth:`acquire` / :meth:`release`; InputError (exit 2) when another
    process holds it."""

    def __init__(self, home: Path, schedule_id: str) -> None:
        self.path = lock_path(home, schedule_id)
        self.schedule_id = schedule_id
        self.fd: int | None = None

    def acquire(self) -> ScheduleLock:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise InputError(f"cannot create the schedule lock: {exc.strerror or exc}", file=str(self.path)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise InputError(f"schedule {self.schedule_id!r} is already running from this data directory (pid "
                             f"{holder}, lock {self.path}): stop it first, or give another --name or --data-dir",
                             path="sweep run") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
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
