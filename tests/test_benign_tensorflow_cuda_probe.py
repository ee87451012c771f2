"""TensorFlow's CUDA probe on a host with no NVIDIA driver is no fault of an Ascend job (session 46, tester46i).

TensorFlow 1.15 (the version the TF Adapter, npu_bridge, runs on) looks for CUDA at session start on every host: the
dynamic loader warns it ``Could not load dynamic library 'libcuda.so.1'`` (stream_executor/platform/default/
dso_loader.cc), the CUDA driver's ``InternalInit`` logs ``failed call to cuInit: ...`` (stream_executor/cuda/
cuda_driver.cc) and then ``Diagnostician::LogDiagnosticInformation`` says at INFO level that the ``kernel driver does
not appear to be running on this host (HOST): /proc/driver/nvidia/version does not exist``
(https://github.com/tensorflow/tensorflow/blob/0f4829a13fc9669ac67c4fc69668f67a24e9692d/tensorflow/stream_executor/
cuda/cuda_diagnostics.cc). The graph then runs on the NPU: the committed NPU training logs of Ascend
ModelZoo-TensorFlow ports print the three lines and train on (CPC_ID0921 cpc_npu.log, PCN_ID0997 run.log); both read
config_error 0.49 (``cfg:env`` and ``drv:api_error``). The TF Adapter's own start warning that JOB_ID is unset
(tf_adapter/util/ge_plugin.cc ``GePlugin::Init``: it warns, leaves the job id empty and initialises GE;
https://github.com/Ascend/tensorflow/blob/027d64c832dcf081de238fe93dfc8fc1e8a92c7a/tf_adapter/util/ge_plugin.cc)
is no missing setting either: PCN_ID0997's run read config_error 0.78 from it once the CUDA lines were harmless.
"""

from __future__ import annotations

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line

# https://github.com/Ascend/ModelZoo-TensorFlow/blob/0963ef56a18aa5bbe188b6c79a7c95d46acbbff7/TensorFlow/contrib/cv/
# CPC_ID0921_for_TensorFlow/cpc_npu.log (a healthy TF-adapter run on the NPU)
PROBE = (
    "2022-08-04 21:24:46.399295: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not load "
    "dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or "
    "directory; LD_LIBRARY_PATH: /usr/local/Ascend/ascend-toolkit/latest/fwkacllib/lib64:/usr/lib:/usr/local/Ascend/"
    "nnrt/latest/acllib/lib64/:/usr/local/python3.7.5/lib:",
    "2022-08-04 21:24:46.399314: E tensorflow/stream_executor/cuda/cuda_driver.cc:318] failed call to cuInit: UNKNOWN "
    "ERROR (303)",
    "2022-08-04 21:24:46.399334: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:156] kernel driver does not "
    "appear to be running on this host (ubuntu): /proc/driver/nvidia/version does not exist",
)

# https://github.com/Ascend/ModelZoo-TensorFlow/blob/fc79459574cfa298b2b009f589b7b65223eb5d0f/TensorFlow/contrib/cv/
# PCN_ID0997_for_TensorFlow/run.log (a healthy TF-adapter run on the NPU)
JOB_ID = ("2022-05-23 09:10:14.901840: W /home/phisik3/jenkins/workspace/work_code/tmp/host-prefix/src/host-build/asl/"
          "tfadaptor/CMakeFiles/tf_adapter.dir/compiler_depend.ts:124] [GePlugin] can not find Environment variable : "
          "JOB_ID")


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_tensorflow_cuda_probe_gives_no_signal() -> None:
    for line in PROBE + (JOB_ID,):
        assert BENIGN.search(line), line
        assert kinds(line) == [], line


def test_a_missing_ascend_library_keeps_its_reading() -> None:
    # the same loader failing on a library the NPU job needs is no CUDA probe (constructed from the probe's form)
    line = ("2022-08-04 21:24:46.399295: W tensorflow/stream_executor/platform/default/dso_loader.cc:55] Could not "
            "load dynamic library 'libascendcl.so'; dlerror: libascendcl.so: cannot open shared object file: No such "
            "file or directory")
    assert not BENIGN.search(line)
    assert "cfg:env" in kinds(line)


def test_ge_plugin_rank_id_error_keeps_its_reading() -> None:
    # GePlugin::Init's error when RANK_TABLE_FILE is set but neither RANK_ID nor POD_NAME is (ge_plugin.cc, above)
    line = "[GePlugin] Can't find rank_id or pod_name in env."
    assert not BENIGN.search(line)
