"""A Python traceback that ends with the exception raised for a kill is the kill's report, not a failure of the
program's own (session 47, the lead; :class:`opsbrain.ingest.parsers.sigkill.KilledTracebackScan`).

blind45's b45g-09 (SwinTransformer/Transformer-SSL#8: host memory grew until a DataLoader worker was killed) read
framework_error 0.5 whole, from the traceback's header (``py:traceback``) and the frames in the text fallback, and
npu_oom 0.5 from its last line alone (``os:sigkill``, ambiguous toward npu_oom). Session 46 made the exception line
itself the kill alone; its traceback now is too, under ``--logs``, ``--bundle`` and in the fallback's text."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.parsers.sigkill import KilledTracebackScan, killed_tracebacks_in
from opsbrain.ingest.text import ingest_text

KILLED = """\
Traceback (most recent call last):
File "moby_main.py", line 236, in
main(config)
File "moby_main.py", line 151, in train_one_epoch
scaled_loss.backward()
File "/root/anaconda3/envs/transformer-ssl/lib/python3.7/site-packages/torch/tensor.py", line 221, in backward
torch.autograd.backward(self, gradient, retain_graph, create_graph)
File "/root/anaconda3/envs/transformer-ssl/lib/python3.7/site-packages/torch/utils/data/_utils/signal_handling.py", \
line 66, in handler
_error_if_any_worker_fails()
RuntimeError: DataLoader worker (pid 2605) is killed by signal: Killed.
"""
"""b45g-09's lines (https://github.com/SwinTransformer/Transformer-SSL/issues/8; two frames cut)."""
LAST = KILLED.splitlines()[-1] + "\n"
OWN = KILLED.replace(LAST, "RuntimeError: Expected all tensors to be on the same device\n")
"""The control: the same traceback ending in an exception of the program's own."""


def _kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text)[0]]


def test_the_traceback_of_a_kill_gives_the_kill_alone() -> None:
    assert _kinds(KILLED) == _kinds(LAST) == ["os:sigkill"]
    assert "py:traceback" in _kinds(OWN) and "py:RuntimeError" in _kinds(OWN)  # the control


def test_a_kill_traceback_reads_as_its_last_line(tmp_path: Path, engine: Any) -> None:
    paths = []
    for name, text in (("killed.log", KILLED), ("last.log", LAST)):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    whole, last = (diagnose_logs(p, engine)["diagnosis"] for p in paths)
    assert (whole["fault_class"], whole["confidence"]) == (last["fault_class"], last["confidence"])
    assert whole["fault_class"] != "framework_error"


def test_the_scan_keeps_what_is_not_a_kills_traceback() -> None:
    lines = OWN.splitlines() + KILLED.splitlines()
    assert killed_tracebacks_in(lines) == set(range(len(OWN.splitlines()) + 1, len(lines)))
    scan = KilledTracebackScan()  # a frame's source line naming an exception does not end the traceback
    for n, text in enumerate([KILLED.splitlines()[0], '    raise RuntimeError("x")', LAST.strip()], 1):
        scan.step(n, text)
    assert scan.lines == {1, 2}
    assert killed_tracebacks_in(["Traceback (most recent call last):"] + ["  x"] * 500 + [LAST]) == set()


@pytest.mark.parametrize("packed", [False, True])
def test_a_bundle_reads_the_kill_traceback_as_logs_does(tmp_path: Path, engine: Any, packed: bool) -> None:
    from opsbrain.bundle.layout import BundleParams

    log = tmp_path / "worker-0" / "train.log"
    log.parent.mkdir(parents=True)
    log.write_text(KILLED)
    params = BundleParams(hold_text_bytes=0) if packed else None
    rep = diagnose_bundle(tmp_path, engine, params=params)
    assert {k for inc in rep["incidents"] for k in inc["kinds"]} == {"os:sigkill"}
    assert rep["diagnosis"]["fault_class"] == diagnose_logs(str(tmp_path), engine)["diagnosis"]["fault_class"] \
        != "framework_error"  # (on 555af904 both read framework_error 0.6, the fallback from the frames)
