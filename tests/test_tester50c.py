# ruff: noqa: E501 (a real traceback pasted as it was printed)
"""Session 50 (tester50c): a blind look at wrapped and cut-short tracebacks on Ascend projects. The wrappers read
well (Ray's ``RayTaskError(OutOfMemoryError)``, vLLM's engine-dead and worker-failed wrappers with the inner error
inlined); two misses were the distributed backend a job asked for that the install or the device does not have, which
read framework_error from the bare exception:

- PyTorch's ``Distributed package doesn't have NCCL built in`` (torch/distributed/distributed_c10d.py,
  ``_new_process_group_helper``: ``if not is_nccl_available(): raise RuntimeError(...)``; ``XCCL`` alike). An Ascend
  host runs the CPU build of torch with torch_npu, which has no NCCL: the job must ask for ``hccl``
  (deepspeedai/DeepSpeed#7312, training on a Huawei NPU). ``cfg:env``.
- accelerate's ``Your assigned backend <b> is not avaliable, please use <b2>`` (src/accelerate/state.py,
  ``PartialState.__init__``: the backend given differs from the one ``_prepare_backend`` picks for the device, hccl on
  an NPU; modelscope/ms-swift#1020, NPU fine-tuning; older releases printed the braces unformatted). ``cfg:env``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

BACKEND_LINES = [
    # https://github.com/deepspeedai/DeepSpeed/issues/7312 (as printed before the traceback)
    "RuntimeError: Distributed package doesn't have NCCL built in",
    # https://github.com/modelscope/ms-swift/issues/1020 (accelerate's message, braces unformatted)
    "ValueError: Your assigned backend {original_backend} is not avaliable, please use {backend}",
    # accelerate's current f-string, as it prints on an NPU host asked for nccl
    "ValueError: Your assigned backend nccl is not avaliable, please use hccl",
]


@pytest.mark.parametrize("line", BACKEND_LINES)
def test_a_distributed_backend_the_install_lacks_is_a_setting(line: str) -> None:
    assert "cfg:env" in [s.kind for s in parse_line(line)]


@pytest.mark.parametrize("line", [
    # a program's own fallback message (it goes on with gloo) and a sentence about the check: no failure stated
    "[!] Distributed package doesn't have NCCL built in ... initializing with GLOO (sub-optimal)",
    "print('NCCL built in?', torch.distributed.is_nccl_available())",
])
def test_other_mentions_are_not_read(line: str) -> None:
    assert "cfg:env" not in [s.kind for s in parse_line(line)]


# DeepSpeed#7312 prints the exception, then the traceback of the same failure (as pasted, cut before its end)
NCCL_EXCERPT = """RuntimeError: Distributed package doesn't have NCCL built in
[2025-05-26 13:54:18,696] [INFO] [comm.py:637:init_distributed] cdb=None
Traceback (most recent call last):
  File "/home/gq/crossformer_qwen7b_llava/start_train.py", line 62, in <module>
    start_train()
  File "/home/gq/crossformer_qwen7b_llava/start_train.py", line 56, in start_train
    train()
  File "/home/gq/crossformer_qwen7b_llava/llava_qwen7b_module/llava/train/train.py", line 981, in train
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()
  File "/usr/local/python3.10.13/lib/python3.10/site-packages/transformers/hf_argparser.py", line 338, in parse_args_into_dataclasses
    obj = dtype(**inputs)
  File "<string>", line 136, in __init__
  File "/usr/local/python3.10.13/lib/python3.10/site-packages/transformers/training_args.py", line 1483, in __post_init__
    and (self.device.type != "cuda")
  File "/usr/local/python3.10.13/lib/python3.10/site-packages/transformers/training_args.py", line 1921, in device
    return self._setup_devices
  File "/usr/local/python3.10.13/lib/python3.10/site-packages/transformers/utils/generic.py", line 54, in __get__
    cached = self.fget(obj)
"""


@pytest.mark.parametrize("text", [NCCL_EXCERPT, BACKEND_LINES[1] + "\n"])
def test_the_lines_read_as_a_configuration_error(tmp_path: Path, engine: Any, text: str) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "train.log"
    f.write_text(text)
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert d["fault_class"] == "config_error"
