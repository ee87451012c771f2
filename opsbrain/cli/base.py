"""The root group, its error mapping and the options and helpers every command module shares."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from opsbrain.errors import InputError

if TYPE_CHECKING:
    from faultlib.simparams import SimParams

# Errors that mean "the user gave bad input": exit 2 with one line on stderr. Library modules are imported by
# the commands that need them (a short command does not pay for the simulator): faultlib's error types are
# looked up once their module is loaded, which it must be for one of them to have been raised.
_NO_ARGS: tuple[type[click.UsageError], ...] = tuple(
    c for c in (getattr(click.exceptions, "NoArgsIsHelpError", None),) if c is not None)
_LAZY_BAD_INPUT = (("faultlib.params", "ParamError"), ("faultlib.state", "UnknownComponent"))


def bad_input_types() -> tuple[type[BaseException], ...]:
    """InputError, faultlib's ParamError and UnknownComponent (when loaded) and ValueError."""
    lazy = tuple(getattr(sys.modules[mod], name) for mod, name in _LAZY_BAD_INPUT if mod in sys.modules)
    return (InputError, *lazy, ValueError)


def _one_line(exc: BaseException) -> str:
    """A one-line message for an error, whatever shape its ``str()`` has."""
    pydantic = sys.modules.get("pydantic")  # not loaded: exc cannot be one of its errors
    if pydantic is not None and isinstance(exc, pydantic.ValidationError):
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        msg = f"{loc}: {err['msg']}" if loc else err["msg"]
    else:
        msg = str(exc) or type(exc).__name__
    return " ".join(msg.split())


def error_line(message: str) -> str:
    """``opsbrain: error: MESSAGE`` on one line: line breaks (also a CR or U+2028 a user's key held) and runs of
    white space made one space, capped at 1000 characters (an error line never echoes kilobytes of input)."""
    line = " ".join(message.split())
    if len(line) > 1000:
        line = f"{line[:1000]}... ({len(line) - 1000} more characters)"
    return f"opsbrain: error: {line}"


def echo_errors(messages: Sequence[object]) -> None:
    """A validate command's errors, one line each (:func:`error_line`), on stderr."""
    for m in messages:
        click.echo(error_line(str(m)), err=True)


def _fail(message: str, code: int = 2) -> NoReturn:
    click.echo(error_line(message), err=True)
    sys.exit(code)


_TERMINATED: dict[str, bool] = {"by_sigterm": False}


def _on_sigterm(_signum: int, _frame: Any) -> None:
    """SIGTERM stops a command the way Ctrl-C does (runs record themselves as interrupted, campaigns stop their
    workers and keep what finished); a second SIGTERM during that clean-up is ignored so it cannot cut a write."""
    if _TERMINATED["by_sigterm"]:
        return
    _TERMINATED["by_sigterm"] = True
    raise KeyboardInterrupt


def exit_unless_passed(journal: dict[str, Any]) -> None:
    """A run's exit: 0 when its verdict passed or is inconclusive (nothing failed; the verdict says nothing was
    checked, docs/scenarios.md "Verdict"); 130 (Ctrl-C) or 143 (SIGTERM) when it was stopped (its journal stored
    with status ``interrupted``); else 1 (docs/hardening.md)."""
    if journal.get("status") == "interrupted":
        sys.exit(143 if _TERMINATED["by_sigterm"] else 130)
    if journal["verdict"] not in ("passed", "inconclusive"):
        sys.exit(1)


def _stop_on_sigterm() -> Any:
    """Install :func:`_on_sigterm` (main thread only; commands with their own stop logic replace it); return the
    handler it replaced (``None`` when not installed)."""
    import signal
    import threading

    _TERMINATED["by_sigterm"] = False
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _on_sigterm)


COMMAND_MODULES = {"chaos": "chaos_cmds", "diagnose": "diagnose_cmd", "kb": "kb_cmds", "params": "topology_cmds",
                   "report": "report_cmd", "runbooks": "runbooks_cmds", "runs": "runs_cmds",
                   "superpod": "superpod_cmds", "sweep": "sweep_cmds", "topology": "topology_cmds",
                   "watch": "sweep_cmds"}
