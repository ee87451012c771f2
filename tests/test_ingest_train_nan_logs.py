"""A NaN loss or gradient norm as the trainers' own periodic log lines print it (session 44, tester44b): the
Hugging Face Trainer's metrics dict and Megatron's iteration line (MindSpeed keeps Megatron's ``training_log``).
Each line is copied from the public thread named beside it; the format is the trainer's own."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


NAN = [
    # LlamaFactory#5627 (Ascend 910B2C, DeepSpeed): transformers Trainer._maybe_log_save_evaluate logs
    # logs["grad_norm"], printed as the dict by its ProgressCallback
    "{'loss': 1.4596, 'grad_norm': nan, 'learning_rate': 4.552255167404752e-06, 'epoch': 0.66}",
    "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.549912997495027e-06, 'epoch': 0.66}",
    # bigscience-workshop/Megatron-DeepSpeed#396: Megatron training_log, ' grad norm: {:.3f} |'
    " iteration     5426/  250000 | consumed samples:        43408 | consumed tokens:     88899584 | elapsed time "
    "per iteration (ms): 4247.9 | learning rate: 2.999E-04 | global batch size:     8 | loss scale: 1.0 | grad norm: "
    "nan | actual seqlen:  2048 | number of skipped iterations:   0 | number of nan iterations:   0 | samples per "
    "second: 1.883 | TFLOPs: 78.36 |",
]

FINE = [
    # the same formats on healthy steps: a number, and Megatron's count of NaN iterations (0)
    "{'loss': 1.4596, 'grad_norm': 0.8123, 'learning_rate': 4.552255167404752e-06, 'epoch': 0.66}",
    # epfLLM/Megatron-LLM#11
    " iteration      122/  250000 | consumed samples:       124928 | elapsed time per iteration (ms): 86545.2 | "
    "learning rate: 9.150E-06 | global batch size:  1024 | lm loss: 2.504220E+00 | loss scale: 1.0 | grad norm: "
    "0.231 | number of skipped iterations:   0 | number of nan iterations:   0 |",
]


@pytest.mark.parametrize("line", NAN)
def test_trainer_nan_lines_read_as_nan(line: str) -> None:
    assert "train:nan" in kinds(line)


@pytest.mark.parametrize("line", FINE)
def test_trainer_healthy_lines_give_no_nan(line: str) -> None:
    assert "train:nan" not in kinds(line)
