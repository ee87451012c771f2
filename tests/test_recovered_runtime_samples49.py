"""A CANN runtime sample that provokes errors on purpose and then reports that it passed is no fault (session 49,
tester49o).

hicann/runtime's examples print through example/utils.h (``INFO_LOG`` / ``WARN_LOG`` / ``ERROR_LOG``: ``[INFO]  ``,
``[WARN]  ``, ``[ERROR]  `` with two spaces); ``CHECK_ERROR`` logs a failed call and returns -1 at once, and only a
``main`` that got past every check prints ``Run the NAME sample successfully.`` (or ``[SUCCESS] ...`` /
``[SKIP] ...``; the samples' run.sh echoes ``[SUCCESS] ...`` or ``[FAILURE] ...`` after checking that marker). The
READMEs' "Sample Output" shows the provoked errors above that verdict:
https://github.com/hicann/runtime/blob/681ef7610df13c8128982901142a2c869ddbb53e/example/utils.h and the READMEs quoted
below. Before, each read framework_error 0.54-0.60.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.realtext import excerpt_view
from opsbrain.ingest.recovered import may_recover, recovered_in
from opsbrain.ingest.text import ingest_text

# example/1_basic_features/stream/1_stream_with_failure_mode/README_en.md, "Sample Output" (@681ef761)
FAILURE_MODE = """\
[INFO]  Assigning task without failure mode.
[ERROR]  Operation failed: aclrtSynchronizeStream(stream) returned error code 507035
[INFO]  Without failure mode, the result is 2.
[INFO]  Assigning task with failure mode.
[ERROR]  Operation failed: aclrtSynchronizeStream(stream) returned error code 507035
[INFO]  After set failure mode, the current result is: 1.
[INFO]  aclrtStreamStop returned 0.
[WARN]  aclrtSynchronizeStream(after stop) returned 507000.
[INFO]  aclrtStreamAbort returned 0.
[INFO]  aclrtSynchronizeStream(after abort) returned 507035 after stream abort, which is expected.
[INFO]  Resource cleanup completed.
[INFO]  Run the stream_with_failure_mode sample successfully.
"""

# example/1_basic_features/stream/3_stream_config_query/README_en.md: "If the current Runtime library does not export
# all Stream Config APIs, the sample prints a skip message and exits normally"
SKIPPED = """\
[WARN]  Symbol aclrtCreateStreamConfigHandle is not exported by the current Runtime library.
[INFO]  [SKIP] Stream config query sample skipped because the current Runtime library does not export all stream config APIs.
[SUCCESS] Stream config query sample skipped because the current environment does not support stream config.
"""  # noqa: E501

# example/2_advanced_features/callback/2_callback_exception/README_en.md, "Sample Output"
CALLBACK = """\
[INFO]  Begin an easy task and an error task. The error task will trigger the exception callback.
[INFO]  Exception occurred, callback function.
[ERROR]  aclrtSynchronizeStream(stream_) returned error code ...
[INFO]  Thread exit
[INFO]  Run the callback_exception sample successfully.
"""


def test_a_sample_that_passed_gives_no_signal() -> None:
    for text in (FAILURE_MODE, SKIPPED, CALLBACK):
        sigs, _ = ingest_text(text)
        assert sigs == [], text
        assert may_recover(text.encode())
    assert "507035" not in excerpt_view(FAILURE_MODE)
    assert "not exported" not in excerpt_view(SKIPPED) and "does not support" not in excerpt_view(SKIPPED)
    assert "error code" not in excerpt_view(CALLBACK)
    assert recovered_in(FAILURE_MODE.splitlines()) == set(range(1, 13))


def test_its_runs_raise_no_alarm(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    for k, text in enumerate((FAILURE_MODE, SKIPPED, CALLBACK)):
        f = tmp_path / f"sample{k}.log"
        f.write_text(text)
        assert diagnose_logs(str(f), engine)["diagnosis"]["fault_class"] in ("unknown", None), text


def test_a_sample_that_failed_keeps_its_error() -> None:
    # CHECK_ERROR returned -1: no verdict, or run.sh's [FAILURE] line; the error still reads
    cut = FAILURE_MODE.splitlines()[:2]
    assert {s.kind for s in ingest_text("\n".join(cut) + "\n")[0]} == {"rt:507035"}
    failed = "\n".join(cut + ["[FAILURE] Stream failure mode sample failed.",
                              "[INFO]  Run the stream_with_failure_mode sample successfully."]) + "\n"
    assert {s.kind for s in ingest_text(failed)[0]} == {"rt:507035"}
    assert "507035" in excerpt_view(failed)


def test_a_device_error_beside_a_passed_sample_still_reads() -> None:
    # a CANN log line (one space, a module tag) is not the sample's own: the verdict does not cover it
    # (the line: mindspore-ai/docs tutorials/source_en/debug/error_analysis/cann_error_cases.md)
    plog = ("[ERROR] RUNTIME(150840,python):2021-09-14-09:26:01.014.622 [api_c.cc:581]150900 rtStreamSynchronize:"
            "ErrCode=507011, desc=[the model stream execute failed], InnerCode=0x7150050")
    cleanup = "[INFO]  Resource cleanup completed.\n"
    text = FAILURE_MODE.replace(cleanup, plog + "\n" + cleanup)
    kinds = {s.kind for s in ingest_text(text)[0]}
    assert kinds and "rt:507035" not in kinds
    assert "507011" in excerpt_view(text)