"""Top-level command -> the module of :mod:`opsbrain.cli` that registers it. A command's module is imported when the
command is looked up (``opsbrain diagnose`` imports only diagnose_cmd: ~50 ms less start-up); listing the commands
(``--help``) imports them all. tests/test_cli_lazy.py checks the map against the modules."""


class _Root(click.Group):
    """The root group: runs a command and maps expected errors to exit codes (see module docstring); imports a
    command's module only when the command is looked up (:data:`COMMAND_MODULES`)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            import importlib

            importlib.import_module(f"opsbrain.cli.{COMMAND_MODULES[cmd_name]}")
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        import importlib

        for module in sorted(set(COMMAND_MODULES.values())):
            importlib.import_module(f"opsbrain.cli.{module}")
        return super().list_commands(ctx)

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        previous = _stop_on_sigterm()
        try:
            return self._main(args, prog_name, complete_var, standalone_mode, **extra)
        finally:
            if previous is not None:
                import signal

                signal.signal(signal.SIGTERM, previous)

    def _main(self, args: Sequence[str] | None, prog_name: str | None, complete_var: str | None,
              standalone_mode: bool, **extra: Any) -> Any:
        try:
            rv = super().main(args, prog_name or "opsbrain", complete_var, standalone_mode=False, **extra)
        except _NO_ARGS as exc:  # bare ``opsbrain``: show the help (click >= 8.2 raises for it)
            click.echo(exc.format_message(), err=True)
            sys.exit(2)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            _fail(exc.format_message() + hint, exc.exit_code)
        except click.ClickException as exc:
            _fail(exc.format_message(), exc.exit_code)
        except click.Abort:
            if _TERMINATED["by_sigterm"]:
                _fail("stopped by SIGTERM", 143)
            _fail("aborted", 130)
        except BrokenPipeError:  # stdout closed early (``opsbrain params | head``): no traceback
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(1)
        except Exception as exc:
            if os.environ.get("OPSBRAIN_DEBUG"):
                raise
            if isinstance(exc, OSError):  # a file the library did not expect to fail (name too long, disk full)
                name = f"{str(exc.filename)[:300]}: " if exc.filename is not None else ""
                _fail(f"{name}{exc.strerror or exc}")
            if not isinstance(exc, bad_input_types()):
                raise
            _fail(_one_line(exc))
        # standalone_mode=False returns the exit code of ctx.exit()/--help/--version, or the command's
        # return value (commands return None).
        code = rv if isinstance(rv, int) else 0
        if _TERMINATED["by_sigterm"] and code == 0:
            code = 143  # the command stopped early and said so; the exit code says why
        if standalone_mode:
            sys.exit(code)
        return code


def parse_params(pairs: Sequence[str]) -> dict[str, Any]:
    """``["fabric.ub_link_gbytes_s=25"]`` -> ``{"fabric.ub_link_gbytes_s": "25"}`` (pydantic converts the value).

    A value starting with ``[`` or ``{`` is read as JSON (lists, tables).
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InputError(f"expected KEY=VALUE, got {pair!r}", path="--param")
        value = value.strip()
        if value and value[0] in "[{":
            from opsbrain.yamlio import parse_json

            out[key] = parse_json(value, f"--param {key}")  # depth and number bounds: one line naming the key
        else:
            out[key] = value
    return out


def sim_params(pairs: Sequence[str]) -> SimParams:
    """Embedded defaults with ``--param`` overrides applied and validated."""
    from faultlib.params import apply_overrides
    from faultlib.simparams import SimParams

    params: SimParams = apply_overrides(SimParams(), parse_params(pairs))
    return params


def _emit_json(data: Any) -> None:
    from opsbrain.fsio import strict_json

    click.echo(strict_json(data, indent=2, default=str))


def _write_atomic(path: Path, write: Any, option: str, force: bool = False) -> None:
    """Write a file through the output policy and atomic writer of :mod:`opsbrain.fsio` (no half-written file)."""
    import io

    from opsbrain.fsio import check_target, write_atomic

    check_target(path, option, force)
    buf = io.BytesIO()
    write(buf)
    try:
        write_atomic(path, buf.getvalue(), option=option, force=force)
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), file=str(path), path=option) from None


class _Finite(click.FloatRange):
    """A float range that also refuses NaN (click's range lets NaN through: every comparison with it is false)."""

    name = "finite float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        rv = super().convert(value, param, ctx)
        if rv != rv:  # NaN
            self.fail(f"{str(value)[:40]!r} is not a number", param, ctx)
        return rv


