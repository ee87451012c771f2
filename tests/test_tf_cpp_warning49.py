"""TensorFlow's C++ log head and Python logging's `` - WARNING - `` field state a warning to the text fallback
(session 49, tester49b).

TensorFlow 1.x writes each C++ log line as ``"%s.%06d: %c %s:%d] %s\\n"`` with the level letter from ``"IWEF"``
(tensorflow/core/platform/default/logging.cc, ``LogMessage::GenerateLogMessage``; the TF adapter of the Ascend
TensorFlow 1.15 ports logs through it: ``W tf_adapter/util/session_manager.cc:129] [GEOP] ...``), and Python
logging's ``'%(asctime)s - %(levelname)s - %(message)s'`` puts the level between `` - `` (the ModelArts job
launcher's lines). The fallback's :data:`~opsbrain.diagnosis.realtext.WARNING_STATED` knew neither shape, so
TensorFlow's harmless ``W ... cpu_utils.cc:98] Failed to find bogomips in /proc/cpuinfo; cannot determine CPU
frequency`` on an aarch64 host, printed by every healthy TF1.15 run on an Ascend 910 server, counted as a failing line
and two healthy ModelZoo training logs read config_error 0.60. The same heads at ERROR level still fail.
"""

from __future__ import annotations

from opsbrain.diagnosis.realtext import TextView

# https://github.com/Ascend/ModelZoo-TensorFlow/blob/20e52f0d3aec37e154aa17f50cd5ff48e77cbc90/TensorFlow/contrib/
# graph/NERF_ID2081_for_TensorFlow/loss%20perf_npu.log (a ModelArts NeRF training job that exits with 0)
TF_WARNING = ("2021-09-14 11:34:38.004116: W tensorflow/core/platform/profile_utils/cpu_utils.cc:98] Failed to find "
              "bogomips in /proc/cpuinfo; cannot determine CPU frequency")
# https://github.com/Ascend/ModelZoo-TensorFlow/blob/20e52f0d3aec37e154aa17f50cd5ff48e77cbc90/TensorFlow/contrib/cv/
# Non_Local_Net_ID0274_for_tensorflow/README.md (the NPU training log of a run that trained 20 epochs)
MA_WARNING = ("[Modelarts Service Log]2021-09-06 21:53:38,069 - WARNING - stdout log /var/log/batch-task/job299293a7/"
              "job-no-local-nets/stdout.log is not found")


def _view(*lines: str) -> TextView:
    v = TextView()
    for n, line in enumerate(lines, 1):
        v(line, "x.log", n)
    return v


def test_a_tensorflow_cpp_warning_is_no_failing_line() -> None:
    v = _view(TF_WARNING)
    assert len(v.errors) == 1 and v.failing == 0  # before: 1 ("Failed", "cannot")


def test_a_python_logging_warning_field_is_no_failing_line() -> None:
    v = _view(MA_WARNING)
    assert len(v.errors) == 1 and v.failing == 0  # before: 1 ("not found")


def test_the_same_heads_at_error_level_still_fail() -> None:
    assert _view(TF_WARNING.replace(": W ", ": E ", 1)).failing == 1
    assert _view(MA_WARNING.replace(" - WARNING - ", " - ERROR - ", 1)).failing == 1
