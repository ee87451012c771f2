"""Session 42, blind look tester42b (inference serving on Ascend): a launcher's check refusing a command-line
option's value is the command line the job was started with (``cfg:env``), not the program."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


def test_an_option_outside_its_range_is_the_command_line() -> None:
    # https://github.com/gpustack/gpustack/issues/4132 (gpustack/worker/backends/ascend_mindie.py raises
    # argparse.ArgumentTypeError("--max-input-token-len must be in the range (0, --max-seq-len]"))
    line = ("2026-01-05 08:55:01.904629+08:00 - gpustack.scheduler.evaluator - ERROR - Error evaluating model "
            "Deepseek-Plus: --max-input-token-len must be in the range (0, --max-seq-len]")
    assert "cfg:env" in kinds(line)


@pytest.mark.parametrize("line", [
    # CPython Lib/argparse.py: ArgumentError.__str__ "argument %(argument_name)s: %(message)s" with _get_value's
    # "invalid %(type)s value: %(value)r", _check_value's "invalid choice: ..." and _match_argument's
    # "expected one argument"; parse_known_args' "the following arguments are required: %s"
    "api_server.py: error: argument --max-model-len: invalid int value: '8k'",
    "vllm serve: error: argument --dtype: invalid choice: 'fp8x' (choose from 'auto', 'half', 'float16')",
    "run.py: error: argument -p/--port: expected one argument",
    "launch.py: error: the following arguments are required: --model-path",
    # a positional argument is named by its metavar or dest, a sub-command's by its choices (argparse.py
    # _get_action_name; session 43: before, only an option's name, "-...", was read)
    "train.py: error: the following arguments are required: config",
    "train.py: error: the following arguments are required: config_file, --data-path",
    "cli.py: error: the following arguments are required: {train,eval}",
    "train.py: error: argument mode: invalid choice: 'tune' (choose from 'train', 'eval')",
])
def test_argparse_refusing_a_value_is_the_command_line(line: str) -> None:
    assert "cfg:env" in kinds(line)


@pytest.mark.parametrize("line", [
    # a help text that states a constraint is no refusal, nor the same check logged as a warning
    "  --max-prefill-batch-size   During prefilling stage, the maximum requests can be batched, which must be less",
    "[WARNING] --npu-memory-fraction must be in the range (0, 1], using 0.9",
])
def test_a_stated_constraint_is_no_refusal(line: str) -> None:
    assert "cfg:env" not in kinds(line)
