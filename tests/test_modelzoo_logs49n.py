"""Lines of the logs Ascend model-zoo repositories commit beside their code, part 2 (session 49, tester49n): runs
that went well, whose words read like a failure.

The PyTorch migration tool's analysis notes. ``ms_fmk_transplt`` (msFmkTransplt, CANN toolkit
tools/ms_fmk_transplt; "PyTorch GPU2Ascend") reads a GPU training script's source and writes what it changed and
which APIs it could not map to ``msFmkTranspltlog.txt`` (the "脚本迁移过程日志文件" of the migration guide, beside
``unsupported_op.xlsx`` / ``unsupported_api.csv``), then ends with ``MsFmkTransplt run success, welcome to the next
use.``. Its per-API notes name a line range of the analysed script: ``[WARNING] torch.nn.PReLU in line 68 ~ 68 is not
supported`` (2021), ``[WARNING] line: 55 ~ 55  Operation Type: UNSUPPORTED  Message: torch.manual_seed is not
supported now!`` (late 2021), with ``[Progress: 20.00%]`` after the level (2022). Ascend/ModelZoo-PyTorch commits the
log beside ten ported models; three read framework_error 0.58-0.60 from ``op:unsupported``.

MindX SDK's post-processing defaults. ``PostProcessBase::LoadConfigData`` logs ``Get key "labelPath" failed. No
postprocess label will be read.`` (and the same for a config not given) as a warning and returns ``APP_ERR_OK``;
``TextObjectPostProcessBase::Init`` logs ``Fail to read CHECK_MODEL_FLAG from config, default is true`` after the
error text of the failed lookup and returns ``APP_ERR_OK`` (Ascend/VisionSDK @ad53ae41 / @86dc823b
mxBase/src/mxbase/module/Infer/PostProcess/PostProcessBases/PostProcessBase.cpp and TextObjectPostProcessBase.cpp).
The EAST port's SDK inference (mindspore-ai/models research/cv/east/infer/README_CN.md) prints both and then its boxes;
it read config_error 0.49 through the text fallback.

An epoch's regression metrics named for an error. Pafnucy's training logs ``epoch[%d], train error: [%s],
Validation error: [%s], Validation RMSE: [%s], per_step_time: [%s]`` with the mean squared errors (mindspore-ai/models
@eab643f5 research/hpc/pafnucy/train.py line 136); its README quotes two such lines as the loss to expect and they read
config_error 0.35."""

from __future__ import annotations

import pytest

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# Ascend/ModelZoo-PyTorch @6a2804a3, msFmkTranspltlog.txt of PyTorch/dev/cv/image_classification/
# AdaFM-Net_ID1101_for_PyTorch (line 110), Keyword-MLP_ID2441_for_PyTorch (lines 8, 77) and
# PyTorch/contrib/others/movielens_sequence_ID2897_for_PyTorch (lines 36, 55)
TRANSPLT_NOTES = (
    "2021-07-07 05:54:34 [WARNING] torch.nn.ReflectionPad2d in line 81 ~ 81 is not supported",
    "2021-12-21 09:04:40 [WARNING] line: 74 ~ 74         Operation Type: UNSUPPORTED         Message: Please confirm "
    "that the parameter 'map_location' of 'torch.load' is set to NPU device.",
    "2021-12-21 09:04:44 [WARNING] line: 55 ~ 55         Operation Type: UNSUPPORTED         Message: "
    "torch.manual_seed is not supported now!",
    "2022-10-31 15:40:05 [WARNING] [Progress: 20.00%]  line: 71 ~ 71         Operation Type: UNSUPPORTED         "
    "Message: torch.cuda.manual_seed is not supported now!",
    "2022-10-31 15:40:10 [WARNING] [Progress: 30.77%]  line: 100 ~ 101       Operation Type: UNSUPPORTED         "
    "Message: Only constant mode is supported.",
)
# a kernel that did not implement the case at run time (PaddleSpeech#4058; tests/test_ingest_framework_messages.py)
RUNTIME_UNSUPPORTED = ('(Unimplemented) npu npu only support mode=constant right now,but received mode is reflect . '
                       '[Hint: Expected mode == "constant", but received mode:reflect != "constant":constant.] (at /p')

