"""Readings written in session 59 from the blind sets' misses, each on its real lines.

- pip's report of the dependency conflicts an install left (``ERROR: pip's dependency resolver does not currently take
  into account ...`` and one ``... requires ..., but you have ... which is incompatible.`` line a conflict) is a notice:
  the install was made (b59d-08 and blind50's b50a-10, healthy notebooks read framework_error / config_error).
- TensorFlow's ``NodeDef mentions attribute ... Unknown attributes will be ignored.`` (glog ``E``) is a notice
  (b59d-08).
- MindInsight's ``Reusing MindInsight on port ...`` (an instance already serves the folder) is a notice (b59d-11).
- mssanitizer's ``WARN: ... is not supported on the kernel that without `--cce-enable-sanitizer' compiler option, thus
  it's temporarily ignored.`` is a notice (b59a-03, the tool's own run that found no error, read framework_error 0.62).
- ONNX Runtime's arena ``Available memory of X is smaller than requested bytes of Y`` reads ``mem:oom`` (b59a-05).
- A tally of checks that all passed (``8/8 passed``, ``16/16 cases passed``) is a progress line (b59b-01), one that
  passed fewer than it counts a failing line of the went-on scan (review59).
- pytest's header line of its plugins (``plugins: ..., rerunfailures-16.1, ...``) is a notice (b59f-01, a test run
  that passed read framework_error 0.54 from the plugin's name).
"""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from typing import Any

import yaml

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.realtext import TextView
from opsbrain.diagnosis.wenton import PROGRESS, is_progress, progress_scan, short_tally
from opsbrain.fastre import fast_search
from opsbrain.ingest.benign import BENIGN
from tests.textviews import line_kinds as kinds

BLIND = Path(__file__).resolve().parent / "data" / "blind"


def _texts(*names: str) -> dict[str, str]:
    return {e["id"]: e["text"] for name in names for e in yaml.safe_load((BLIND / name).read_text())}


TEXTS = _texts("blind50_healthy.yaml", "blind59.yaml", "blind59_healthy.yaml")


def _line(run: str, words: str) -> str:
    return next(ln for ln in TEXTS[run].splitlines() if words in ln)


def _viewed(line: str) -> list[str]:
    """The words the text fallback keeps of ``line``."""
    view = TextView()
    view(line, "x.log", 1)
    return [t for _, _, t in view.first + view.errors]


def _diagnose(engine: Any, text: str) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]


def test_pips_conflict_report_is_a_notice() -> None:
    head = _line("b50a-10", "dependency resolver")
    conflict = _line("b50a-10", "which is incompatible.")
    missing = _line("b59d-08", "which is not installed.")
    for line in (head, conflict, missing):
        assert BENIGN.search(line), line
    legacy = ("ERROR: pip's legacy dependency resolver does not consider dependency conflicts when selecting packages. "
              "This behaviour is the source of the following dependency conflicts.")
    assert BENIGN.search(legacy)
    assert BENIGN.search("tensorflow 2.4.0 requires numpy~=1.19.2, but you'll have numpy 1.21.0 which is incompatible.")
    # pip 20.2's head and pip 19-20.1's conflict lines; the head after a collector's prefix (review59)
    for line in ("ERROR: After October 2020 you may experience errors when installing or updating packages. This is "
                 "because pip will change the way that it resolves dependency conflicts.",
                 "ERROR: botocore 1.15.49 has requirement urllib3<1.26,>=1.20, but you'll have urllib3 2.3.0 which is "
                 "incompatible.", "ERROR: te 0.4.0 requires cloudpickle, which is not installed.",
                 "#12 5.123 " + head, "2023-06-20T10:00:00,123 " + head):
        assert BENIGN.search(line) and not _viewed(line), line
    assert _viewed("#12 5.123 " + head.replace("dependency resolver", "resolver"))
    # pip's own failures, a missing package raised by a program, and sentences of the form with no version
    for line in ("ERROR: Could not find a version that satisfies the requirement torch_npu==9.9.9",
                 "ERROR: No matching distribution found for torch_npu==9.9.9",
                 "ERROR: Cannot install torch==2.1 and torch_npu==2.4 because these package versions have "
                 "conflicting dependencies.",
                 "ImportError: numpy 2.0.2 requires foo, which is not installed.",
                 "numpy 2.0.2 requires foo, which is not installed. Traceback (most recent call last):",
                 "This model requires flash_attn, which is not installed.",
                 "pkg_resources.DistributionNotFound: The 'te' distribution was not found and is required by hccl"):
        assert not BENIGN.search(line), line


def test_tensorflows_ignored_attribute_is_a_notice() -> None:
    line = _line("b59d-08", "NodeDef mentions attribute")
    assert line.lstrip().startswith("2025-08-09") and " E " in line
    assert _viewed(line.replace("Unknown attributes will be ignored.", "Unknown attributes are kept."))
    assert BENIGN.search(line) and kinds(line) == [] and not _viewed(line)
    glog = ("E0000 00:00:1783254222.405046   13576 node_def_util.cc:682] NodeDef mentions attribute "
            "use_unbounded_threadpool which is not in the op definition: Op<name=MapDataset> This may be expected if "
            "your graph generating binary is newer  than this binary. Unknown attributes will be ignored. NodeDef: "
            "{{node a}}, {{node b}}")
    assert BENIGN.search(glog)
    # a failure before the message or text after it on its line keeps its reading (review59)
    assert not BENIGN.search(line + " RuntimeError: device error")
    before = "RuntimeError: ACL stream synchronize failed, error code:507011 " + line
    assert not BENIGN.search(before) and "rt:507011" in kinds(before)