class _NonEmpty(click.types.StringParamType):
    """A path given as text that refuses an empty value: ``--logs "$UNSET"`` would otherwise read the current
    directory without a word."""

    name = "path"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("empty path (an unset variable?); it would mean the current directory", param, ctx)
        return super().convert(value, param, ctx)


class _NonEmptyDir(click.Path):
    """``click.Path`` that refuses an empty value, as :class:`_NonEmpty` does."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            self.fail("empty path (an unset variable?); it would mean the current directory", param, ctx)
        return super().convert(value, param, ctx)


NON_EMPTY = _NonEmpty()


class LazyChoice(click.Choice):
    """A choice whose values are looked up when first needed (``--help`` of that command, or parsing it), so that
    listing them costs nothing at start-up. ``load`` returns the values."""

    def __init__(self, load: Any, case_sensitive: bool = True) -> None:
        self._load = load
        self._values: tuple[str, ...] | None = None
        self.case_sensitive = case_sensitive

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]  # read-only on purpose: filled on first use
        if self._values is None:
            self._values = tuple(self._load())
        return self._values


def fault_profiles() -> list[str]:
    """The random fault profiles of faultlib.injection (``--profile`` of ``chaos campaign``)."""
    from faultlib.injection.profiles import PROFILES

    return sorted(PROFILES)


SEED = click.IntRange(0, 2**63 - 1)  # the run store keeps seeds as SQLite INTEGER (signed 64 bits)
MAX_SPEED = 1e6  # reason: a wall second is then 11.6 simulated days; the twin cannot simulate a pod that fast
MAX_WALL_S = 10 * 365 * 86400.0  # reason: ten years; beyond it a wall-clock bound is no bound (and overflows)

param_option = click.option(
    "--param", "params", multiple=True, metavar="KEY=VALUE",
    help="Override a simulator parameter (see 'opsbrain params'), e.g. fabric.ub_link_gbytes_s=25.")
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON only, on stdout.")
force_option = click.option("--force", is_flag=True, help="Allow the output to replace an SQLite database (the run "
                            "store) or the package's own data (never a link or a non-regular file).")


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the installed version, looked up only when asked for."""
    if not value or ctx.resilient_parsing:
        return
    from opsbrain import __version__

    click.echo(f"opsbrain {__version__}")
    ctx.exit(0)


@click.group(cls=_Root, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
@click.option("-v", "--verbose", count=True, help="More log detail on stderr (-v info, -vv debug).")
@click.option("-q", "--quiet", count=True, help="Less log detail on stderr (-q errors only, -qq critical only).")
def cli(verbose: int, quiet: int) -> None:
    """Fault injection and operations automation for a simulated CloudMatrix384-class superpod.

    Logs go to stderr at WARNING (OPSBRAIN_LOG_LEVEL sets another level; -v/-q win over it)."""
    from opsbrain.logs import configure, level_from

    configure(level_from(verbose, quiet))


def _store(data_dir: Path | None) -> Any:
    from opsbrain.store import RunStore

    return RunStore(data_dir)


def _given_home(ctx: click.Context, _param: click.Parameter, value: Path | None) -> Path | None:
    """A data directory given: every store and cache of the command goes there, until the command ends
    (:func:`opsbrain.store.use_home`)."""
    if value is not None:
        from opsbrain.store import use_home

        ctx.call_on_close(use_home(value))
    return value


data_dir_option = click.option("--data-dir", type=_NonEmptyDir(file_okay=False, path_type=Path), default=None,
                               envvar="OPSBRAIN_HOME", callback=_given_home,
                               help="Run store and caches (default: $OPSBRAIN_HOME or ~/.local/share/opsbrain).")


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (``opsbrain``, ``python -m opsbrain``); exits with the command's code.

    Only here, never in the group that in-process callers invoke, does the last-resort handler
    (:mod:`opsbrain.cli.lastresort`) turn an unexpected exception into one line and exit 70."""
    from opsbrain.cli.lastresort import run_guarded

    args = list(argv) if argv is not None else sys.argv[1:]
    run_guarded(lambda: cli.main(args=args, prog_name="opsbrain"), args)
