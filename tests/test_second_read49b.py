"""Session 49's later merges, second read (review49b): real failures the new quiet rules hid.

A CANN runtime sample's verdict that it passed recovered every two-space ``[ERROR]  `` line up to 200 lines above it,
a failed run of another sample before it included, and run.sh's ``[SUCCESS] ...`` did so wherever it came; Keras'
progress bar with a ``nan`` loss beside an error-named metric, and an epoch's metric list with a ``nan`` field, were
no failing lines although the docstrings said a ``nan`` keeps them failing. Every log line is copied from the source
its comment names."""

from __future__ import annotations

from opsbrain.diagnosis.realtext import _has_error_word, excerpt_view
from opsbrain.ingest.readouts import quiet_field
from opsbrain.ingest.recovered import recovered_in
from opsbrain.ingest.text import ingest_text

# Ascend/samples#16 (resnet50_imagenet_classification on an Atlas 200 EP: the device did not open; its utils.h prints
# ``[ERROR]  `` with two spaces, as hicann/runtime's example/utils.h does)
FAILED_RUN = """\
[INFO]  acl init success
[ERROR]  acl set device 0 failed, errorCode = 507033
[ERROR]  sample init resource failed
[INFO]  end to destroy stream
[INFO]  end to destroy context
[ERROR]  reset device 0 failed, errorCode = 507007
[INFO]  end to reset device 0
[INFO]  end to finalize acl
"""
# hicann/runtime @681ef761 example/1_basic_features/stream/3_stream_config_query/run.sh: ``cmake -B build`` (CMake's
# configure output as it prints it) and ``cmake --build build -j`` before ``./build/main | tee output_msg.txt``
REBUILD = """\
-- The C compiler identification is GNU 7.3.0
-- The CXX compiler identification is GNU 7.3.0
-- Detecting C compiler ABI info
-- Detecting C compiler ABI info - done
-- Configuring done
-- Generating done
-- Build files have been written to: /home/runtime/example/1_basic_features/stream/3_stream_config_query/build
[100%] Built target main
"""
# the same commit's README_en.md "Sample Output" of example/1_basic_features/stream/1_stream_with_failure_mode
PASSED_RUN = """\
[INFO]  Assigning task without failure mode.
[ERROR]  Operation failed: aclrtSynchronizeStream(stream) returned error code 507035
[INFO]  Without failure mode, the result is 2.
[INFO]  Run the stream_with_failure_mode sample successfully.
"""
# example/1_basic_features/memory/0_h2h_memory_copy/run.sh's echo once source and destination agree
RUN_SH_SUCCESS = "[SUCCESS] Memory copy successfully. Values at source and destination are equal: 1\n"


def test_a_failed_sample_before_another_samples_success_keeps_its_errors() -> None:
    text = FAILED_RUN + REBUILD + PASSED_RUN
    kinds = {s.kind for s in ingest_text(text)[0]}
    assert {"rt:507033", "rt:507007"} <= kinds and "rt:507035" not in kinds, kinds
    assert "507033" in excerpt_view(text) and "507035" not in excerpt_view(text)
    assert recovered_in(text.splitlines()) == set(range(17, 21))


def test_run_shs_success_far_below_the_samples_lines_recovers_none() -> None:
    text = FAILED_RUN + REBUILD + RUN_SH_SUCCESS
    assert {"rt:507033", "rt:507007"} <= {s.kind for s in ingest_text(text)[0]}
    assert "507033" in excerpt_view(text)


# Keras' Progbar line (tensorflow r1.15 generic_utils.py ``Progbar.update``: `` - %s: %.4f`` per metric, ``nan`` as
# Python formats a NaN) with ``metrics=['mae']``, as the MLSP port's README prints it, at the step the loss turned NaN
NAN_BAR = "  32/1000 [..............................] - ETA: 2:31 - loss: nan - mean_absolute_error: 0.4415"
# pafnucy's train.py line 136 format (mindspore-ai/models @eab643f5 research/hpc/pafnucy/train.py) with a NaN loss
NAN_LIST = "epoch[3], train error: [nan], Validation error: [0.0004304781323298812], per_step_time: [12.3]"
NAN_LIST_2 = "epoch[3], train error: [0.0004304781323298812], Validation RMSE: [nan], per_step_time: [12.3]"


def test_a_nan_measurement_keeps_the_metrics_line_failing() -> None:
    for line in (NAN_BAR, NAN_LIST, NAN_LIST_2):
        assert not quiet_field(line, _has_error_word), line
    assert quiet_field(NAN_BAR.replace("nan", "0.3962"), _has_error_word)
    assert quiet_field(NAN_LIST_2.replace("[nan]", "[0.02]"), _has_error_word)
