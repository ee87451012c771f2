"""ACL 507057 (``SUSPECT REMOTE ERROR``) and every inner code and reason the runtime reports as it read as
``remote_memory_suspect``, ambiguous for hbm_uce, link_down and framework_error (knowledge_base/categories.yaml): its
documented meaning names a peer's faulty memory or the device's own access out of bounds, and the public excerpts that
print it alone were software (blind48 b48h-01, blind55 b55h-02, blind56 b56f-01)."""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.textviews import line_kinds as kinds

TILELANG = [  # tile-ai/tilelang-ascend PR #334 (b56f-01): a pass broken under CANN 8.5, fixed in TileLang's code
    "WARNING: synchronous waiting (in Close) failed; there might be a device assert failure.",
    "Traceback (most recent call last):",
    "RuntimeError: SUSPECT REMOTE ERROR, EE8888: Inner Error!",
    "        rtGetDevMsg execute failed, reason=[suspect remote error][FUNC:FuncErrorReason]"
    "[FILE:error_message_manage.cc][LINE:53]",
]
VLLM = ("(Worker_TP0 pid=51886) ERROR 11-14 08:13:55 [multiproc_executor.py:671] RuntimeError: copy_between_host_and_"
        "device_opapi:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:56 NPU function error: SUSPECT REMOTE ERROR, "
        "error code is 507057")  # shen-shanshan/cs-self-learning, "Forward context is not set" (b55h-02)


def _diagnose(engine: Any, lines: list[str]) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO("\n".join(lines).encode()))["diagnosis"]


def test_507057_and_its_texts_name_no_class_alone() -> None:
    of = default_table().of
    for kind in ("rt:507057", "msg:remote_memory_suspect"):
        roles = dict(of(kind))
        assert roles == {"hbm_uce": "ambiguous", "link_down": "ambiguous", "framework_error": "ambiguous"}, kind
    assert "msg:remote_memory_suspect" in kinds(VLLM) and "rt:507057" in kinds(VLLM)
    assert "msg:hbm_uncorrectable" not in kinds(VLLM)


def test_a_lone_suspect_remote_error_is_not_read_as_hbm(engine: Any) -> None:
    for lines in (TILELANG, [VLLM]):
        assert _diagnose(engine, lines)["fault_class"] != "hbm_uce", lines
