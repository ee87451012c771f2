"""Control bytes no text log writes, found fast in a file's bytes (session 41; split from :mod:`.walk`)."""

from __future__ import annotations

import re

JUNK_BYTE = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")
"""The bytes of the walk's junk characters (UTF-8 keeps every byte below 0x80 as that character)."""
NOT_JUNK = bytes(b for b in range(256) if not JUNK_BYTE.match(bytes((b,))))
"""Every other byte: ``data.translate(None, NOT_JUNK)`` is empty where ``JUNK_BYTE.search(data)`` finds nothing
(session 41, speed41b: ~8x faster on a Chinese file's bytes, each of which ``re`` tests against the class)."""
JUNK_STEP = 1 << 20
"""Bytes translated at a time: ``bytes.translate`` makes its result as long as its input before it shrinks it, so a
whole file's would add the file's size to the read's peak (tests/test_bundle_view37.py)."""


def junk_free(data: bytes | bytearray) -> bool:
    """Whether ``data`` holds none of :data:`JUNK_BYTE`'s bytes (translated a step at a time: :data:`JUNK_STEP`)."""
    return not any(data[i:i + JUNK_STEP].translate(None, NOT_JUNK) for i in range(0, len(data), JUNK_STEP))
