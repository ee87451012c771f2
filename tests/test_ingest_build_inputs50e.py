"""A build that cannot find a file it was told to use, in CMake's and the linkers' own words, is the build's
environment (``cfg:env``), while a build's warnings are no fault (opsbrain.ingest.parsers.cfgenv.RE_BUILD_INPUT_MISSING;
session 50, tester50e)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    sigs, _ = ingest_text(text)
    return {s.kind for s in sigs}


@pytest.mark.parametrize("text", [
    # CMake include() of a file that does not exist (Kitware/CMake Source/cmIncludeCommand.cxx); sgl-kernel-npu#485,
    # CANN 8.5.1's ASCConfig.cmake including a CANN 9.0.0 file
    "CMake Error at /home/851b080/cann-8.5.1/aarch64-linux/lib64/cmake/ASCConfig.cmake:20 (include):\n"
    "  include could not find requested file:\n\n"
    "    /home/397B/CANN9.0.0.B160/cann-9.0.0/compiler/tikcpp/ascendc_kernel_cmake/ASC_CMake/FindASC.cmake\n",
    # the older CMake wording (PaddlePaddle/PaddleCustomDevice#411)
    "CMake Error at CMakeLists.txt:8 (include):\n  include could not find load file:\n\n    generic\n",
    # GNU ld's missing library (binutils ld/ldfile.c "%P: cannot find %s"); PaddlePaddle/Paddle#57270
    "cannot find -lnpu_hccl\ncollect2: error: ld returned 1 exit status\n",
])
def test_a_file_or_library_the_build_cannot_find_is_its_environment(text: str) -> None:
    assert "cfg:env" in kinds(text)


@pytest.mark.parametrize("text", [
    # vllm-ascend#7697: gcc's -Wfloat-conversion on an op_host file of a custom-op build
    "  /data02/wurui/vllm-ascend/csrc/add_rms_norm_bias/op_host/add_rms_norm_bias_def.cpp:64:56: warning: conversion "
    "from 'double' to 'float' changes value from '9.9999999999999995e-7' to '9.99999997e-7f' [-Wfloat-conversion]\n",
    # sgl-kernel-npu#485: a CMake message() at WARNING
    "CMake Warning at op_kernel/CMakeLists.txt:14 (message):\n  _DISPATCH_FFN_INC_OPTS:\n",
    # a library found but lacking a symbol is not a missing file (opencv/opencv#23360)
    "op_cann.cpp:(.text+0x278): undefined reference to `ge::Operator::AttrRegister(std::__cxx11::basic_string<char, "
    "std::char_traits<char>, std::allocator<char> > const&)'\n",
])
def test_build_warnings_and_undefined_references_are_not_a_missing_file(text: str) -> None:
    assert "cfg:env" not in kinds(text)
