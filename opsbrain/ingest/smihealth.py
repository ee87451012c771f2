"""The ``Error Code`` line of npu-smi's chip health query, read once for every reader of it.

``npu-smi info -t health -i id -c chip_id`` (HDK npu-smi reference, "查询指定芯片健康状态", npusmi_028; the
device-level ``-t health -i id`` prints the same field) answers ``Health Status``, ``Error Code`` and ``Error
Information``, one field a line: ``Error Code`` holds ``NA`` or the chip's fault codes, the black-box error-code
list's event ids (``80E01801``); MindCluster ascend-fd's collection fixture ``kg_parse/npu_info_after.txt`` prints
several on one line, space-separated, and continues only ``Error Information`` on key-less lines. Both the device
log parser (:mod:`opsbrain.ingest.parsers.device`, every text ``diagnose`` reads) and the collected-outputs reader
(:mod:`opsbrain.ingest.commands`, the ``commands`` sweep source) call :func:`error_code_line` and
:func:`code_signals`, so a code gives the same ``dev:<CODE>`` signal whichever reads it.

The device is the NPU id npu-smi's ``-i`` names (the command line above the answer: :data:`opsbrain.ingest.text.
RE_QUERIED`; in the commands source the section's own command line); ``-c`` (the chip within that NPU) is not part
of the component: a multi-chip NPU's chips' codes are that NPU's, as ``npu_chip_info_error_code`` gives an NPU's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from opsbrain.ingest.screen import screened
from opsbrain.ingest.signal import Signal
from opsbrain.ingest.where import npu_component
from opsbrain.lazyre import lazy_compile

RE_ERROR_CODE = screened(r"^\s*Error Code\s*:\s*(.*?)\s*$", re.I)
"""The field's line: ``Error Code                     : 80E01801 8C03A000`` (the key first on its line)."""
RE_CODE_TOKEN = lazy_compile(r"(?:0x)?([0-9a-f]{8})", re.I)
"""One fault code: eight hex digits as npu-smi prints them (``80E01801``); a ``0x`` prefix (either case) is taken
as the same code, the 32-bit event id npu-exporter's ``npu_chip_info_error_code`` gives as a decimal."""
RE_SEPARATOR = lazy_compile(r"[\s,;]+")
NO_CODE = frozenset({"na", "none", "n/a", "-", ""})
"""Values meaning no fault (the manual's healthy example prints ``NA``)."""


@dataclass(frozen=True, slots=True)
class ErrorCodes:
    """What one ``Error Code`` line holds."""

    codes: tuple[str, ...]
    """Fault codes, upper-case hex without ``0x``, each once, in the line's order; all zeros is no event."""
    read: bool
    """At least one token was a hex code (all zeros included): the line is a code list."""
    rejected: tuple[str, ...]
    """Tokens that are neither a code nor a no-fault word: not used (the collected-outputs reader notes them)."""


def error_codes(value: str) -> ErrorCodes:
    """The codes of the field's value (``80E01801 0x8C03A000``, ``A4025021,8C084E00``, ``NA``)."""
    codes: list[str] = []
    rejected: list[str] = []
    read = False
    for tok in RE_SEPARATOR.split(value.strip()):
        if tok.lower() in NO_CODE:
            continue
        if (m := RE_CODE_TOKEN.fullmatch(tok)) is None:
            rejected.append(tok)
            continue
        read = True
        if int(m.group(1), 16) and (code := m.group(1).upper()) not in codes:
            codes.append(code)
    return ErrorCodes(tuple(codes), read, tuple(rejected))


def error_code_line(text: str) -> ErrorCodes | None:
    """The codes of an ``Error Code`` line; None for any other line (a key-less continuation line included: the
    field is one line in every documented layout)."""
    m = RE_ERROR_CODE.search(text)
    return None if m is None else error_codes(m.group(1))


def code_signals(got: ErrorCodes, *, t: float, node: str | None, host: str | None, device: int | None,
                 severity: int, text: str, file: str | None = None) -> list[Signal]:
    """One ``dev:<CODE>`` signal per code, on NPU ``device`` of ``node`` (none where no device is known)."""
    comp = npu_component(node, device)
    return [Signal(t, f"dev:{code}", comp, host, severity, text, device=device, file=file) for code in got.codes]


__all__ = ["NO_CODE", "RE_ERROR_CODE", "ErrorCodes", "code_signals", "error_code_line", "error_codes"]
