"""The codes a log line names, found by a few literal-prefixed regular expressions (the first step of
:class:`opsbrain.kb.matcher.SignatureMatcher`): device codes (``event_id=0x80e01801``, ``fault code [80E01801]``,
MindCluster's ``hex code: 80e01801`` / ``hex fault code: 80e01801``), UB switch fault tuples
(``[0x08520003,na,L2,na]``), HCCL/CANN codes (``EI0002``) and runtime codes (``507053``). Any input gets an answer
and never an exception: bytes are decoded with replacement, and only the first :data:`MAX_SCAN_CHARS` characters of
a line are scanned."""

from __future__ import annotations

from typing import Any

from opsbrain.kb.codenorm import switch_key
from opsbrain.lazyre import lazy_compile

MAX_SCAN_CHARS = 8192
"""Characters of a line that are scanned: rsyslog's default maximum message size is 8 KiB, so a longer
"line" is a dump or junk; capping keeps the cost of a 1 MB line that of an 8 KiB one."""

# Each code regex starts with a literal so that the regex engine skips ahead quickly; device codes and switch
# tuples are searched in the lower-cased line, HCCL and runtime codes in the line as written.
DEVICE_RES = (lazy_compile(r"event[ _]id\s*[=:]\s*\[?0x([0-9a-f]{8,9})(?![0-9a-z])"),
              lazy_compile(r"fault code (?:\[([0-9a-f]{8,9})\]|0x([0-9a-f]{8,9})(?![0-9a-z]))"),
              lazy_compile(r"hex (?:fault )?code: ([0-9a-f]{8,9})(?![0-9a-z])"))
SWITCH_RE = lazy_compile(r"\[(0x[0-9a-f]{8}),([0-9a-z_]{0,16}),([0-9a-z_]{1,16}),[^\],\s]{1,16}\]")
HCCL_RE = lazy_compile(r"E(?<![0-9A-Za-z]E)[IZEL]\d{4}(?![0-9A-Za-z])")
RUNTIME_RE = lazy_compile(r"50(?<![0-9A-Za-z.]50)\d{4}(?![0-9A-Za-z])")
KNOWN_FORMS = ((HCCL_RE, lazy_compile(r"E[IZEL]\d{4}"), r"(?:^|[^0-9A-Za-z])(?:{})(?:$|[^0-9A-Za-z])"),
               (RUNTIME_RE, lazy_compile(r"50\d{4}"), r"(?:^|[^0-9A-Za-z.])(?:{})(?:$|[^0-9A-Za-z])"))
"""For the block scan: the HCCL and runtime code regexes (each a code's shape between the characters that may
surround it) as an alternation of the codes known: a code found in a line but known to neither the knowledge base
nor the imports matches nothing (``count[506754]``, a tag ``AllReduce_504406`` in an INFO line)."""


def as_text(line: Any) -> str:
    """Any input -> the text to scan (decoded, capped); never raises."""
    try:
        if isinstance(line, bytes | bytearray | memoryview):
            return bytes(line[: MAX_SCAN_CHARS * 4]).decode("utf-8", "replace")[:MAX_SCAN_CHARS]
        if not isinstance(line, str):
            line = "" if line is None else str(line)
        return line[:MAX_SCAN_CHARS]
    except Exception:  # noqa: BLE001 - a hostile __str__ must not break diagnosis
        return ""


def extract_codes(line: Any) -> list[tuple[str, str]]:
    """(family, canonical code) found in a line, in order, without repeats. Families: ``device``
    (``80E01801``), ``switch`` (``[0x08520003,na,l2,na]``), ``hccl`` (``EI0002``), ``runtime`` (``507053``)."""
    text = as_text(line)
    return codes_of(text, text.lower())


def codes_of(text: str, low: str) -> list[tuple[str, str]]:
    """:func:`extract_codes` of a line already capped (``text``) and lower-cased (``low``)."""
    found: list[tuple[int, str, str]] = []
    for rx in DEVICE_RES:
        for m in rx.finditer(low):
            found.append((m.start(), "device", next(g for g in m.groups() if g).upper()))
    for m in SWITCH_RE.finditer(low):
        found.append((m.start(), "switch", switch_key(m.group(1), m.group(2), m.group(3))))
    for m in HCCL_RE.finditer(text):
        found.append((m.start(), "hccl", m.group()))
    for m in RUNTIME_RE.finditer(text):
        found.append((m.start(), "runtime", m.group()))
    if len(found) > 1:
        found.sort()
    out: list[tuple[str, str]] = []
    for _pos, fam, code in found:
        if (fam, code) not in out:
            out.append((fam, code))
    return out


def family(code: str) -> str:
    """The family of a canonical device or switch code (a switch tuple starts with ``[``)."""
    return "switch" if code.startswith("[") else "device"


__all__ = ["DEVICE_RES", "HCCL_RE", "KNOWN_FORMS", "MAX_SCAN_CHARS", "RUNTIME_RE", "SWITCH_RE", "as_text", "codes_of",
           "extract_codes", "family"]
