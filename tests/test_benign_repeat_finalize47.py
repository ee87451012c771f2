"""A repeated aclFinalize at a process's exit is no fault (session 47, tester47n).

CANN's ``aclFinalizeImpl`` returns ACL_ERROR_REPEAT_FINALIZE (100037) before doing anything when a finalize already
succeeded (``aclFinalizeFlag``), logging ``[Finalize][Acl]repeatedly finalized``
(https://github.com/hicann/runtime/blob/681ef7610df13c8128982901142a2c869ddbb53e/src/acl/aclrt_impl/acl.cpp);
torch_npu prints the code with its ``NPU_CHECK_WARN`` block (Ascend/pytorch torch_npu/csrc/core/npu/NPUException.h).
A project's README shows the block after every run and calls it normal; it read framework_error 0.60.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.realtext import excerpt_view
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.recovered import may_recover, recovered_in
from opsbrain.ingest.text import ingest_text

# https://github.com/wangYzh0912/npu-nvme/blob/HEAD/README.md ("运行后最后输出这些内容是正常的，不用在意")
TWICE = """\
[W compiler_depend.ts:316] Warning: NPU warning, error code is 100037[Error]: 
[Error]: Repeated deinitialization.
        Check whether the acl.finalize interface is repeatedly invoked for deinitialization.
EH9999: Inner Error!
EH9999: [PID: 476369] 2025-12-14-19:00:28.262.491 [Finalize][Acl]repeatedly finalized[FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]
        TraceBack (most recent call last):
 (function operator())
"""  # noqa: E501, W291

# the same NPU_CHECK_WARN form for another code (built from the block above: 507899, ACL_ERROR_RT_INTERNAL_ERROR)
OTHER = """\
[W compiler_depend.ts:316] Warning: NPU warning, error code is 507899[Error]: 
EH9999: Inner Error!
 (function operator())
"""  # noqa: W291


def test_the_repeat_finalize_block_gives_no_signal() -> None:
    sigs, _ = ingest_text(TWICE)
    assert sigs == []
    assert "EH9999" not in excerpt_view(TWICE) and "100037" not in excerpt_view(TWICE)
    assert recovered_in(TWICE.splitlines()) == set(range(1, 8))
    assert may_recover(TWICE.encode())


def test_its_code_lines_are_harmless_alone() -> None:
    # a paste cut after the code's own lines still reads them as harmless
    for line in TWICE.splitlines()[:3] + [TWICE.splitlines()[4]]:
        assert BENIGN.search(line), line


def test_the_exit_of_a_run_that_prints_it_raises_no_alarm(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "paste.log"
    f.write_text(TWICE)
    assert diagnose_logs(str(f), engine)["diagnosis"]["fault_class"] in ("unknown", None)


def test_another_code_in_the_same_block_still_reads() -> None:
    sigs, _ = ingest_text(OTHER)
    assert sigs
    assert "EH9999" in excerpt_view(OTHER)
    assert recovered_in(OTHER.splitlines()) == set()


def test_an_unclosed_block_recovers_no_line_after_its_span() -> None:
    # the head without a closing line within FINALIZED_SPAN lines: an error far below keeps its reading
    text = TWICE.splitlines()[0] + "\n" + "\n".join(f"step {i}" for i in range(20)) + "\nEH9999: Inner Error!\n"
    sigs, _ = ingest_text(text)
    assert any(s.line_no == 22 for s in sigs)
