"""A Triton kernel that BiSheng fails to compile is a compile failure (session 47, fix47c). triton-ascend compiles
each kernel by running its compilers as subprocesses (triton/backends/ascend/compiler.py: ``triton-adapter-opt`` turns
the Triton IR into linalg, ``bishengir-compile`` the linalg into the NPU binary, both through ``subprocess.run(
cmd_list, capture_output=True, check=True)``), so a failed compile ends in Python's ``CalledProcessError`` naming the
compiler; BiSheng's own diagnostic for a kernel whose live buffers exceed the Unified Buffer is ``error: ub overflow,
requires N bits while M bits avaliable!`` (triton-ascend docs/en/debug_guide/ub_overflow.md)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


FAILED = [
    # https://github.com/Ascend/pytorch/issues/102 (torch_npu inductor, triton-ascend, layer_norm kernel)
    "subprocess.CalledProcessError: Command '['/usr/local/Ascend/ascend-toolkit/latest/bin/bishengir-compile', "
    "'/tmp/tmpqtxpq8xv/kernel.ttadapter.mlir', '--enable-auto-multi-buffer=True', '--enable-hfusion-compile=true', "
    "'--enable-hivm-compile=true', '--enable-triton-kernel-compile=true', '-o', '/tmp/tmpqtxpq8xv/kernel']' "
    "returned non-zero exit status 1.",
    'loc("/tmp/bishengir-compile-176060/module.hivm.mlir":2:3): error: ub overflow, requires 1966848 bits while '
    "1572864 bits avaliable!",
    # https://github.com/modelscope/mcore-bridge/issues/188 (a QSA Triton kernel on Ascend 910B, default tiles)
    "[rank43]: [ERROR] Failed to run BiShengIR pipeline",
    'loc("/ng-mix02/cogbrain/permanent/xygao19/CODES/TrainSpace/swift_qwen4/mcore-bridge-1.6.4/src/mcore_bridge/model/'
    'modules/kernels/qsa_block_sparse_attn.py":49:0): error: Failed to run BiShengHIR pipeline',
    # https://github.com/triton-lang/triton-ascend/issues/302 (CANN 8.5.0; the title)
    "error: ub overflow, requires 3072000 bits while 1572864 bits available",
    # the Triton-IR-to-linalg stage failing (triton-ascend compiler.py ttir_to_linalg's cmd_list: triton-adapter-opt,
    # kernel.ttir.mlir, --triton-to-linalg=..., -o, kernel.ttadapter.mlir); a public traceback found in the code index,
    # whose excerpt does not name its repository
    "subprocess.CalledProcessError: Command '['/home/coder/miniconda/envs/triton/lib/python3.10/site-packages/triton/"
    "backends/ascend/triton-adapter-opt', '/tmp/tmpcx8q74h5/kernel.ttir.mlir', '--triton-to-linalg=global-kernel=false "
    "named-ops=True', '-o', '/tmp/tmpcx8q74h5/kernel.ttadapter.mlir']' returned non-zero exit status 1.",
]


@pytest.mark.parametrize("line", FAILED)
def test_a_failed_kernel_compile_is_a_compile_failure(line: str) -> None:
    assert "op:compile" in kinds(line)


@pytest.mark.parametrize("line", [
    # another program run by subprocess: not a kernel compiler
    # (https://github.com/Dongdongshe/K-Scheduler/issues/8)
    "subprocess.CalledProcessError: Command 'grep \"llvm.compiler.used\" ./MP4Box_fix.ll' returned non-zero exit "
    "status 1.",
    # the compiler's command line itself, logged before it runs, is no failure
    "ret = subprocess.run(cmd_list, capture_output=True, check=True)",
])
def test_other_subprocess_failures_give_no_compile_failure(line: str) -> None:
    assert "op:compile" not in kinds(line)
