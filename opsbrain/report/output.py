"""Where reports come from and where they go: journal sources (run id or file), output-path checks, atomic writes.

Output paths follow the output policy of :func:`opsbrain.fsio.check_target` (refused, exit 2: ``..``
segments, links, anything but a regular file, a missing directory, and without ``--force`` the run store or
package data); a name ending in a separator is refused too. A report is written to a temporary file in the target's directory and moved into
place with ``os.replace``, so a reader never sees half a report and a failed write leaves nothing behind.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from opsbrain import fsio
from opsbrain.errors import InputError

MAX_JOURNAL_BYTES = 512 * 1024 * 1024  # reason: a month-long campaign file is tens of MB; refuse anything absurd
OPTION = "--out"


def check_out_path(out: str, option: str = OPTION, force: bool = False) -> Path:
    """The validated output path for ``out`` (the output policy of :func:`opsbrain.fsio.check_target`; a name
    ending in a separator is a directory)."""
    if out.endswith(("/", os.sep)):
        raise InputError(f"{out[:200]!r} names a directory; give a file name", path=option)
    return fsio.check_target(out, option, force)


def write_atomic(path: Path, data: bytes, option: str = OPTION, force: bool = False) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and ``os.replace``."""
    try:
        fsio.write_atomic(path, data, option=option, force=force)
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), file=str(path), path=option) from None


def read_json_file(path: Path) -> Any:
    """A JSON file's content through the one input reader (:mod:`opsbrain.yamlio`); bad files raise InputError
    naming the file."""
    from opsbrain.yamlio import read_json

    return read_json(path, InputError, MAX_JOURNAL_BYTES)


def load_source(source: str, data_dir: Path | None = None) -> Any:
    """A journal (dict), a list of journals, or a campaign summary from a file path or a run id in the run store."""
    path = Path(source)
    if path.is_file():
        return read_json_file(path)
    if path.exists():
        raise InputError("not a regular file", file=source)
    if "/" in source or os.sep in source or source.endswith(".json"):
        raise InputError("no such file", file=source)
    from opsbrain.store import RunStore

    store = RunStore(data_dir)
    if store.get_run(source) is None:
        raise InputError(f"no run {source!r} in the run store and no such file (see 'opsbrain runs list')")
    journal = store.get_journal(source)
    if journal is None:
        raise InputError(f"run {source!r} has no journal (it did not finish)")
    if not journal.get("run_id"):
        journal["run_id"] = source
    return journal


def is_journal(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("incidents"), list) and "scenario" in data


def as_journals(data: Any, source: str = "input") -> list[dict[str, Any]]:
    """The journals of a source: one journal, a list of them, or a campaign summary holding ``journals``/``runs``."""
    if is_journal(data):
        return [data]
    items: Any = None
    if isinstance(data, list):
        items = data
    elif isinstance(data, dict):
        items = data.get("journals", data.get("runs"))
    if not isinstance(items, list) or not items:
        raise InputError("not a run journal, a list of journals or a campaign summary with 'journals'",
                         file=source)
    bad = [k for k, j in enumerate(items) if not is_journal(j)]
    if bad:
        raise InputError(f"item [{bad[0]}] is not a run journal (needs 'scenario' and 'incidents')", file=source)
    return list(items)
