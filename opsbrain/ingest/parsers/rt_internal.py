"""The runtime's internal error numbers and the AscendCL codes it reports them as: ``retCode=0x7020010`` (an internal
``RT_ERROR_*`` number, printed by the runtime's own trace lines) is ``ACL_ERROR_RT_DRV_INTERNAL_ERROR`` 507899 to the
application. Derived from hicann/runtime at 681ef7610df13c8128982901142a2c869ddbb53e: the numbers of
``src/runtime/core/inc/common/internal_error_define.hpp``, the internal -> external map of
``src/runtime/core/src/common/errcode_manage.cc`` (``rtErrMap_``) and the codes of
``include/external/acl/error_codes/rt_error_codes.h``; a defined number the map does not list is
``ACL_ERROR_RT_INTERNAL_ERROR`` 507000 (``ErrorcodeManage::GetRtExtErrCode``). Also the runtime's reason strings, the
map's description of each number (``reason=[device id error]``, ``desc=[driver error:resource alloc fail]``), at that
commit and at the repository's first (d8beaaf0955bc307cdda0ae971275fb48f652a26,
``src/runtime/feature/src/common/errcode_manage.cc``: the texts older CANN releases print).

The one copy of these tables is knowledge_base/codes.yaml's ``runtime_inner_codes`` and ``runtime_reasons`` rows
(name, meaning, category and source of each). The knowledge-base compiler (:mod:`opsbrain.kb.compiled`) keeps their
number/text -> AscendCL code pairs (:func:`inner_codes_of`, :func:`reasons_of`); the parser reads them from the
compiled, cached plain JSON (:func:`acl_maps`), never from YAML at diagnosis time. ``RT_INTERNAL_TO_ACL`` (inner
number -> code) and ``RT_REASON_TO_ACL`` (lower-cased reason -> code) are the same maps as module attributes."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


def _rows(doc: Any, section: str) -> list[dict[str, Any]]:
    rows = (doc.get(section, []) or []) if isinstance(doc, dict) else []
    return [r for r in rows if isinstance(r, dict)]


def inner_codes_of(doc: Any) -> dict[str, int]:
    """Inner number (lower-case hex, ``%#x`` as the runtime prints it) -> AscendCL code, of a codes.yaml document's
    ``runtime_inner_codes`` rows (their ``code`` and ``acl``, checked by :mod:`opsbrain.kb.tables`)."""
    return {f"{int(str(r['code']), 16):#x}": int(r["acl"]) for r in _rows(doc, "runtime_inner_codes")}


def reasons_of(doc: Any) -> dict[str, int]:
    """Lower-cased reason text -> AscendCL code, of a codes.yaml document's ``runtime_reasons`` rows (a text as the
    runtime writes it: one of its descriptions ends in a space)."""
    return {str(r["text"]).lower(): int(r["acl"]) for r in _rows(doc, "runtime_reasons")}


def driver_codes_of(doc: Any) -> dict[str, int]:
    """Driver return code (``drvRetCode=6``, decimal) -> AscendCL code, of a codes.yaml document's
    ``driver_return_codes`` rows: the runtime turns a failed driver call's drvError_t into the inner number of its
    drvErrMap_ and reports that number's AscendCL code (hicann/runtime errcode_manage.cc, GetDrvErrCode)."""
    return {str(int(str(r["code"]), 0)): int(r["acl"]) for r in _rows(doc, "driver_return_codes")}


@lru_cache(maxsize=1)
def driver_codes() -> dict[int, int]:
    """Driver return code -> AscendCL code, read once from the compiled knowledge base (empty when it cannot be
    read)."""
    from opsbrain.errors import InputError
    from opsbrain.kb.compiled import compiled_kb

    try:
        return {int(k): v for k, v in compiled_kb().driver_return_codes.items()}
    except InputError:
        return {}


@lru_cache(maxsize=1)
def acl_maps() -> tuple[dict[int, int], dict[str, int]]:
    """(inner number -> AscendCL code, lower-cased reason -> AscendCL code), read once from the compiled knowledge base
    (both empty when it cannot be read, as the documented messages are)."""
    from opsbrain.errors import InputError
    from opsbrain.kb.compiled import compiled_kb

    try:
        ckb = compiled_kb()
    except InputError:
        return {}, {}
    return {int(k, 16): v for k, v in ckb.runtime_inner_codes.items()}, dict(ckb.runtime_reasons)


def __getattr__(name: str) -> dict[Any, int]:
    """``RT_INTERNAL_TO_ACL`` and ``RT_REASON_TO_ACL``: :func:`acl_maps`, on first use (PEP 562)."""
    if name == "RT_INTERNAL_TO_ACL":
        return acl_maps()[0]
    if name == "RT_REASON_TO_ACL":
        return acl_maps()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# and RT_INTERNAL_TO_ACL, RT_REASON_TO_ACL (__getattr__)
__all__ = ["acl_maps", "driver_codes", "driver_codes_of", "inner_codes_of", "reasons_of"]
