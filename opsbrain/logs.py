"""Logging for opsbrain: the ``opsbrain`` logger tree on stderr, as text or as JSON lines.

Levels: WARNING by default; ``OPSBRAIN_LOG_LEVEL`` (a level name: DEBUG, INFO, WARNING, ERROR, CRITICAL) sets
another; on the command line ``-v`` lowers the level one step (INFO), ``-vv`` two (DEBUG), ``-q`` raises it
(ERROR), ``-qq`` to CRITICAL -- the options win over the variable. Long-running services (``opsbrain sweep run``)
log JSON lines, one object per record (``ts``, ``level``, ``logger``, ``msg`` and the record's ``extra`` fields),
at INFO unless a level was chosen, so a log shipper can take them as they are.

Library modules only call ``logging.getLogger(__name__)``; this module (called by the CLI) configures.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

from opsbrain.errors import InputError

LEVEL_ENV = "OPSBRAIN_LOG_LEVEL"
DEFAULT_LEVEL = logging.WARNING
STEPS = (logging.DEBUG, logging.INFO, logging.WARNING, logging.ERROR, logging.CRITICAL)
NAMES = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
ROOT = "opsbrain"
# LogRecord attributes that are not ``extra`` fields (the JSON line carries the others)
_STANDARD = set(vars(logging.LogRecord("x", 0, "x", 0, "x", None, None))) | {"message", "asctime", "taskName"}


class JsonLines(logging.Formatter):
    """One JSON object per record: ``ts`` (UTC, ms), ``level``, ``logger``, ``msg``, the ``extra`` fields, and
    ``exc`` with the exception's text when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname, "logger": record.name, "msg": record.getMessage()}
        out.update({k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")})
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


class _Text(logging.Formatter):
    """``opsbrain: LEVEL: message (key=value ...)``."""

    def format(self, record: logging.LogRecord) -> str:
        extra = {k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")}
        tail = (" (" + ", ".join(f"{k}={v}" for k, v in extra.items()) + ")") if extra else ""
        text = f"opsbrain: {record.levelname.lower()}: {record.getMessage()}{tail}"
        return text + ("\n" + self.formatException(record.exc_info) if record.exc_info else "")


class _Stderr(logging.Handler):
    """Writes to the stream given, else to whatever ``sys.stderr`` is at the time of the record (a CLI runner or a
    redirect may swap it between records)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        super().__init__()
        self.fixed = stream

    def emit(self, record: logging.LogRecord) -> None:
        try:
            out = self.fixed if self.fixed is not None else sys.stderr
            out.write(self.format(record) + "\n")
            out.flush()
        except Exception:  # noqa: BLE001 - logging must never break the program (logging's own rule)
            self.handleError(record)


class _State:
    explicit = False  # a level was chosen (-v/-q or the variable)


def env_level() -> int | None:
    """The level ``OPSBRAIN_LOG_LEVEL`` names (None when unset); a bad name is bad input."""
    raw = os.environ.get(LEVEL_ENV, "").strip()
    if not raw:
        return None
    name = raw.upper()
    if name not in NAMES:
        raise InputError(f"{LEVEL_ENV}={raw[:40]!r} is not a level (use one of {', '.join(NAMES)})")
    return int(getattr(logging, name))


def level_from(verbose: int = 0, quiet: int = 0) -> int:
    """The level for ``-v`` x verbose and ``-q`` x quiet over the variable's (or the default) level."""
    base = env_level()
    _State.explicit = base is not None or bool(verbose or quiet)
    k = STEPS.index(base if base is not None else DEFAULT_LEVEL) - verbose + quiet
    return STEPS[max(0, min(len(STEPS) - 1, k))]


def configure(level: int, json_lines: bool = False, stream: TextIO | None = None) -> logging.Logger:
    """Send the ``opsbrain`` loggers at ``level`` or above to ``stream`` (stderr), as text or JSON lines; called
    again, it replaces its own handler."""
    logger = logging.getLogger(ROOT)
    for h in [h for h in logger.handlers if getattr(h, "_opsbrain", False)]:
        logger.removeHandler(h)
    handler = _Stderr(stream)
    handler._opsbrain = True  # type: ignore[attr-defined]
    handler.setFormatter(JsonLines() if json_lines else _Text())
    logger.addHandler(handler)
    logger.setLevel(level)
    return logger


def for_service() -> logging.Logger:
    """JSON lines for a long-running service, at INFO unless a level was chosen (see module docstring); the
    scheduler library's own records (apscheduler: a skipped run, a job error) go the same way, at WARNING or
    above."""
    logger = logging.getLogger(ROOT)
    level = logger.level if _State.explicit and logger.level else logging.INFO
    out = configure(level, json_lines=True)
    lib = logging.getLogger("apscheduler")
    for h in [h for h in lib.handlers if getattr(h, "_opsbrain", False)]:
        lib.removeHandler(h)
    handler = _Stderr()
    handler._opsbrain = True  # type: ignore[attr-defined]
    handler.setFormatter(JsonLines())
    lib.addHandler(handler)
    lib.setLevel(max(level, logging.WARNING))
    lib.propagate = False
    return out
