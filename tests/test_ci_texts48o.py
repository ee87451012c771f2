"""Texts of CI runs on NPU runners (session 48, tester48o).

pip's resolver failing to find or reconcile a requirement is the job's environment (``cfg:env``): pip prints
``Could not find a version that satisfies the requirement <req> (from versions: ...)`` then raises
``DistributionNotFound("No matching distribution found for <req>")``, and for requirements that cannot all hold
``Cannot install <reqs> because these package versions have conflicting dependencies.`` (pypa/pip
src/pip/_internal/resolution/resolvelib/factory.py, ``_report_single_requirement_conflict`` /
``get_installation_error``). A test whose path names a ``compilation`` folder is no compile failure: pytest's summary
line ``FAILED tests/ut/compilation/test_x.py::T::t`` names the test, not a compiler."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


PIP_FAILED = [
    # https://github.com/vllm-project/vllm/pull/50504 (the Ascend NPU CI's image build, as pasted there)
    "  | 2026-08-03 06:05:28 | 3.157 ERROR: No matching distribution found for triton-ascend==3.2.1",
    # https://github.com/vllm-project/vllm-ascend/issues/7089
    "ERROR: Cannot install vllm-ascend and vllm-ascend==0.15.0rc1 because these package versions have conflicting "
    "dependencies.",
    # https://github.com/vllm-project/vllm-ascend/issues/446
    "ERROR: Cannot install torch-npu==2.5.1rc1 and torch>=2.5.1 because these package versions have conflicting "
    "dependencies.",
    # pip's logger.critical line before the exception (pypa/pip factory.py), as gym's README quotes it
    "ERROR: Could not find a version that satisfies the requirement opencv-python (from gym) (from versions: none)",
]


@pytest.mark.parametrize("line", PIP_FAILED)
def test_pip_resolution_failure_is_the_environment(line: str) -> None:
    assert "cfg:env" in kinds(line)


def test_a_test_path_naming_compilation_is_no_compile_failure() -> None:
    # https://github.com/vllm-project/vllm-ascend/issues/10210 (a UT job on the CI runner)
    line = "FAILED tests/ut/compilation/test_acl_graph.py::TestPCPDCPGraphParams::test_update_attn_dcp_pcp_params"
    assert "op:compile" not in kinds(line)


@pytest.mark.parametrize("line", [
    # a compile that failed is still read (tests/test_ingest_setup_texts.py and the GE / BiSheng tests hold more)
    "RuntimeError: compilation failed for kernel add_kernel",
    "ERROR: failed to compile the graph, build graph failed",
])
def test_a_failed_compile_is_still_read(line: str) -> None:
    assert "op:compile" in kinds(line)
