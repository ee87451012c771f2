"""A software class read from a failure the program went on from (opsbrain.diagnosis.wenton): progress lines after
the last failing line turn the answer into an abstention with that class as the best guess; a failure at the end,
one progress line, a progress line that fails, a failure in another file, or a hardware class keep the answer.

Real lines: the ModuleNotFoundError traceback of a run that stopped (the form Python prints); the training loop's
lines of Ascend/ModelZoo-TensorFlow's Non_Local_Net (a committed 910 training log) and MindSpore's LossMonitor
(distributed_training_fault_recover.md, r1.6); HCCL's socket-manager line of vllm-ascend#1955."""

from __future__ import annotations

import io
import time
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.realtext import BELOW_WARNING, has_error_word
from opsbrain.diagnosis.wenton import PROGRESS, TAIL, ProgressScan, went_on

FAILED = [
    "Traceback (most recent call last):",
    '  File "train.py", line 12, in <module>',
    "    import torch_npu",
    "ModuleNotFoundError: No module named 'torch_npu'",
]
LOOP = [
    "Epoch: 19\tLoss:0.014338116\tAccuarcy: 0.9973\tglobal_step/sec:108.60498261451721",
    "Epoch: 20\tLoss:0.010791019\tAccuarcy: 0.9979\tglobal_step/sec:108.59331059455872",
]
MS_LOSS = "epoch: 1 step: 77, loss is 7.187697"


def _diagnose(engine: Any, lines: list[str]) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO("\n".join(lines).encode()))["diagnosis"]


def test_a_failure_the_loop_went_on_from_is_no_answer(engine: Any) -> None:
    before = _diagnose(engine, FAILED)
    assert before["fault_class"] == "config_error"
    d = _diagnose(engine, FAILED + LOOP)
    assert d["fault_class"] == "unknown"
    assert d["alternatives"][0][0] == "config_error"  # the best guess stays
    assert any("went on after its last failure" in e for e in d["evidence"])


def test_a_failure_at_the_end_keeps_its_class(engine: Any) -> None:
    assert _diagnose(engine, LOOP + FAILED)["fault_class"] == "config_error"


def test_one_progress_line_is_not_enough(engine: Any) -> None:
    assert _diagnose(engine, FAILED + LOOP[:1])["fault_class"] == "config_error"


def test_a_progress_line_that_fails_is_no_progress(engine: Any) -> None:
    lines = FAILED + ["Wait links establish completed failed. ret[9].", "step 3 completed failed"]
    assert _diagnose(engine, lines)["fault_class"] != "unknown"


def _scan(lines_by_file: dict[str | None, list[str]]) -> ProgressScan:
    scan = ProgressScan(has_error_word, lambda t: BELOW_WARNING.search(t) if t else None)
    for f, lines in lines_by_file.items():
        for n, line in enumerate(lines, 1):
            scan(line, f, n)
    return scan


class _Sig:
    def __init__(self, file: str | None, line_no: int, severity: int = 2, kind: str = "py:ModuleNotFoundError"):
        self.file, self.line_no, self.severity, self.kind = file, line_no, severity, kind


def test_every_failed_file_must_have_gone_on() -> None:
    scan = _scan({"rank0.log": FAILED + LOOP, "rank1.log": LOOP + FAILED})
    assert went_on(scan, []) is None
    scan = _scan({"rank0.log": FAILED + LOOP, "rank1.log": LOOP})
    w = went_on(scan, [])
    assert w is not None and w.file == "rank0.log" and w.lines == (5, 6)
    assert went_on(scan, [], failed=["rank2.log"]) is None  # a file the text view saw fail, without progress


def test_a_failure_before_the_last_lines_counts_every_progress_line_kept() -> None:
    lines = FAILED + ["INFO: waiting"] * (TAIL + 5) + LOOP
    scan = _scan({"a.log": lines})
    assert scan.read("a.log") == (0, [len(lines) - 1, len(lines)])
    assert went_on(scan, [_Sig("a.log", 4)]) is not None
    assert went_on(_scan({"a.log": FAILED + ["INFO: waiting"] * (TAIL + 5)}), [_Sig("a.log", 4)]) is None


def test_a_failing_signal_after_the_progress_keeps_the_answer() -> None:
    # a line a parser read as failing without an error word (a signal), after the loop's lines
    scan = _scan({None: FAILED + LOOP + ["No module named 'torch_npu'"]})
    assert went_on(scan, [_Sig(None, 4)]) is not None
    assert went_on(scan, [_Sig(None, 7)]) is None
    assert went_on(scan, [_Sig(None, 7, severity=0)]) is not None  # an INFO signal fails nothing


def test_a_line_stated_below_warning_with_an_error_word_fails_nothing() -> None:
    scan = _scan({None: FAILED + [LOOP[0], "[INFO] l2_error: 0.0043", LOOP[1]]})
    assert went_on(scan, []) is not None


def test_progress_forms() -> None:
    for line in LOOP + [MS_LOSS, "INFO:     Application startup complete.",
                        "Engine 000: Avg prompt throughput: 1638.4 tokens/s, Avg generation throughput: 11.3 tokens/s",
                        "[Modelarts Service Log]exit with 0", "MsFmkTransplt run success, welcome to the next use.",
                        # transformers' Trainer.log prints its logs dict (trainer.py, ``self.log(logs)``)
                        "{'loss': 0.6931, 'learning_rate': 4.5e-05, 'epoch': 0.3}",
                        "{'train_runtime': 32.5297, 'train_samples_per_second': 11.067, 'train_loss': 9.1124}"]:
        assert PROGRESS.search(line), line
    for line in ["Using max model len 32768", "Set PYTORCH_NPU_ALLOC_CONF=expandable_segments:True",
                 "Initial free memory 60.60 GiB", "exit with 1", "stepping down as leader", "lossy link 3",
                 "gloss 3"]:
        assert not PROGRESS.search(line), line


def test_hostile_line_is_linear() -> None:
    for bad in ("epoch " * 10000, "loss " * 12000, "top-" * 15000, "exit with " * 6000, "_" * 65536, "'" * 65536):
        t0 = time.perf_counter()
        PROGRESS.search(bad)
        assert time.perf_counter() - t0 < 2.0


def test_a_bundle_reads_a_console_that_went_on_as_logs_does(engine: Any, tmp_path: Any) -> None:
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.kb import SignatureMatcher, load_kb

    matcher = SignatureMatcher(load_kb())
    for name, lines, want in (("went_on", FAILED + LOOP, "unknown"), ("stopped", LOOP + FAILED, "config_error")):
        b = tmp_path / name
        (b / "worker-0").mkdir(parents=True)
        (b / "worker-0" / "train.log").write_text("\n".join(lines) + "\n")
        got = diagnose_bundle(b, engine, matcher)["diagnosis"]["fault_class"]
        assert got == want, (name, got)
