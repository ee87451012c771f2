"""XLA's stream-executor plugin registration notice is no fault (session 47, tester47c).

TensorFlow/JAX builds register their cuDNN, cuFFT and cuBLAS factories at import; when a factory for that plugin id
is already in the registry, ``PluginRegistry::RegisterFactoryInternal`` returns kAlreadyExists with "Attempting to
register factory for plugin %s when one has already been registered" and the registered factory stays in use
(https://github.com/openxla/xla/blob/0dc513b903fadfe4f214402fa9c63774d8f4846c/xla/stream_executor/plugin_registry.cc);
the caller logs it at ERROR level as "Unable to register cuDNN factory: ..." (tensorflow/tensorflow#62075,
openxla/xla#20803). A YOLOv10x DDP start (ultralytics#21765) printed it and read config_error 0.47 through the text
fallback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.realtext import excerpt_view
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line

# https://github.com/ultralytics/ultralytics/issues/21765 (the start of a YOLOv10x DDP run on two T4s)
ULTRALYTICS = """\
YOLOv10x summary: 688 layers, 31,662,584 parameters, 31,662,568 gradients, 171.0 GFLOPs

Transferred 1123/1135 items from pretrained weights
DDP: debug command /usr/bin/python3 -m torch.distributed.run --nproc_per_node 2 --master_port 56941 /root/.config/Ultralytics/DDP/_temp_fty7ostl138315305876240.py
Ultralytics 8.3.75 \U0001f680 Python-3.11.11 torch-2.5.1+cu124 CUDA:0 (Tesla T4, 15095MiB)
                                                       CUDA:1 (Tesla T4, 15095MiB)
WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
E0000 00:00:1746439692.174177     132 cuda_dnn.cc:8310] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered
"""  # noqa: E501

# https://github.com/openxla/xla/issues/20803 (copied from tensorflow/tensorflow#62075): the three twins as TF 2.14
# prints them
TWINS = (
    "2023-10-09 13:36:23.355516: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:9342] Unable to register "
    "cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
    "2023-10-09 13:36:23.355674: E tensorflow/compiler/xla/stream_executor/cuda/cuda_fft.cc:609] Unable to register "
    "cuFFT factory: Attempting to register factory for plugin cuFFT when one has already been registered",
    "2023-10-09 13:36:23.355933: E tensorflow/compiler/xla/stream_executor/cuda/cuda_blas.cc:1518] Unable to register "
    "cuBLAS factory: Attempting to register factory for plugin cuBLAS when one has already been registered",
)


def test_the_registration_notice_is_harmless() -> None:
    for line in TWINS:
        assert BENIGN.search(line), line
        assert parse_line(line) == [], line
        assert "register" not in excerpt_view(line + "\n")


def test_a_yolo_ddp_start_that_prints_it_raises_no_alarm(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "paste.log"
    f.write_text(ULTRALYTICS)
    assert diagnose_logs(str(f), engine)["diagnosis"]["fault_class"] in ("unknown", None)


def test_another_registration_failure_is_not_taken_for_it() -> None:
    # the same log call with a status other than kAlreadyExists (constructed from the notice's form) stays visible
    line = ("E0000 00:00:1746439692.174177     132 cuda_dnn.cc:8310] Unable to register cuDNN factory: INTERNAL: "
            "could not load the cuDNN library")
    assert not BENIGN.search(line)
    assert "Unable to register cuDNN factory" in excerpt_view(line + "\n")
