"""Python's warnings module output is a warning, not an operator that failed (session 46, tester46h).

``warnings.showwarning`` writes ``warnings.formatwarning``'s text: ``{filename}:{lineno}: {category}: {message}``
and, on the next line, the source line it came from, indented (CPython Lib/warnings.py ``_formatwarnmsg_impl``).
MindSpeed's ``Currently, it is not supported to Cast shard fp32 main params to fp8 model params`` is such a
UserWarning: the MindCluster resumable-training guide shows it twice in the log of a rescheduled Pod that resumed
from its checkpoint and trains on. Its "not supported" read ``op:unsupported`` and the healthy log framework_error
0.66. A raised error that an operator is not supported keeps its reading.
"""

from __future__ import annotations

from opsbrain.ingest.parsers import parse_line

# https://gitcode.com/Ascend/mind-cluster/blob/master/docs/zh/scheduling/04_usage/04_resumable_training/
# 04_using_resumable_training_on_the_cli.md (重调度模式, 查看其中一个Pod运行情况), Ascend/mind-cluster @22bb3d98
HEAD = ("/root/MindSpeed/mindspeed/core/fp8_utils.py:11: UserWarning: Currently, it is not supported to Cast shard "
        "fp32 main params to fp8 model params")
ECHO = '  warnings.warn("Currently, it is not supported to Cast shard fp32 main params to fp8 model params")'


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_a_python_warning_and_its_source_echo_are_no_unsupported_operator() -> None:
    for line in (HEAD, ECHO, "[rank3]: " + HEAD):
        assert "op:unsupported" not in kinds(line), line
    # other categories of the same format (constructed from formatwarning's layout)
    assert "op:unsupported" not in kinds("/usr/lib/python3.10/site-packages/x/y.py:7: FutureWarning: "
                                         "flash attention is not supported on this device, using the math path")


def test_a_raised_unsupported_operator_keeps_its_reading() -> None:
    assert "op:unsupported" in kinds("RuntimeError: Operator Cast is not supported for dtype DT_BF16")
    assert "op:unsupported" in kinds("NotImplementedError: Could not run 'aten::foo' with arguments from the "
                                     "'PrivateUse1' backend.")


def _diagnose(text: str) -> dict:  # type: ignore[type-arg]
    import io

    from opsbrain.cli.kb_cmds import _matcher
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    return diagnose_logs("-", load_engine(None, say=lambda m: None), _matcher(None),
                         stdin=io.BytesIO(text.encode()))["diagnosis"]


def test_the_resumed_pods_warnings_are_no_fault() -> None:
    # the same guide's lines around them (the resumed Pod's torch_npu warning, its rank prefix as printed)
    text = ("[rank16]:[W908 11:34:01.252908110 compiler_depend.ts:335] Warning: Cannot create tensor with interal "
            "format while allow_internel_format=False, tensor will be created with base format. (function "
            f"operator())\n{HEAD}\n{ECHO}\n{HEAD}\n{ECHO}\n")
    d = _diagnose(text)  # before: framework_error 0.66 (op:unsupported), then 0.60 by the text fallback
    assert d["fault_class"] == "unknown" and d["evidence"][0].startswith("no fault found"), d
