"""Lines of training and inference logs Ascend model-zoo repositories commit beside their code (session 49,
tester49k): runs that went well, whose words read like a failure.

The TBE compile's retry notice. When a kernel's debug compile (``-O0 -g``, asked by ``op_debug_config`` /
``tbe_debug_level``) fails, the operator compiler prints ``O0 mode fails to be compiled, the O2 mode is used``, swaps
``-O0`` for ``-O2``, drops ``-g`` and compiles again; a failure of that retry is returned as the compile's own failure
(mirror-cann/asc-devkit @82b89a15 tools/build/asc_op_compile_base/common/ccec.py ``switching_compilation_mode`` and
asc_op_compiler/ascendc_common_utility.py ``run_cmd_ascendc``). CANN 5.x prints it as ``[WARNING] TBE:...
[cce_api_pass.cc:181]``; the FCN port's ModelArts run (Ascend/ModelZoo-TensorFlow,
TensorFlow/contrib/cv/FCN_ID1610_for_TensorFlow/Readme.md) trains on to step 3000 after it and read
framework_error 0.57 from ``op:compile``.

A metric named for an error, with a real number. Keras' progress bar prints ``current/target [====>...]`` and then
`` - name: value`` for each metric, ``%.4f`` or ``%.4e`` (tensorflow/tensorflow r1.15
tensorflow/python/keras/utils/generic_utils.py ``Progbar.update``); ``metrics=['mae']`` is logged as
``mean_absolute_error``. The MLSP port's README quotes its NPU training this way (Ascend/ModelZoo-TensorFlow
TensorFlow/contrib/cv/MLSP_ID1295_for_TensorFlow/README.md) and read framework_error 0.54 through the text fallback.
The SparseNet ACL port reports its top-1 error as ``OM-Top1-err: 0.0643`` (ACL_TensorFlow/contrib/cv/
SparseNet_ID1616_for_ACL/README.md): a hyphen-joined name ending in its error noun, with a real number, is the size of
an error, as ``l2_error: 0.0043`` is (tests/test_metric_error49c.py); it read config_error 0.49."""

from __future__ import annotations

import pytest

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# Ascend/ModelZoo-TensorFlow @a2c3332a TensorFlow/contrib/cv/FCN_ID1610_for_TensorFlow/Readme.md (line 261)
TBE_RETRY = "[WARNING] TBE:2021-12-10-18:29:08 [cce_api_pass.cc:181] O0 mode fails to be compiled, the O2 mode is used"
# what the newer compiler prints, a bare print() (asc-devkit ccec.py)
TBE_RETRY_BARE = "O0 mode fails to be compiled, the O2 mode is used"
# a compile that failed stays one (vllm-omni#890, tests/test_ingest_real8.py)
COMPILE_FAILED = "Compile op[trans_Cast_2,] failed, build op model failed, result = 500002"

# Ascend/ModelZoo-TensorFlow @a2c3332a TensorFlow/contrib/cv/MLSP_ID1295_for_TensorFlow/README.md (lines 238-239)
PROGBAR = (
    "1747/1748 [============================>.] - ETA: 0s - loss: 0.3155 - mean_absolute_error: 0.4415 - "
    "plcc_tf: 0.6929",
    "1748/1748 [==============================] - 1401s 801ms/step - loss: 0.3155 - mean_absolute_error: 0.4415 - "
    "plcc_tf: 0.6929 - val_loss: 0.2507 - val_mean_absolute_error: 0.3963 - val_plcc_tf: 0.7538",
)
# Ascend/ModelZoo-TensorFlow @a2c3332a "ACL_TensorFlow/contrib/cv/ SparseNet_ID1616_for_ACL/README.md" (lines 96-98)
TOP1_ERR = ("OM-Top1-err: 0.0643", "GPU-Top1-err: 0.050", "NPU-Top1-err: 0.048")


@pytest.mark.parametrize("line", [TBE_RETRY, TBE_RETRY_BARE])
def test_the_tbe_retry_notice_is_benign(line: str) -> None:
    assert BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] == []
    assert view_of(line).failing == 0


def test_a_failed_compile_beside_the_notice_still_reads() -> None:
    assert not BENIGN.search(COMPILE_FAILED)
    assert [s.kind for s in parse_line(COMPILE_FAILED)] == ["rt:500002"]
    assert view_of([TBE_RETRY, COMPILE_FAILED]).failing == 1


@pytest.mark.parametrize("line", PROGBAR + TOP1_ERR)
def test_an_error_metric_with_a_real_value_is_no_failing_line(line: str) -> None:
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", [
    "1748/1748 [==============================] - 1401s 801ms/step - loss: nan - mean_absolute_error: nan",
    "1/390 [..............................] - ETA: 2:00 - loss: 0.1 - RuntimeError: device lost",
    "OM-Top1-err: 3",
    "Device-Error: link down",
])
def test_a_nan_a_count_or_a_failure_in_such_a_line_still_counts(line: str) -> None:
    assert view_of(line).failing == 1
