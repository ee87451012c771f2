"""What a collection adds around a program's own log line, taken off before any parser reads it.

- ANSI colour / cursor codes (a terminal capture, ``kubectl logs`` of a coloured program): ``\\x1b[31mERROR\\x1b[0m``;
- the CRI container log format (containerd / CRI-O files under /var/log/pods, Kubernetes' CRI logging spec):
  ``2024-05-01T10:11:12.123456789Z stdout F <line>``;
- ``kubectl logs --prefix``: ``[pod/<pod>/<container>] <line>``;
- a collector's own head before a line whose format starts at column 0 (plog ``[ERROR] HCCL(...)``, a table row
  ``| 0 | ...``, an indented continuation): a time stamp (ISO, bracketed plog, syslog without host field) and/or a
  fan-out tool's ``host: `` (pdsh, ``ansible -m shell``; the host has a digit and a dot or dash). Lines whose
  head a parser reads itself (syslog with its host and program, ``2024-05-01 10:11:12 ERROR ...``) keep it.

Each test is one character or prefix comparison on a line without them, so the hot path costs next to nothing. The
prefix taken off is returned: its time stamp stands in for a line that has none of its own. :func:`may_carry` tells
of a whole file at once whether any of its lines can carry one (a bundle's files mostly carry none: one scan each,
instead of a call a line)."""

from __future__ import annotations

import re
from typing import Any

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_CRI = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d) (?:stdout|stderr) [FP] ?")
_HEAD_STAMP = (r"\[\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d(?:\.\d{1,6})*\]"
               r"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?"
               r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d")
_HEAD_HOST = r"[A-Za-z0-9][\w.-]{0,62}: "
_HEAD = re.compile(r"(?:(?:" + _HEAD_STAMP + r") )?"
                   r"(?:(?=[\w.-]*[.-][\w.-]*\d|[\w.-]*\d[\w.-]*[.-])" + _HEAD_HOST + r")?(?=[\[|\s])")
"""The host of ``host: `` has a digit and a dot or dash (``worker-3``, ``10.0.0.5``, ``gpu12.dc1``): a code such as
``EI0002: `` or a bare ``node1: `` is not taken for one."""
_KUBECTL = re.compile(r"\[pod/[^\]\s/]+/[^\]\s]+\] ?")


def plain(line: str) -> tuple[str, str]:
    """``line`` without colour codes and container prefixes, and the prefix taken off ("" when none)."""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    prefix = ""
    if line[:5] == "[pod/" and (m := _KUBECTL.match(line)):
        prefix, line = m.group(0), line[m.end():]
    if line[10:11] == "T" and line[:1].isdigit() and (m := _CRI.match(line)):
        prefix, line = prefix + m.group(0), line[m.end():]
    if line[:5] == "[pod/" and (m := _KUBECTL.match(line)):  # kubectl --prefix over a CRI file's lines
        prefix, line = prefix + m.group(0), line[m.end():]
    if (line[:1] not in _STARTS or line[1:2].isdigit()) and _may_have_head(line[:112]) and (
            m := _HEAD.match(line)) and m.end():
        prefix, line = prefix + m.group(0), line[m.end():]
    return line, prefix


def _may_have_head(head: str) -> bool:
    """A collector head ends in a space before ``[``, ``|`` or more white space: without one, no regex runs."""
    return " [" in head or " |" in head or "  " in head or " \t" in head


_STARTS = frozenset("[| \t")
"""First characters of a line with nothing before its own format (the collector-head test is skipped)."""


CARRY = (r"\x1b|\[pod/|(?m:^)(?:" + _CRI.pattern + r"|(?:(?:" + _HEAD_STAMP + r") (?:" + _HEAD_HOST + r")?|"
         + _HEAD_HOST + r")[\[|\t\n\x0b\x0c\r \x1c-\x1f])")
"""Where :func:`plain` can take something off an ASCII line: a colour code, a kubectl prefix, a CRI head, or a
collector's head (:data:`_HEAD`'s stamp and/or ``host: ``, before ``[``, ``|`` or white space) at a line's start.
A superset: the host's digit-and-dash look-ahead is left to :func:`plain`, and white space is spelt out as Python's
``\\s`` reads it in ASCII text (with ``\\x0b`` and ``\\x1c``-``\\x1f``, which RE2's ``\\s`` lacks)."""
_CARRY: Any = None


def may_carry(data: bytes) -> bool:
    """False when no line of ``data`` (a file's bytes, lines split at ``\n``) has anything :func:`plain` takes off:
    one scan (RE2 when installed); True for text that is not ASCII (Unicode digits and spaces: every line is read)."""
    global _CARRY
    if not data.isascii():
        return True
    if _CARRY is None:
        from opsbrain.multiscan import _re2

        if _re2 is not None:
            opts = _re2.Options()
            opts.never_capture = True
            opts.log_errors = False
            _CARRY = _re2.compile(CARRY.encode(), opts)
        else:
            _CARRY = re.compile(CARRY.encode())
    return _CARRY.search(data) is not None
