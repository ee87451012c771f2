"""Command lines a program refuses (session 39, a blind look at framework and serving threads): a compiler without
the chip's target, a launcher's parser refusing arguments. Both are what was installed or how the job was started,
not the program's logic."""

from __future__ import annotations

import io

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


@pytest.mark.parametrize("line", [
    # https://github.com/vllm-project/vllm-ascend/issues/7423 (maintainer: the main branch supports 310P3)
    "(EngineCore_DP0 pid=301) bishengir-compile: for the --target option: Cannot find option named 'Ascend310P3'!",
    # https://github.com/sgl-project/sglang/issues/16360
    "bishengir-compile: for the --target option: Cannot find option named 'Ascend910B4-1'!",
])
def test_a_compiler_without_the_chips_target_is_the_installed_versions(line: str) -> None:
    assert "cfg:version" in kinds(line)


def test_another_refused_option_value_is_the_command_line() -> None:
    # LLVM's option parser (llvm/include/llvm/Support/CommandLine.h, parser<DataType>::parse) on another option
    got = kinds("llc: for the --regalloc option: Cannot find option named 'linearscan'!")
    assert "cfg:env" in got and "cfg:version" not in got


@pytest.mark.parametrize("line", [
    # https://github.com/modelscope/ms-swift/issues/8115 (swift/llm/base.py _parse_args)
    "[rank4]: ValueError: remaining_argv: ['--use_fused_rmsnorm', '--use_fused_rotary_pos_emb', '--use_fused_swiglu', "
    "'--use_rotary_position_embeddings']",
    # Python's argparse (Lib/argparse.py parse_args) and transformers' HfArgumentParser (hf_argparser.py)
    "train.py: error: unrecognized arguments: --lora-r 8",
    "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--max_prompt_length', '512']",
])
def test_refused_arguments_are_the_command_line(line: str) -> None:
    assert "cfg:env" in kinds(line)


def test_refused_arguments_logged_as_a_warning_are_no_fault() -> None:
    # ms-swift with --ignore_args_error logs the same text at WARNING and goes on
    assert "cfg:env" not in kinds("[WARNING:swift] remaining_argv: ['--use_fused_rmsnorm']")


@pytest.mark.parametrize("text", [
    # https://github.com/modelscope/ms-swift/issues/8115
    ("[rank4]:   File \"/home/ma-user/anaconda3/envs/PyTorch-2.7.1/lib/python3.11/site-packages/swift/llm/base.py\", "
     "line 36, in _parse_args\n"
     "[rank4]:     raise ValueError(f'remaining_argv: {remaining_argv}')\n"
     "[rank4]: ValueError: remaining_argv: ['--use_fused_rmsnorm', '--use_fused_rotary_pos_emb', "
     "'--use_fused_swiglu', '--use_rotary_position_embeddings']\n"),
    # https://github.com/vllm-project/vllm-ascend/issues/7423
    ("(EngineCore_DP0 pid=301) triton.compiler.errors.MLIRCompilationError:\n"
     "(EngineCore_DP0 pid=301) ///------------------[ERROR][Triton][BEG]------------------\n"
     "(EngineCore_DP0 pid=301) [ConvertLinalgRToBinary] encounters error:\n"
     "(EngineCore_DP0 pid=301) bishengir-compile: for the --target option: Cannot find option named 'Ascend310P3'!\n"),
])
def test_the_excerpts_read_as_a_configuration_error_from_the_signals(text: str) -> None:
    # before session 39: framework_error (0.50 and 0.60, the text model), config_error expected
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    d = diagnose_logs("-", load_engine(), stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert d["fault_class"] == "config_error" and d["decided_by"] == "signals", d


@pytest.mark.parametrize("line", [
    # https://github.com/ray-project/kuberay/issues/1984 (a KubeRay worker pod's `ray start`, rayStartParams
    # resources written with typographic quotes); Click's Command.parse_args (src/click/core.py,
    # "Got unexpected extra argument ({args})"), printed by UsageError.show (src/click/exceptions.py) as "Error: ..."
    "Error: Got unexpected extra argument (1})",
    # the same ctx.fail with several leftovers ("Got unexpected extra arguments ({args})")
    "Error: Got unexpected extra arguments (a b)",
    # click's NoSuchOption (src/click/exceptions.py / parser.py: "No such option: {name}")
    "Error: No such option: --num-npus",
])
def test_a_click_usage_error_is_the_command_line(line: str) -> None:
    assert "cfg:env" in kinds(line)


def test_the_kuberay_worker_crash_loop_reads_as_a_configuration_error_from_the_signals() -> None:
    # https://github.com/ray-project/kuberay/issues/1984; before session 44: config_error 0.43 from the text fallback
    # (the engine abstained: no signal)
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    text = ("kubectl --namespace ray-system logs pod/text-summarizer-raycluster-mzs2d-worker-gpu-group-kk2sr\n"
            "Defaulted container \u201cray-worker\u201d out of: ray-worker, wait-gcs-ready (init)\n"
            "Usage: ray start [OPTIONS]\n"
            "Try \u2018ray start --help\u2019 for help.\n\n"
            "Error: Got unexpected extra argument (1})\n")
    d = diagnose_logs("-", load_engine(), stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert d["fault_class"] == "config_error" and d["decided_by"] == "signals", d


def test_a_click_usage_error_behind_a_container_prefix_is_the_command_line() -> None:
    # docker compose prefixes each line with the service name; the message is Click's all the same
    assert "cfg:env" in kinds("ray-worker-1  | Error: Got unexpected extra argument (1})")


def test_the_words_alone_are_no_usage_error() -> None:
    # prose that quotes the message without Click's "Error: " is not the refusal itself
    assert "cfg:env" not in kinds("the docs say this fails with Got unexpected extra argument (src/)")
