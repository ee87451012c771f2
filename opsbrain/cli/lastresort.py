"""The last-resort handler of the ``opsbrain`` process (console script and ``python -m opsbrain``; issue 14).

The root group (:mod:`opsbrain.cli.base`) maps expected errors to exit 2 with one line; anything else it lets
through, so that in-process callers (click's ``CliRunner``, the tests) see the exception. This handler wraps only
the process entry point and turns what still escapes into one line on stderr:

- any other exception: ``opsbrain: internal error: TYPE: MESSAGE; this is a bug (traceback: FILE)``, exit 70
  (``EX_SOFTWARE`` of sysexits.h); the full traceback is written atomically to ``DATA_DIR/crashes/`` (the
  ``--data-dir`` of the command line, else ``$OPSBRAIN_HOME`` or the default data directory) or, when that
  cannot be written, to the temporary directory;
- ``KeyboardInterrupt`` (Ctrl-C outside a command's own handling): ``opsbrain: interrupted``, exit 130;
- ``BrokenPipeError`` (stdout closed early, ``opsbrain ... | head``): nothing more is printed, exit 1.

``OPSBRAIN_DEBUG=1`` re-raises instead (the traceback on stderr, for developers).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

EX_SOFTWARE = 70  # sysexits.h: an internal software error
EX_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for Ctrl-C
EX_BROKEN_PIPE = 1  # as the root group's own BrokenPipeError handling
MAX_MESSAGE_CHARS = 300  # reason: the line names the error; the crash file holds the rest


def _data_dir(argv: Sequence[str]) -> Path:
    """The data directory the command line names (last ``--data-dir``), else the run store's default."""
    chosen: str | None = None
    for i, arg in enumerate(argv):
        if arg == "--data-dir" and i + 1 < len(argv):
            chosen = argv[i + 1]
        elif arg.startswith("--data-dir="):
            chosen = arg.partition("=")[2]
    if chosen:
        return Path(chosen)
    from opsbrain.store import default_home

    return default_home()


def _write_once(folder: Path, text: str) -> Path:
    """``text`` written to a new file in ``folder``: a private temporary file, fsynced, then renamed."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    fd, tmp = tempfile.mkstemp(prefix=".opsbrain-crash-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        final = folder / f"opsbrain-crash-{stamp}-{os.getpid()}-{Path(tmp).stem.rsplit('-', 1)[-1]}.txt"
        os.replace(tmp, final)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return final


def write_crash_file(exc: BaseException, argv: Sequence[str]) -> tuple[Path | None, str]:
    """Write the traceback of ``exc`` (with the command line and versions); return (file, why not written)."""
    try:
        from opsbrain import __version__ as version
    except Exception:  # noqa: BLE001  (a crash report must not fail on a broken install)
        version = "unknown"
    text = (f"opsbrain {version} internal error, {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}\n"
            f"python {sys.version.split()[0]} on {sys.platform}\n"
            f"command: opsbrain {' '.join(argv)}\n\n"
            + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))
    why = ""
    for folder in (lambda: _data_dir(argv) / "crashes", lambda: Path(tempfile.gettempdir())):
        try:
            return _write_once(folder(), text), ""
        except Exception as err:  # noqa: BLE001  (try the next place; say why none worked)
            why = f"{type(err).__name__}: {err}"
    return None, why


def internal_error_line(exc: BaseException, crash: Path | None, why: str) -> str:
    """The one stderr line for an unexpected exception."""
    msg = " ".join(str(exc).split())
    if len(msg) > MAX_MESSAGE_CHARS:
        msg = f"{msg[:MAX_MESSAGE_CHARS]}... ({len(msg) - MAX_MESSAGE_CHARS} more characters)"
    where = f"traceback: {crash}" if crash is not None else f"traceback not saved: {' '.join(why.split())[:200]}"
    head = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    return f"opsbrain: internal error: {head}; this is a bug ({where}; OPSBRAIN_DEBUG=1 shows it here)"


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass  # stderr itself is gone: the exit code still says what happened


def run_guarded(entry: Callable[[], object], argv: Sequence[str]) -> NoReturn:
    """Run ``entry`` (which exits through ``SystemExit``), mapping what escapes it as the module docstring says."""
    try:
        entry()
        sys.stdout.flush()  # a command that wrote without flushing: a closed pipe shows here, not at exit
    except SystemExit as done:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _quiet_stdout()
            sys.exit(EX_BROKEN_PIPE)
        except (OSError, ValueError, AttributeError):
            pass
        raise done from None
    except BrokenPipeError:
        if os.environ.get("OPSBRAIN_DEBUG"):
            raise
        _quiet_stdout()
        sys.exit(EX_BROKEN_PIPE)
    except KeyboardInterrupt:
        if os.environ.get("OPSBRAIN_DEBUG"):
            raise
        _say("opsbrain: interrupted")
        sys.exit(EX_INTERRUPTED)
    except Exception as exc:
        if os.environ.get("OPSBRAIN_DEBUG"):
            raise
        crash, why = write_crash_file(exc, argv)
        _say(internal_error_line(exc, crash, why))
        sys.exit(EX_SOFTWARE)
    sys.exit(0)
