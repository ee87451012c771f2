"""``diagnose --bundle`` reads a failure its program recovered from as ``--logs`` does (session 46, split46).

fa46 added :class:`opsbrain.ingest.recovered.RecoveredScan` (gpustack-runtime's DCMI V1 failure followed within 40 lines
by its V2 success is no failure) and applied it in ``--logs``' reader and the text view; the bundle reader built its
signals without it, so the same block in a bundle's log file read ``drv:api_error`` and ``op:unsupported`` (and
config_error). The block is the real one of gpustack/runtime#20 (tests/test_false_alarms46.py's ``GPUSTACK``), in a
worker's log file of a minimal bundle; a run of repeated lines before it (folded at reading) checks that the lines
are matched by their numbers in the file as written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle, scan_bundle
from opsbrain.bundle.layout import BundleParams
from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.test_false_alarms46 import GPUSTACK, V2_LINE

FAILED = {"drv:api_error", "op:unsupported"}
AMD = GPUSTACK.splitlines()[0]


def _bundle(root: Path, text: str) -> Path:
    log = root / "worker-0" / "gpustack-runtime.log"
    log.parent.mkdir(parents=True)
    log.write_text("\n".join([AMD] * 5) + "\n" + text, encoding="utf-8")  # (a run of 5 copies: folded)
    return root


def _kinds(root: Path, engine: Any, params: BundleParams | None = None) -> set[str]:
    """The signal kinds of the bundle's incidents, as ``diagnose --bundle`` reports them."""
    return {k for inc in diagnose_bundle(root, engine, params=params)["incidents"] for k in inc["kinds"]}


def _classes(root: Path, engine: Any) -> tuple[str | None, str | None]:
    bundle, logs = diagnose_bundle(root, engine)["diagnosis"], diagnose_logs(str(root), engine)["diagnosis"]
    return (bundle or {}).get("fault_class"), (logs or {}).get("fault_class")


@pytest.mark.parametrize("packed", [False, True])
def test_a_recovered_dcmi_block_gives_no_signal_in_a_bundle(tmp_path: Path, engine: Any, packed: bool) -> None:
    root = _bundle(tmp_path, GPUSTACK)
    params = BundleParams(hold_text_bytes=0) if packed else None  # a packed file's lines, read as a stream
    assert not _kinds(root, engine, params) & FAILED
    r = scan_bundle(root, params)
    assert {(ln.file, ln.line) for ln in r.lines if "DCMIError_NotSupport" in ln.text} <= r.recovered


def test_bundle_and_logs_agree_on_the_recovered_block(tmp_path: Path, engine: Any) -> None:
    bundle, logs = _classes(_bundle(tmp_path, GPUSTACK), engine)
    assert bundle == logs and bundle in ("unknown", None), (bundle, logs)


def test_the_failure_without_its_v2_success_still_reads_both_ways(tmp_path: Path, engine: Any) -> None:
    root = _bundle(tmp_path, GPUSTACK.replace(V2_LINE + "\n", ""))
    assert _kinds(root, engine) >= FAILED
    bundle, logs = _classes(root, engine)
    assert bundle == logs and bundle not in ("unknown", None), (bundle, logs)
