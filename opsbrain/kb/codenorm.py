"""Code spellings of the knowledge base, normalised for plain dictionary look-ups (no pydantic: the matcher and
the vendor importers use these at diagnosis time; :mod:`opsbrain.kb.schema` validates with them)."""

from __future__ import annotations

from typing import Literal

from opsbrain.lazyre import lazy_compile

HandlingLevel = Literal["NotHandle", "SubHealth", "RestartRequest", "RestartBusiness", "FreeRestartNPU",
                        "RestartNPU", "PreSeparateNPU", "SeparateNPU", "ManuallySeparateNPU"]
LEVELS: tuple[str, ...] = HandlingLevel.__args__  # type: ignore[attr-defined]
"""Least to most severe; a test checks they equal ``faultlib.faults.catalog.HANDLING_LEVELS``."""

_HEX_DEVICE = lazy_compile(r"^(?:0[xX])?([0-9a-fA-F]{8,9})$")
_SWITCH_TUPLE = lazy_compile(r"^\[\s*(0x[0-9a-fA-F]{8})\s*,\s*+([0-9A-Za-z_]{0,16})\s*,\s*([0-9A-Za-z_]{1,16})\s*,"
                           r"\s*([^\],\s]{1,16})\s*\]$")
_SWITCH_ALARM = lazy_compile(r"^0x[0-9a-fA-F]{8}$")
_HCCL = lazy_compile(r"^(?:E[A-Z]\d{4}|E[1-9]\d{4}|ERR\d{5})$")
_RUNTIME = lazy_compile(r"^[125]0\d{4}$")


def norm_device_code(code: str) -> str:
    """``0x80e01801`` / ``80E01801`` -> ``80E01801`` (8 or 9 hex digits); raises ValueError otherwise."""
    m = _HEX_DEVICE.match(str(code).strip())
    if not m:
        raise ValueError(f"not a device fault code (8 or 9 hex digits): {code!r}")
    return m.group(1).upper()


def switch_key(alarm: str, fault_id: str = "na", peer: str = "na", port: str = "na") -> str:
    """Canonical (lower-case) UB switch fault key ``[0x08520003,na,l2,na]``; the port is not part of it. An empty
    fault id (the real device-plugin spelling ``[0x08520003,,L2,na]``) is the same key as ``na``."""
    del port  # switch fault levels are per (alarm, fault id, peer type); the port only says where
    return f"[{alarm.lower()},{(fault_id or 'na').lower()},{peer.lower()},na]"


def norm_switch_code(code: str) -> str:
    """A switch fault tuple ``[0x08520003,na,L2,na]`` -> :func:`switch_key`; a bare ``0x00F10509`` -> lower case
    (matches every fault id and peer type of that alarm)."""
    c = str(code).strip()
    if _SWITCH_ALARM.match(c):
        return c.lower()
    m = _SWITCH_TUPLE.match(c)
    if not m:
        raise ValueError(f"not a switch fault code ([0xALARMID,faultId,peerType,port] or 0xALARMID): {code!r}")
    return switch_key(*m.groups())


def norm_hccl_code(code: str) -> str:
    c = str(code).strip().upper()
    if not _HCCL.match(c):
        raise ValueError(f"not an HCCL/CANN error code (EI0002, EZ9999, EE9999, EL0004 ...): {code!r}")
    return c


def norm_runtime_code(code: str | int) -> str:
    c = str(code).strip()
    if not _RUNTIME.match(c):
        raise ValueError(f"not a CANN runtime device error code (50xxxx, e.g. 507053): {code!r}")
    return c
