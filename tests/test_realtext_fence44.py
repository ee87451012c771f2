"""A Markdown code fence around a pasted log is the paste's wrapper, not the log: the text fallback does not read it
(session 44; the fence's info string ``text`` was a token of the text model). The lines are b39b-04's kind, a
310P's DMA error as a vllm-ascend bug report pastes it (vllm-ascend's bug template fences the log:
```` ```text ````)."""

import pytest

from opsbrain.diagnosis.realtext import MARKDOWN_FENCE, excerpt_view

LOG = ("EH9999: [PID: 3132] 2025-10-15-16:32:20.074.608 wait for compute device to finish failed, runtime result = "
       "507013.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]\n"
       "[Error]: System Direct Memory Access (DMA) hardware execution error.\n")


@pytest.mark.parametrize("fence", ["```", "```text", "```log", "~~~", "````console"])
def test_a_fenced_paste_reads_as_the_bare_one(fence: str) -> None:
    assert excerpt_view(f"{fence}\n{LOG}```\n") == excerpt_view(LOG)


@pytest.mark.parametrize("line", ["``` not a fence", "x ```text", "`code`", "```text```"])
def test_a_line_with_backticks_in_it_is_not_a_fence(line: str) -> None:
    assert not MARKDOWN_FENCE.match(line)
