"""Session 51 (tester51c): a blind look at question-and-answer text outside issue trackers (forum threads, Q&A blogs,
GitHub threads asked as questions). One reading was missing: MindSpore's kernel query that finds no kernel for a
node logs ``The current [<node>] operator did not match any operator prototype library.`` and then the data types
the operator supports against those it was given (mindspore-ai/mindspore@cd3e506e
mindspore/ccsrc/plugin/device/ascend/hal/hardware/ge_kernel_executor.cc, ``PrintQueryAclTypeErr``; the kernel
selection raises the same text as ``NotSupportError``): an operator the network asks for that Ascend does not
support with those types, ``op:unsupported`` (framework_error's evidence). It read nothing before; the excerpt was
right only from a later ``Acl compile and execute failed`` line."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line

PROTOTYPE_LINES = [
    # https://www.hiascend.com/forum/thread-0265156669620709366-1-1.html (MindSpore 2.3 on Ascend, as posted)
    "[ERROR] DEVICE(1130203,ffff85d4b010,python):2024-06-28-16:46:49.413.553 [mindspore/ccsrc/plugin/device/ascend/"
    "hal/hardware/ge_kernel_executor.cc:139] PrintQueryAclTypeErr] The current [Default/AvgPool3DGrad-op507] operator "
    "did not match any operator prototype library. The reason is:",
    # the kernel selection's form of the same text (NotSupportError), ending the sentence
    "The current [Default/network-WithLossCell/_backbone-Net/Custom-op0] operator did not match any operator "
    "prototype library.",
]


@pytest.mark.parametrize("line", PROTOTYPE_LINES)
def test_no_operator_prototype_for_a_node_is_an_unsupported_operator(line: str) -> None:
    assert "op:unsupported" in [s.kind for s in parse_line(line)]


@pytest.mark.parametrize("line", [
    # the data-type lines that follow it name no failure of their own
    "InputDesc [1] support {float16,float,double,}",
    "But current operator's input and output data types is:",
])
def test_the_type_listing_below_it_is_not_read(line: str) -> None:
    assert "op:unsupported" not in [s.kind for s in parse_line(line)]