# mindspore-ai/models @eab643f5 research/cv/east/infer/README_CN.md (lines 156-157)
SDK_DEFAULTS = (
    'W1111 02:23:48.410840 100187 PostProcessBase.cpp:113] Get key "labelPath" failed. No postprocess label will be '
    'read.',
    "W1111 02:23:48.411120 100187 TextObjectPostProcessBase.cpp:36] [1016][Object, file or other resource doesn't "
    "exist] Fail to read CHECK_MODEL_FLAG from config, default is true",
)
# the same function's error when a label file is given and cannot be read (PostProcessBase.cpp LoadConfigData's
# LogError text; the glog head is constructed like the lines above)
SDK_LABELS_FAILED = ('E1111 02:23:48.410840 100187 PostProcessBase.cpp:108] LoadLabels failed. Please check either '
                     '"labelPath" is set correctly.')

# mindspore-ai/models @eab643f5 research/hpc/pafnucy/README.md (lines 228-229)
PAFNUCY = (
    "epoch[0], train error: [0.0004304781323298812], Validation error: [2.4519902387857444], Validation RMSE: "
    "[1.5658832136483694]",
    "epoch[1], train error: [0.001452913973480463], Validation error: [2.4301812992095946], Validation RMSE: "
    "[1.5589038774759638]",
)


@pytest.mark.parametrize("line", TRANSPLT_NOTES)
def test_the_migration_tools_analysis_notes_are_benign(line: str) -> None:
    assert BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] == []
    assert view_of(line).failing == 0


def test_an_unsupported_kernel_beside_the_notes_still_reads() -> None:
    assert not BENIGN.search(RUNTIME_UNSUPPORTED)
    kinds = [s.kind for line in (*TRANSPLT_NOTES, RUNTIME_UNSUPPORTED) for s in parse_line(line)]
    assert kinds == ["op:unsupported"]  # the run-time line's, none of the notes'


@pytest.mark.parametrize("line", [
    # the note's words in a raised error: no line range of a script, no Operation Type
    "RuntimeError: torch.nn.ReflectionPad2d is not supported",
    "[ERROR] line: 74 ~ 74 Operation Type: UNSUPPORTED Message: torch.load is not supported now!",
])
def test_the_notes_words_elsewhere_still_read(line: str) -> None:
    assert not BENIGN.search(line)
    assert "op:unsupported" in [s.kind for s in parse_line(line)]


@pytest.mark.parametrize("line", SDK_DEFAULTS)
def test_the_sdk_post_processing_defaults_are_benign(line: str) -> None:
    assert BENIGN.search(line)
    assert view_of(line).failing == 0


def test_a_label_file_that_failed_to_load_still_reads() -> None:
    assert not BENIGN.search(SDK_LABELS_FAILED)
    assert view_of([*SDK_DEFAULTS, SDK_LABELS_FAILED]).failing == 1


@pytest.mark.parametrize("line", PAFNUCY)
def test_an_epochs_error_metrics_with_real_values_are_no_failing_line(line: str) -> None:
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", [
    "epoch[7], train error: [nan], Validation error: [nan], Validation RMSE: [nan]",
    "epoch[0], train error: [0.0004304781323298812], RuntimeError: Run task for graph failed",
    "epoch[0], train error: 3, Validation error: [2.4519902387857444]",
    "epoch[0], train error: [0.0004], Validation error: connection reset by peer",
])
def test_a_nan_a_count_or_a_failure_in_such_a_line_still_counts(line: str) -> None:
    assert view_of(line).failing == 1
