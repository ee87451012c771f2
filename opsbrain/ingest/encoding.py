"""The text encoding of a log's bytes, told from its first bytes: UTF-8 unless they say otherwise.

- UTF-16 with its byte-order mark: what Windows PowerShell 5's ``>`` and ``Out-File`` write by default ("UTF-16LE",
  the PowerShell about_Character_Encoding reference), and Notepad's "Unicode";
- GB18030 (GBK's superset): what a Chinese-locale Windows saves as "ANSI" (code page 936), so a log copied into a
  text file there. Taken only when the bytes are not UTF-8 (more than a few damaged sequences) and decode as GB18030
  to Chinese text: a UTF-8 log with a few broken bytes stays UTF-8 (those bytes replaced, as before).

Without this, a GBK line's Chinese words were read as U+FFFD, and a line mostly of them as binary content: data
lost without a word. The reader says in its notes which encoding it took when not UTF-8."""

from __future__ import annotations

import codecs
from collections import Counter
from collections.abc import Iterator

SAMPLE = 64 << 10
"""Bytes looked at to tell the encoding."""
_BOMS = ((b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))
_ASCII = bytes(range(0x80))
DAMAGE_SHARE = 0.1
"""reason: GBK text read as UTF-8 fails on nearly every non-ASCII byte pair (one U+FFFD per two bytes or so); a UTF-8
log with a cut or corrupted character fails on a handful. Below this share of U+FFFD per non-ASCII byte, UTF-8."""
CHINESE_SHARE = 0.8
"""reason: the non-ASCII characters of Chinese text are nearly all CJK ideographs and CJK / full-width punctuation;
Latin-1 or cp1252 bytes decoded as GB18030 either fail or give a scatter of rare ideographs beside other symbols."""


def is_chinese(c: str) -> bool:
    """A character of Chinese text beyond ASCII: a CJK unified ideograph, CJK punctuation or a full-width form."""
    return "\u4e00" <= c <= "\u9fff" or "\u3000" <= c <= "\u303f" or "\uff00" <= c <= "\uffef"


def sniff(head: bytes) -> str:
    """The codec name for bytes beginning with ``head`` (give :data:`SAMPLE` bytes or all there are)."""
    for bom, name in _BOMS:
        if head.startswith(bom) and _utf16_text(head[len(bom):], name):
            return name
    if (wide16 := _bomless_utf16(head)) is not None:
        return wide16
    try:  # valid UTF-8 (a character cut at the sample's end allowed): the common case, one pass in C
        codecs.getincrementaldecoder("utf-8")("strict").decode(head, final=False)
        return "utf-8"
    except UnicodeDecodeError:
        pass
    wide = len(head.translate(None, _ASCII))  # the bytes that are not ASCII
    if b"\x00" in head or head.decode("utf-8", "replace").count("\ufffd") <= DAMAGE_SHARE * wide + 1:
        return "utf-8"  # text holds no NUL: binary content stays for the binary checks
    try:
        text = codecs.getincrementaldecoder("gb18030")("strict").decode(head, final=False)
    except UnicodeDecodeError:
        return "utf-8"
    chars = [c for c in text if ord(c) > 0x7F]
    chinese = sum(1 for c in chars if is_chinese(c))
    return "gb18030" if chars and chinese >= CHINESE_SHARE * len(chars) else "utf-8"


TEXT_SHARE = 0.9
"""reason: a log in UTF-16 is text: ASCII (times, codes, most words) and the characters of its one language's script
(CJK ideographs and kana, Hangul, Cyrillic, ...). Bytes that only start like a BOM (a binary file's FF FE) decode to
code units spread over the whole range: about a third of them CJK, a sixth Hangul, under 1% in any 256-character
block, almost none ASCII."""


def _script(c: str) -> str | int:
    """The script group a character beyond ASCII belongs to: Chinese and Japanese (ideographs, kana, CJK and
    full-width punctuation), Hangul, general punctuation, else its 256-character block (Cyrillic, Greek and
    combining marks, Arabic, Devanagari, Thai, Latin-1 and Latin Extended ...)."""
    o = ord(c)
    if is_chinese(c) or 0x3040 <= o <= 0x30FF:
        return "cjk"
    if 0xAC00 <= o <= 0xD7AF or 0x1100 <= o <= 0x11FF or 0x3130 <= o <= 0x318F:
        return "hangul"
    if 0x2000 <= o <= 0x206F:
        return "punctuation"
    return o >> 8


NUL_HALF_SHARE = 0.6
"""reason: UTF-16 text without a BOM (a file PowerShell's ``Out-File`` wrote) is mostly ASCII: the high byte of nearly
every code unit is NUL, so one half of the byte positions (odd for little-endian) is NUL at least this often and the
other half almost never; a binary file's NULs fall on both halves."""


def _bomless_utf16(head: bytes) -> str | None:
    """``utf-16-le`` / ``utf-16-be`` for UTF-16 text without a BOM (:data:`NUL_HALF_SHARE`, then
    :func:`_utf16_text`), else None."""
    if len(head) < 16 or b"\x00" not in head[:64]:
        return None
    even, odd = head[0::2], head[1::2]
    for nul_half, other, name in ((odd, even, "utf-16-le"), (even, odd, "utf-16-be")):
        if nul_half.count(0) >= NUL_HALF_SHARE * len(nul_half) and other.count(0) <= 0.02 * len(other) and \
                _utf16_text(head[: len(head) // 2 * 2], name):
            return name
    return None


def _utf16_text(body: bytes, codec: str) -> bool:
    """The bytes after a UTF-16 BOM decode to text: no broken surrogate pair, and at least :data:`TEXT_SHARE` of the
    characters ASCII text (printable or white space), general punctuation, or of the one script most of the others
    are in (:func:`_script`)."""
    try:
        text = codecs.getincrementaldecoder(codec)("strict").decode(body[:SAMPLE], final=False)
    except UnicodeDecodeError:
        return False
    if not text:
        return True
    ascii_text = sum(1 for c in text if (" " <= c <= "~") or c in "\t\r\n")
    scripts = Counter(_script(c) for c in text if c > "\x7f")
    punct = scripts.pop("punctuation", 0)
    texty = ascii_text + punct + max(scripts.values(), default=0)
    return texty >= TEXT_SHARE * len(text)


def decode(data: bytes | bytearray, codec: str | None = None) -> str:
    """``data`` as text in ``codec`` (sniffed when None), undecodable bytes replaced; a UTF-16 BOM dropped."""
    codec = codec or sniff(bytes(data[:SAMPLE]))
    text = data.decode(codec, "replace")
    return text[1:] if codec.startswith("utf-16") and text[:1] == "\ufeff" else text


def decoded_lines(chunks: Iterator[bytes], codec: str, max_rest: int) -> Iterator[str]:
    """The lines (``\\n`` ends taken off) of a stream of ``chunks`` in a codec other than UTF-8, decoded
    incrementally (a character split between chunks is kept whole); a UTF-16 BOM dropped; a line without end past
    ``max_rest`` characters keeps its head only (as the UTF-8 reader does)."""
    dec = codecs.getincrementaldecoder(codec)("replace")
    rest, first = "", True
    for chunk in chunks:
        text = rest + dec.decode(chunk)
        if first and text:
            text, first = (text[1:] if text[0] == "\ufeff" else text), False
        *lines, rest = text.split("\n")
        if len(rest) > max_rest:
            rest = rest[: max_rest // 4]
        yield from lines
    rest += dec.decode(b"", final=True)
    if rest:
        yield rest
