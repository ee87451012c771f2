"""A launch command's long options whose names hold an error word (session 50, tester50f): an option, not a failure.

ms-swift's ``--ignore_args_error`` ("Used for compatibility with Jupyter Notebook. Default is False.",
modelscope/ms-swift docs/source_en/Instruction/Command-line-parameters.md) and Megatron's
``--distributed-timeout-minutes`` (``help='Timeout minutes for torch.distributed.'``, NVIDIA/Megatron-LM
megatron/training/arguments.py ``_add_distributed_args``) are option names: GNU long options, ``--name`` or
``--name=value`` (GNU C Library manual, "Program Argument Syntax Conventions",
https://www.gnu.org/software/libc/manual/html_node/Argument-Syntax.html; Python's argparse reads the same). A user who
pastes the command that started a healthy run (ms-swift#8127: a speed comparison of a Megatron SFT on 16 NPUs) gave
the text fallback a "failing" line, and the excerpt read framework_error 0.60."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.textviews import view_of

# https://github.com/modelscope/ms-swift/issues/8127 (the reporter's command and its measured step time)
SWIFT = " ".join([
    "NPROC_PER_NODE=16 megatron sft    ", "--ignore_args_error true    ", "--model /model/Qwen3-8B    ",
    "--save_safetensors true    ", "--dataset '/datasets/AI-ModelScope/alpaca-gpt4-data-en#500'    ",
    "--train_type full    ", "--tensor_model_parallel_size 2    ", "--pipeline_model_parallel_size 2    ",
    "--sequence_parallel true    ", "--micro_batch_size 2    ", "--global_batch_size 512    ", "--finetune true    ",
    "--cross_entropy_loss_fusion true    ", "--lr 1e-4    ", "--lr_warmup_fraction 0.05    ", "--min_lr 1e-5    ",
    "--max_length 4096    ", "--no_save_optim true    ", "--no_save_rng true    ", "--dataset_num_proc 4    ",
    "--log_throughput --log_interval 1    ", "--use_rotary_position_embeddings    ", "--train_iters 10000"])
STEP = "step time：16876.9ms, tps 7766.355196"
# a Megatron launch as its example scripts write it, one option a line (NVIDIA/Megatron-LM
# examples/gpt3/train_gpt3_175b_distributed.sh and MindSpeed-LLM's examples: ``--distributed-timeout-minutes``)
MEGATRON = "    --distributed-timeout-minutes 60 \\"


@pytest.mark.parametrize("line", [SWIFT, MEGATRON, "--ignore_args_error true", "--ignore-errors"])
def test_an_error_word_in_an_option_name_is_no_failing_line(line: str) -> None:
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", [
    "swift sft: error: unrecognized arguments: --ignore_arg_error",
    "--model /model/Qwen3-8B failed to load: RuntimeError: no such file",
    "pretrain_gpt.py: error: argument --distributed-timeout-minutes: invalid int value: 'abc'",
    "--- timeout waiting for rank 3 ---",
])
def test_an_error_word_outside_the_option_names_still_counts(line: str) -> None:
    assert view_of(line).failing == 1


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_the_healthy_command_and_step_time_read_no_fault(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "swift.log"
    log.write_text(SWIFT + "\n\n" + STEP + "\n", encoding="utf-8")
    assert diagnose_logs(str(log), engine)["diagnosis"]["fault_class"] == "unknown"
