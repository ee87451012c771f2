"""ATB (Ascend Transformer Boost) operations that failed their setup, as torch_npu's op-plugin and ATB itself log
them (split out of :mod:`.framework` in session 42; the framework parser reads them through :func:`atb_setup_kind`)."""

from __future__ import annotations

from opsbrain.ingest.screen import screened

RE_ATB_SETUP = screened(r"\b[A-Z][A-Za-z0-9]*Operation setup failed\b")
"""An ATB (Ascend Transformer Boost) operation that failed its setup, as torch_npu's op-plugin reports it
(op_plugin/utils/custom_functions/atb/AtbCommon.cpp, ``OperationSetup``: ``TORCH_CHECK(status == 0,
operation->GetName(), " setup failed!")``, e.g. ``RopeOperation setup failed!``). Setup is the operation's host-side
check of its parameters and tensors, its shape inference and tiling, before anything runs on the device: the
operator refused what it was given (vllm-ascend#6304 fixed ``ReshapeAndCacheOperation setup failed!`` in the caller).
The name of the operation that was *running* when an asynchronous error surfaced (torch_npu's ``... the current
working operator name is SelfAttentionOperation``) is no setup failure and says nothing of the cause."""
RE_ATB_SETUP_CODE = screened(r"\bsetup fail(?:ed)?\b[^\n]{0,80}?\berror code:?\s*(\d{1,2})\b")
"""ATB's own log of a failed setup with the ErrorType it returned (ATB OperationBase::Setup / graph runner: ``...
setup fail, error code: 8``)."""
ATB_NOT_THE_OPERATOR = {3: "", 4: "", 12: "", 25: "", 27: "", 28: "", 29: "", 26: "mem:oom"}
"""ATB ErrorType values (ATB API reference, ``ErrorType``) whose setup failure is not the operation's own check: 3
ERROR_INTERNAL_ERROR, 4 ERROR_RT_FAIL, 12 ERROR_CANN_ERROR, 25 ERROR_HCCL_FAIL, 27 ERROR_OUT_OF_HOST_MEMORY, 28
ERROR_COMM_EMPTY, 29 ERROR_COPY_HOST_MEMORY_FAIL (the layer below reports its own failure; no kind here) and 26
ERROR_OUT_OF_DEVICE_MEMORY (``mem:oom``). The others (1 ERROR_INVALID_PARAM, 2 ERROR_INVALID_GRAPH, 5-11 and 13-24:
tensor count, dtype, format, dims and size, infer-shape, parameter, workspace and address checks) are the operation
refusing its inputs: ``op:atb_setup``."""


def atb_setup_kind(text: str) -> str | None:
    """The kind of an ATB operation's setup failure on a line (:data:`RE_ATB_SETUP`, :data:`RE_ATB_SETUP_CODE`), or
    None."""
    if m := RE_ATB_SETUP_CODE.search(text):
        return ATB_NOT_THE_OPERATOR.get(int(m.group(1)), "op:atb_setup") or None
    return "op:atb_setup" if RE_ATB_SETUP.search(text) else None