def test_mindinsight_reusing_its_port_is_a_notice() -> None:
    line = _line("b59d-11", "Reusing MindInsight on port")
    assert line.startswith("[ERROR] MI(") and BENIGN.search(line) and not _viewed(line)
    other_user = 'Reusing MindInsight on port 8080. (pid None, Use "mindinsight stop --port 8080" to stop it.)'
    assert BENIGN.search(other_user)
    assert not BENIGN.search("MemoryError: out of memory " + other_user)
    # the port held by another folder or program is a failure to start
    assert not BENIGN.search("[ERROR] MI(1:2,MainProcess):2022-11-21-17:13:13.198.923 [mindinsight/scripts/start.py:"
                             "184][SCRIPTS] MindInsight could not bind to port 10004, it was already in use (pid 7)")


def test_mssanitizers_skipped_checks_are_a_notice() -> None:
    line = _line("b59a-03", "temporarily ignored")
    assert "op:unsupported" in kinds("[mssanitizer] WARN: racecheck is not supported on this kernel.")
    assert BENIGN.search(line) and kinds(line) == []
    assert not BENIGN.search("====== ERROR: illegal write of size 256 " + line)


def test_onnx_runtimes_arena_running_out_reads_oom() -> None:
    line = _line("b59a-05", "Available memory of")
    assert "mem:oom" in kinds(line)
    # quoted without its function (the gate word, review59)
    assert "mem:oom" in kinds("Status Message: Available memory of 1 is smaller than requested bytes of 2")
    assert "mem:oom" not in kinds("Available memory of 11416064 bytes on the device")


def test_an_all_passed_tally_is_progress() -> None:
    for line in ("  → 8/8 passed, geo_mean=0.000x", "[cann-bench] OVERALL: 16/16 cases passed across 2 operators",
                 "10/10 tests passed"):
        assert is_progress(line), line
    for line in ("7/8 passed", "1/10 passed", "11/1 passed", "0/0 passed", "8/8 failed"):
        assert not is_progress(line), line
    # PROGRESS stays one pattern RE2 reads (a back-reference put the went-on scan's search on re: the hook's read)
    if importlib.util.find_spec("re2") is not None:  # (google-re2 is a dependency; without it re runs everything)
        assert fast_search(PROGRESS) != PROGRESS.search


def test_pytests_plugin_list_is_a_notice() -> None:
    line = _line("b59f-01", "plugins: ")
    assert "rerunfailures" in line and BENIGN.search(line)
    # a plugin list with anything else on its line, and pytest's own failures, keep their reading
    assert not BENIGN.search(line + " INTERNALERROR> Traceback")
    assert not BENIGN.search("INTERNALERROR> plugins: rerunfailures-16.1 failed to load")


def test_the_blind_runs_read_as_their_labels(engine: Any) -> None:
    for run in ("b59d-08", "b59d-11", "b59a-03", "b50a-10", "b59f-01"):
        assert _diagnose(engine, TEXTS[run])["fault_class"] == "unknown", run
    assert _diagnose(engine, TEXTS["b59a-05"])["fault_class"] == "npu_oom"
    d = _diagnose(engine, TEXTS["b59b-01"])
    assert d["fault_class"] == "unknown"
    assert any("went on after its last failure" in x for x in d["evidence"]), d["evidence"]


def test_ctests_closing_count_is_progress_and_a_notice_no_failing_line() -> None:
    """CTest's count of a run that passed is progress (review59); a documented harmless line is no failing line of the
    went-on scan, as the text view leaves it out."""
    scan = progress_scan()
    assert is_progress("100% tests passed, 0 tests failed out of 12")
    assert not is_progress("92% tests passed, 1 tests failed out of 12")
    assert scan._error("92% tests passed, 1 tests failed out of 12") is not None
    head = _line("b50a-10", "dependency resolver")
    assert scan._error(head) is None and scan._error(head.replace("pip's", "the")) is not None


def test_a_short_tally_is_a_failing_line(engine: Any) -> None:
    """One check group's all-passed tally after another's failure does not say the run went on where a later tally
    counts fewer passed than run (review59)."""
    run = "\n".join([
        "[cann-bench] Running correctness evaluation",
        "Evaluating Add (8 cases) → cann_bench.add",
        "RuntimeError: call aclnnAdd failed, detail:EZ1001: [PID: 1] 2025-01-01-00:00:00.000 x and y dtype not match",
        "  → 7/8 passed, geo_mean=0.000x",
        "Evaluating Sqrt (8 cases) → cann_bench.sqrt",
        "  → 8/8 passed, geo_mean=0.000x",
        "Evaluating Mish (8 cases) → cann_bench.mish",
        "  → 8/8 passed, geo_mean=0.000x"])
    assert _diagnose(engine, run)["fault_class"] == "unknown"  # two all-passed tallies after the failure
    d = _diagnose(engine, run + "\n[cann-bench] OVERALL: 23/24 cases passed across 3 operators")
    assert d["fault_class"] == "framework_error", d
    assert short_tally("OVERALL: 23/24 cases passed") and not short_tally("OVERALL: 24/24 cases passed")
