"""Where reports come from and where they go: journal sources (run id or file), output-path checks, atomic writes.

Output paths follow the output policy of :func:`opsbrain.fsio.check_target` (refused, exit 2: ``..``
segments, links, anything but a regular file, a missing directory, and without ``--force`` the run store or
package data); a name ending in a separator is refused too. A report is written to a temporary file in the
target's directory and moved into place with ``os.replace``, so a reader never sees half a report and a failed
write leaves nothing behind.
"""

from __future__ import annotations

import math
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
    """A journal (dict), a list of journals, or a campaign summary with its ``journals``, from a file path, a run
    id or a campaign id in the run store. A campaign's own ``--json`` summary (no journals in it) takes its
    journals from the run store."""
    path = Path(source)
    if path.is_file():
        data = read_json_file(path)
        if _is_bare_campaign_summary(data):
            return campaign_source(str(data["campaign"]), data_dir, summary=data, file=source)
        return data
    if path.exists():
        raise InputError("not a regular file", file=source)
    if "/" in source or os.sep in source or source.endswith(".json"):
        raise InputError("no such file", file=source)
    from opsbrain.store import RunStore

    store = RunStore(data_dir)
    if store.get_run(source) is None:
        if store.get_campaign(source) is not None:
            return campaign_source(source, data_dir)
        raise InputError(f"no run or campaign {source!r} in the run store and no such file "
                         "(see 'opsbrain runs list')")
    journal = store.get_journal(source)
    if journal is None:
        raise InputError(f"run {source!r} has no journal: {no_journal_words(store.get_run(source))}")
    if not journal.get("run_id"):
        journal["run_id"] = source
    return journal


def no_journal_words(row: dict[str, Any] | None) -> str:
    """Why a stored run has no journal, from its status (session 43: a run still going was said to have "not
    finished", which reads as failed)."""
    status = (row or {}).get("status")
    if status == "running":
        return "it is still running; its journal is stored when it ends or is stopped"
    if status == "interrupted":
        return "it was stopped before its simulation ran, or its process was killed"
    return f"its status is {status}"


def _is_bare_campaign_summary(data: Any) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("campaign"), str) and "by_policy" in data
            and not isinstance(data.get("journals"), list))


def campaign_source(campaign_id: str, data_dir: Path | None = None, summary: dict[str, Any] | None = None,
                    file: str | None = None) -> dict[str, Any]:
    """A stored campaign as a report source: its summary (the given one, else the stored one) and its journals."""
    from opsbrain.store import RunStore

    store = RunStore(data_dir)
    camp = store.get_campaign(campaign_id)
    if camp is None:
        raise InputError(f"campaign {campaign_id!r} is not in the run store {store.path} (give --data-dir, or the "
                         "journals)", file=file)
    journals = [j for j in (store.get_journal(r) for r in camp["run_ids"]) if j is not None]
    if not journals:
        raise InputError(f"campaign {campaign_id!r} kept no journals (it ran with --no-journals)", file=file)
    out = dict(summary or camp["summary"] or {"campaign": campaign_id, "spec": camp["spec"]})
    out["journals"] = journals
    return out


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


_OBJ: type = dict
_LIST: type = list
_STR: type = str
_TOP: dict[str, type] = {"steady_state": _OBJ, "recovery": _OBJ, "sweeps": _OBJ, "summary": _OBJ, "series": _OBJ,
        "incidents": _LIST, "expectations": _LIST, "workloads": _LIST, "scenario": _STR, "policy": _STR,
        "verdict": _STR, "verdict_reason": _STR, "description": _STR, "status": _STR, "abort_reason": _STR,
        "run_id": _STR}
_INCIDENT: dict[str, type] = {"injected": _OBJ, "diagnosis": _OBJ, "impact": _OBJ, "actions": _LIST,
                              "incident_ids": _LIST, "affected_workloads": _LIST, "id": _STR, "runbook": _STR,
                              "detected_by": _STR}
_STEADY = ("before", "after", "baseline", "deviation_s", "longest_deviation_s")
_NAMES: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}


def _number_ok(key: str, value: Any) -> bool:
    if not (key.endswith("_s") or key in ("confidence", "seed")) or value is None:
        return True
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check_fields(obj: dict[str, Any], want: dict[str, type], file: str, where: str) -> None:
    for key, typ in want.items():
        v = obj.get(key)
        if v is not None and not isinstance(v, typ):
            raise InputError(f"must be {_NAMES[typ]} or null", file=file, path=f"{where}{key}")
    for key, v in obj.items():
        if not _number_ok(str(key), v):
            raise InputError("must be a finite number or null", file=file, path=f"{where}{key}")


def check_journal(j: dict[str, Any], file: str, where: str = "") -> None:
    """Refuse a journal whose fields a report reads have the wrong type (file and JSON path in the error): an
    object where an object is read, lists of objects, finite numbers for times and confidences."""
    _check_fields(j, _TOP, file, where)
    for name in ("incidents", "expectations", "workloads"):
        for k, item in enumerate(j.get(name) or []):
            if not isinstance(item, dict):
                raise InputError("must be an object", file=file, path=f"{where}{name}[{k}]")
    for k, inc in enumerate(j.get("incidents") or []):
        at = f"{where}incidents[{k}]."
        _check_fields(inc, _INCIDENT, file, at)
        for sub in ("injected", "diagnosis"):
            if isinstance(inc.get(sub), dict):
                _check_fields(inc[sub], {"kind": _STR, "component": _STR, "fault_class": _STR}, file, f"{at}{sub}.")
        for n, act in enumerate(inc.get("actions") or []):
            if not isinstance(act, dict):
                raise InputError("must be an object", file=file, path=f"{at}actions[{n}]")
            _check_fields(act, {"action": _STR, "target": _STR, "status": _STR}, file, f"{at}actions[{n}].")
    ss = j.get("steady_state") or {}
    for key in _STEADY:
        if ss.get(key) is not None and not isinstance(ss[key], dict):
            raise InputError("must be an object or null", file=file, path=f"{where}steady_state.{key}")
    for key in ("before", "after"):
        for name, probe in (ss.get(key) or {}).items():
            if not isinstance(probe, dict):
                raise InputError("must be an object", file=file, path=f"{where}steady_state.{key}.{name}")
