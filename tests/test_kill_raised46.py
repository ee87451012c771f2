"""The exception raised FOR a kill is the kill, not a second failure of the program (session 46, the lead).

PyTorch's DataLoader raises ``RuntimeError: DataLoader worker (pid N) is killed by signal: Killed.`` when a worker
ended by SIGKILL (torch/csrc/DataLoader.cpp via ``_error_if_any_worker_fails``); torch.multiprocessing raises
``ProcessExitedException: process N terminated with signal SIGKILL`` (torch/multiprocessing/spawn.py). Read as both
``os:sigkill`` and the program's own ``py:RuntimeError``, one event counted twice and the generic software class won
(blind45 b45g-09, a host OOM kill of a DataLoader worker, answered framework_error)."""

from __future__ import annotations

import pytest

from opsbrain.ingest import parse_line


def kinds(line: str) -> list[str]:
    return sorted({s.kind for s in parse_line(line, t=0.0)})


@pytest.mark.parametrize("line", [
    "RuntimeError: DataLoader worker (pid 2605) is killed by signal: Killed.",  # SwinTransformer/Transformer-SSL#8
    "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL",  # ZegFormer#19
])
def test_the_exception_raised_for_a_kill_is_the_kill_alone(line: str) -> None:
    assert kinds(line) == ["os:sigkill"]


@pytest.mark.parametrize(("line", "expected"), [
    # another signal is another cause: a bus error is the shared-memory limit (parsers/cfgenv), read as before
    ("RuntimeError: DataLoader worker (pid 52) is killed by signal: Bus error. It is possible that dataloader's "
     "workers are out of shared memory. Please try to raise your shared memory limit.", ["cfg:env", "py:RuntimeError"]),
    # a program's own RuntimeError stays its own error
    ("RuntimeError: step 12 failed after worker restart", ["py:RuntimeError"]),
])
def test_other_exceptions_keep_their_reading(line: str, expected: list[str]) -> None:
    assert kinds(line) == expected
