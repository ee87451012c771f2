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

import pytest

from opsbrain.diagnosis.realtext import TextView

# https://github.com/Ascend/ModelZoo-TensorFlow/blob/20e52f0d3aec37e154aa17f50cd5ff48e77cbc90/TensorFlow/contrib/
# graph/NERF_ID2081_for_TensorFlow/loss%20perf_npu.log (a ModelArts NeRF training job that exits with 0)
TF_WARNING = ("2021-09-14 11:34:38.004116: W tensorflow/core/platform/profile_utils/cpu_utils.cc:98] Failed to find "
              "bogomips in /proc/cpuinfo; cannot determine CPU frequency")
# https://github.com/Ascend/ModelZoo-TensorFlow/blob/20e52f0d3aec37e154aa17f50cd5ff48e77cbc90/TensorFlow/contrib/cv/
# Non_Local_Net_ID0274_for_tensorflow/README.md (the NPU training log of a run that trained 20 epochs)
MA_WARNING = ("[Modelarts Service Log]2021-09-06 21:53:38,069 - WARNING - stdout log /var/log/batch-task/job299293a7/"
              "job-no-local-nets/stdout.log is not found")


@pytest.mark.parametrize(("line", "failing"), [
    (TF_WARNING, 0),  # before: 1 ("Failed", "cannot")
    (MA_WARNING, 0),  # before: 1 ("not found")
    (TF_WARNING.replace(": W ", ": E ", 1), 1),  # the same heads at error level still fail
    (MA_WARNING.replace(" - WARNING - ", " - ERROR - ", 1), 1),
    # review49: the level is the line's own, after its tags; not one a message quotes (a relayed record's)
    ("2021-09-06 21:53:38,071 - ERROR - worker: 2021-09-06 21:53:38,069 - WARNING - disk write failed", 1),
])
def test_a_warning_head_is_read_but_says_no_failure(line: str, failing: int) -> None:
    view = TextView()
    view(line, "x.log", 1)
    assert len(view.errors) == 1 and view.failing == failing
