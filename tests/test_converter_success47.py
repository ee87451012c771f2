"""A MindSpore Lite conversion that succeeded is no fault, whatever its converter printed on the way (session 47).

``converter_lite`` tries the model readers in turn and logs each refusal at ERROR; it prints its own verdict,
``CONVERT RESULT SUCCESS:0``, only once the model was converted and saved (``std::cout << "CONVERT RESULT SUCCESS:" <<
status``, mindspore/lite/tools/converter/converter.cc), ``CONVERT RESULT FAILED:<code>`` otherwise. The run below is
mindspore-ai/mindspore#103's (https://github.com/mindspore-ai/mindspore/issues/103): the maintainer answered that the
model was converted and the errors can be ignored; opsbrain read it config_error 0.52 through the text fallback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.bundle import diagnose_bundle, scan_bundle
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.realtext import excerpt_view
from opsbrain.ingest.recovered import CONVERTER_SPAN, may_recover, recovered_in

# https://github.com/mindspore-ai/mindspore/issues/103 (the text, as posted)
CONVERTED = """\
root@7230313abe8a:~/mindspore/output/mindspore-lite-1.1.0-converter-linux-x64/converter# ./converter_lite --fmk=MINDIR --modelFile=../../../../mindspore_mnist/checkpoint_lenet-1_1875.mindir --outputFile=checkpoint_lenet-1_1875
WARNING: Logging before InitGoogleLogging() is written to STDERR
[ERROR] LITE(11206,converter_lite):2021-01-08-09:53:15.978.801 [mindspore/lite/tools/common/protobuf_utils.cc:94] ReadProtoFromBinaryFile] Parse ../../../../mindspore_mnist/checkpoint_lenet-1_1875.mindir failed.
[ERROR] LITE(11206,converter_lite):2021-01-08-09:53:15.979.004 [mindspore/lite/tools/anf_importer/import_from_mindir.cc:911] ReadOnnxFromBinary] Read onnx model file failed, which is not a matched onnx model
[WARNING] LITE(11206,converter_lite):2021-01-08-09:53:15.995.141 [mindspore/lite/tools/converter/legacy_optimizer/graph/tensor_name_pass.cc:39] Run] input tensor (id = 7) name is null
CONVERT RESULT SUCCESS:0
"""  # noqa: E501
ERRORS = {3, 4, 5}
FAILED = CONVERTED.replace("CONVERT RESULT SUCCESS:0", "CONVERT RESULT FAILED:-1 Common error code.")
# the same lines of a later process (a benchmark run after the conversion, built from the lines above)
BENCHMARK = CONVERTED + "".join(
    line.replace("11206,converter_lite", "11230,benchmark") + "\n" for line in CONVERTED.splitlines()[2:4])


def _class(path: Path, engine: Any) -> str | None:
    return (diagnose_logs(str(path), engine)["diagnosis"] or {}).get("fault_class")


def test_the_converters_errors_before_its_success_are_recovered() -> None:
    assert recovered_in(CONVERTED.splitlines()) == ERRORS
    assert may_recover(CONVERTED.encode())
    assert "ReadOnnxFromBinary" not in excerpt_view(CONVERTED)


def test_a_failed_conversion_keeps_its_errors() -> None:
    assert recovered_in(FAILED.splitlines()) == set()
    assert "ReadOnnxFromBinary" in excerpt_view(FAILED)


def test_a_later_processs_lines_are_not_touched() -> None:
    assert recovered_in(BENCHMARK.splitlines()) == ERRORS
    assert "11230,benchmark" in excerpt_view(BENCHMARK)


def test_lines_of_another_converter_process_or_beyond_the_span_stay() -> None:
    other = CONVERTED.replace("LITE(11206,converter_lite)", "LITE(9999,converter_lite)", 1)
    assert recovered_in(other.splitlines()) == ERRORS - {3}  # a new process's lines from line 4 on
    far = CONVERTED.replace("CONVERT RESULT", "\n" * CONVERTER_SPAN + "CONVERT RESULT")
    assert recovered_in(far.splitlines()) == ERRORS - {3, 4, 5}


def test_logs_reads_the_successful_run_as_no_fault(tmp_path: Path, engine: Any) -> None:
    f = tmp_path / "convert.log"
    f.write_text(CONVERTED)
    assert _class(f, engine) in ("unknown", None)


def test_logs_still_reads_the_failed_run(tmp_path: Path, engine: Any) -> None:
    f = tmp_path / "convert.log"
    f.write_text(FAILED)
    assert _class(f, engine) not in ("unknown", None)


def _bundle(root: Path, text: str) -> Path:
    log = root / "worker-0" / "converter.log"
    log.parent.mkdir(parents=True)
    log.write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("packed", [False, True])
def test_bundle_reads_the_successful_run_as_no_fault(tmp_path: Path, engine: Any, packed: bool) -> None:
    from opsbrain.bundle.layout import BundleParams

    params = BundleParams(hold_text_bytes=0) if packed else None  # a packed file's lines, read as a stream
    root = _bundle(tmp_path, CONVERTED)
    assert (diagnose_bundle(root, engine, params=params)["diagnosis"] or {}).get("fault_class") in ("unknown", None)
    assert {("worker-0/converter.log", n) for n in ERRORS} <= scan_bundle(root, params).recovered


def test_bundle_still_reads_the_failed_run(tmp_path: Path, engine: Any) -> None:
    root = _bundle(tmp_path, FAILED)
    assert (diagnose_bundle(root, engine)["diagnosis"] or {}).get("fault_class") not in ("unknown", None)
