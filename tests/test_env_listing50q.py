"""Environment listings pasted beside a log (session 50, tester50q): ``env`` output and the ``ENV Variables:`` section
of vllm-ascend's ``collect_env.py`` (``"{}={}".format(k, v)``, one variable a line) state the settings a job started
with; they are no fault (:data:`opsbrain.ingest.envlisting.ENV_ASSIGNMENT`). A ModelArts training job's ``env`` dump
(Ascend/ModelZoo-TensorFlow@a2c3332a TensorFlow/contrib/cv/FaceBoxes_ID1074_for_TensorFlow/models/run00/my_env.log)
read config_error 0.71 from its ``LD_LIBRARY_PATH`` (a directory ``seccomponent`` holds "ecc") and ``RANK_TABLE_FILE``
lines. An error that names the variable keeps its reading."""

from __future__ import annotations

import pytest

from opsbrain.ingest import ingest_text
from opsbrain.ingest.parsers import parse_line

# Ascend/ModelZoo-TensorFlow @a2c3332a .../FaceBoxes_ID1074_for_TensorFlow/models/run00/my_env.log (lines 1, 2, 35, 50)
MY_ENV = (
    "PYTHONUNBUFFERED=1\n"
    "LD_LIBRARY_PATH=/usr/local/seccomponent/lib:/home/ma-user/anaconda/lib:/usr/local/nvidia/lib:/usr/local/nvidia/"
    "lib64:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/lib:/usr/local/openmpi/lib:/usr/lib/aarch64-linux-gnu/hdf5/"
    "serial:/usr/local/Ascend/nnae/latest/fwkacllib/lib64:/usr/local/Ascend/driver/lib64/common:/usr/local/Ascend/"
    "driver/lib64/driver::/usr/local/seccomponent/lib/:/usr/local/seccomponent/lib/openssl/\n"
    "ASCEND_DEVICE_ID=0\n"
    "RANK_TABLE_FILE=/home/ma-user/rank_table/jobstart_hccl.json\n")
LD_LINE, RANK_LINE = MY_ENV.splitlines()[1], MY_ENV.splitlines()[3]

# the ENV Variables section of vllm-ascend's collect_env.py, as vllm-ascend#924 pasted it (its first lines)
COLLECT_ENV = ("ENV Variables:\n"
               "ASCEND_OPP_PATH=/usr/local/Ascend/ascend-toolkit/latest/opp\n"
               "ASCEND_AICPU_PATH=/usr/local/Ascend/ascend-toolkit/latest\n"
               "ATB_OPSRUNNER_KERNEL_CACHE_TYPE=3\n"
               "ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/latest\n")


@pytest.mark.parametrize("line", [LD_LINE, RANK_LINE, "export " + RANK_LINE])
def test_an_assignment_is_no_signal(line: str) -> None:
    assert parse_line(line) == []


def test_env_dump_reads_no_fault() -> None:
    assert ingest_text(MY_ENV)[0] == []
    assert ingest_text(COLLECT_ENV)[0] == []


@pytest.mark.parametrize(("line", "kind"), [
    # constructed guards (the forms of tests/test_tester40d.py and test_benign_tensorflow_cuda_probe.py): a launcher
    # that found the variable unset, a loader failure that prints the path it searched
    ("RuntimeError: the environment variable RANK_TABLE_FILE is not set, please set it", "cfg:"),
    ("[ERROR] libascend_hal.so: cannot open shared object file: No such file or directory; "
     "LD_LIBRARY_PATH: /usr/local/Ascend/driver/lib64", "cfg:env"),
    ("export RANK_TABLE_FILE=/home/ma-user/rank_table/jobstart_hccl.json # rank table not found", "cfg:ranktable"),
])
def test_a_line_about_the_variable_keeps_its_reading(line: str, kind: str) -> None:
    assert any(s.kind.startswith(kind) for s in parse_line(line))
