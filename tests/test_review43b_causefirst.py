"""Review43b: the cause-first rule (``diagnosis/causefirst.cause_on_a_host``) read every place apart, one diagnosis
each, for a verdict that names a class but no place, before anything showed a place might be waiting (review43:
a paste of 256 processes' device out-of-memory lines, 0.89 of 1.30 s). It reads them apart now only where some
signal is of a kind the knowledge base gives to a waiting class. The lines are test_causefirst.py's W1 device
out-of-memory line (the CANN plog format) with other pids."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_causefirst import W0, W1


def _oom_paste(path: Path, n: int) -> Path:
    path.write_text("".join(
        f"[ERROR] DRV({pid},python3):2024-05-10-08:12:29.{i % 1000:03d}.004 [ascend][curpid: {pid}, {pid}][drv][devmm]"
        f"[devmm_ioctl_alloc 221]<errno:12, 0> device out of memory\n" for i, pid in enumerate(range(1000, 1000 + n))),
        encoding="utf-8")
    return path


class _Counting:
    """The engine, counting its signal diagnoses."""

    def __init__(self, engine: Any) -> None:
        self.engine, self.calls = engine, 0

    def diagnose_signals(self, *a: Any, **k: Any) -> Any:
        self.calls += 1
        return self.engine.diagnose_signals(*a, **k)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


def _calls(engine: Any, path: Path) -> tuple[int, dict[str, Any]]:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    counting = _Counting(engine)
    d = diagnose_logs(str(path), counting)["diagnosis"]
    return counting.calls, d


def test_no_process_is_read_apart_where_none_may_be_waiting(tmp_path: Path, engine: Any) -> None:
    few, d_few = _calls(engine, _oom_paste(tmp_path / "few.log", 4))
    many, d_many = _calls(engine, _oom_paste(tmp_path / "many.log", 64))
    assert d_few["fault_class"] == d_many["fault_class"] == "npu_oom"
    assert many == few, (few, many)  # before: one more diagnosis per process (5 and 65 besides the whole input's)


@pytest.mark.parametrize("order", ["oom first", "timeout first"])
def test_a_paste_with_a_wait_is_still_read_apart(tmp_path: Path, engine: Any, order: str) -> None:
    """test_causefirst's two processes' plogs pasted together, in either order: still read apart."""
    text = W1 + W0 if order == "oom first" else W0 + W1
    n, d = _calls(engine, _write(tmp_path / "paste.log", text))
    assert d["fault_class"] == "npu_oom" and d["root"]["name"] == "process 4101", d
    assert n >= 3  # the whole input's and each process's own


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
