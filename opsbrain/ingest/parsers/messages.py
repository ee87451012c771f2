"""Documented messages (knowledge_base/codes.yaml ``messages``: texts Ascend programs print, each with its source)
found anywhere in a line, as ``msg:<category>`` signals. One compiled alternation of the escaped texts: a line costs
one scan whatever the number of messages."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from opsbrain.ingest.parsers.cann import rt_codes
from opsbrain.ingest.parsers.ctx import RE_PLOG_HEAD, LineCtx
from opsbrain.ingest.parsers.kernel import IO_ERROR
from opsbrain.ingest.parsers.templates import anchor_of, holds
from opsbrain.ingest.screen import Screened, screened
from opsbrain.lazyre import lazy_compile

PART_SECTIONS = ("cann_message_parts", "runtime_reason_texts")
"""codes.yaml sections of texts that stand for a CANN code: the fixed parts of the runtime's message templates and the
reasons the runtime fills into them (``... failed. Reason: <text>``)."""
FAULT_MANAGER_EVENT = lazy_compile(r"\[fault_manager\]\[\s*\d+\.\d+\] event_id=0x[0-9a-f]{8};", re.I)
"""The device fault manager's event line (hicann/driver@ef377e95 src/sdk_driver/fms/smf/event/dms_event.c:1410):
its ``event_type=0x..[...]`` words are the driver's name for the event id's state (the sensor table,
dms_sensor_type.c), which the device parser reads from the id; read again as a message they would count the event
twice (0x80FA4E00's ``Heartbeat Lost.`` is the task-scheduler CPU's, not the host driver's lost device)."""


IO_ERROR_TEXT = "i/o error"
"""codes.yaml's ``I/O error`` message (a block-device I/O error, fs/buffer.c): read only where the kernel row reads an
I/O error (:data:`RE_DEVICE_IO_ERROR`), not on a wrapper's ``I/O error: ... (os error 95)`` (session 46, polish46)."""
RE_DEVICE_IO_ERROR = lazy_compile(IO_ERROR, re.I)


def _part_rows(doc: Any) -> list[Any]:
    return [r for sec in PART_SECTIONS for r in (doc.get(sec, []) or [])] if isinstance(doc, dict) else []


def message_parts_of(doc: Any) -> list[str]:
    """Lower-cased texts of :data:`PART_SECTIONS`, sorted. A part stands in for its code: it is read only on a line
    that prints no error code of its own (there the code decides)."""
    rows = _part_rows(doc)
    return sorted({str(r.get("text", "")).strip().lower() for r in rows if str(r.get("text", "")).strip()})


def messages_of(doc: Any) -> dict[str, str]:
    """Lower-cased text -> category of the documented messages of a codes.yaml document (``messages``, and
    :data:`PART_SECTIONS`: the runtime's template parts and reasons; informational ones and texts under 6 characters
    left out)."""
    cats = {}
    rows = [*((doc.get("messages", []) or []) if isinstance(doc, dict) else []), *_part_rows(doc)]
    for row in rows:
        text, cat = str(row.get("text", "")).strip(), row.get("category")
        if len(text) >= 6 and cat and cat != "informational":
            cats[text.lower()] = str(cat)
    return cats


@lru_cache(maxsize=1)
def catalog() -> tuple[Screened | None, dict[str, str]]:
    """(one regex of every documented message and message-template anchor, lower-cased text -> category); read once
    (package data), from the compiled knowledge base (:mod:`opsbrain.kb.compiled`; an unreadable codes.yaml gives no
    messages)."""
    from opsbrain.errors import InputError
    from opsbrain.kb.compiled import compiled_kb

    try:
        cats = compiled_kb().messages
    except InputError:
        return None, {}
    words = _words(cats)
    if not words:
        return None, {}
    # whole words only: "all reduce error" does not hold the documented "UCE error"
    return screened(r"(?<![A-Za-z0-9])(?:" + "|".join(re.escape(w) for w in words) + r")(?![A-Za-z0-9])", re.I), cats


def _words(cats: dict[str, str]) -> list[str]:
    """The documented messages and template anchors, longest first; one order whether cats came from the YAML or the
    compiled cache (its JSON keys are sorted), so that the screen plan keyed by the catalog's regex is found again."""
    return sorted(set(cats) | set(anchored()), key=lambda w: (-len(w), w))


@lru_cache(maxsize=1)
def lowered() -> re.Pattern[str] | None:
    """The catalog's regex for lower-cased text, case-sensitive (the same matches, lower-cased): under IGNORECASE
    Python's ``re`` tries each of the some 400 alternatives at every position of a line, 2.5 times slower than on
    the lower-cased line (the ascend-fd fixtures' lines). The catalog's own regex stays case-insensitive: the line
    screen and the gate scan the line as written."""
    body = _lowered_body()
    return re.compile(r"(?<![a-z0-9])" + body + r"(?![a-z0-9])") if body is not None else None


@lru_cache(maxsize=1)
def _lowered_body() -> str | None:
    """The alternation of :func:`lowered` (lower-cased texts, longest first), without its look-arounds."""
    if catalog()[0] is None:
        return None
    words = sorted({w.lower() for w in _words(catalog()[1])}, key=lambda w: (-len(w), w))
    return "(?:" + "|".join(re.escape(w) for w in words) + ")"


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")  # what lowered()'s look-arounds exclude


@lru_cache(maxsize=1)
def _lowered_fast() -> Any:
    """:func:`lowered` without its look-arounds, in RE2 (None without RE2 or the catalog): compiled in ~5 ms where
    ``re`` takes ~20-40 ms a process. RE2 picks the first alternative that matches, as ``re`` does."""
    from opsbrain.multiscan import RE2_MAX_MEM, _re2

    body = _lowered_body()
    if _re2 is None or body is None:
        return None
    opts = _re2.Options()
    opts.max_mem = RE2_MAX_MEM  # the default 8 MB is too small a DFA for ~450 texts
    opts.log_errors = False
    try:
        return _re2.compile(body, opts)
    except Exception:  # noqa: BLE001 - a pattern RE2 cannot read: the exact regex serves
        return None


def messages_in(low: str) -> list[str]:
    """The documented texts in a lower-cased line: ``[m.group(0) for m in lowered().finditer(low)]``. RE2 finds them
    without the word-boundary look-arounds; while every text it finds stands between word boundaries, its texts are
    ``re``'s (at each place, the same first alternative, and no other place can match); the first that does not
    hands the line to the exact regex (``re``, compiled then), as does a line RE2's wrapper cannot encode to UTF-8
    (a lone surrogate: JSON keeps an unpaired ``\\udcff`` escape)."""
    fast = _lowered_fast()
    if fast is not None:
        out = []
        try:
            for m in fast.finditer(low):
                s, e = m.span()
                if (s and low[s - 1] in _WORD_CHARS) or (e < len(low) and low[e] in _WORD_CHARS):
                    break
                out.append(m.group(0))
            else:
                return out
        except UnicodeEncodeError:
            pass
    scan = lowered()
    return [m.group(0) for m in scan.finditer(low)] if scan is not None else []


@lru_cache(maxsize=1)
def anchored() -> dict[str, list[tuple[str, list[str]]]]:
    """Anchor -> [(code, fixed parts)] of the message templates read (:mod:`.templates`), from the compiled knowledge
    base (empty when it cannot be read)."""
    from opsbrain.errors import InputError
    from opsbrain.kb.compiled import compiled_kb

    try:
        rows = compiled_kb().message_templates
    except InputError:
        return {}
    out: dict[str, list[tuple[str, list[str]]]] = {}
    for code, fixed in rows:
        out.setdefault(anchor_of(fixed), []).append((str(code), list(fixed)))
    return out


@lru_cache(maxsize=1)
def parts() -> frozenset[str]:
    """The template parts of the compiled knowledge base (empty when it cannot be read)."""
    from opsbrain.errors import InputError
    from opsbrain.kb.compiled import compiled_kb

    try:
        return frozenset(compiled_kb().message_parts)
    except InputError:
        return frozenset()


# an error code printed on the line: CANN's E?xxxx, torch_npu's ERRxxyyy; ACL/runtime return codes where the CANN
# parser reads one (cann.rt_codes: after its word; session 38, before any [125]0xxxx number, a task id too)
_OWN_CODE = lazy_compile(r"\bE[A-Z0-9]\d{4}\b|\bERR\d{5}\b")


def _template_code(low: str, texts: list[str]) -> str | None:
    """The code whose message template the lower-cased line prints (most fixed text first), among the anchors
    found."""
    best: tuple[int, str] | None = None
    for text in texts:
        for code, fixed in anchored().get(text, ()):
            size = sum(map(len, fixed))
            if (best is None or size > best[0]) and holds(low, fixed):
                best = (size, code)
    return best[1] if best else None


def parse(ctx: LineCtx) -> bool:
    rx, cats = catalog()
    if rx is None or not rx.may(ctx.text):
        return False
    if FAULT_MANAGER_EVENT.search(ctx.text):
        return False
    low = ctx.text.lower()
    texts = messages_in(low)
    if not texts:
        return False
    coded = _OWN_CODE.search(ctx.text) is not None or bool(rt_codes(RE_PLOG_HEAD.sub("", ctx.text, count=1)))
    dev = ctx.device()
    if not coded and (code := _template_code(low, texts)):
        # the message stands for its code; a documented part of it still says what it says (EE1024's "an OOM event
        # occurred on the device" names more than the code's timeout)
        ctx.add(f"err:{code}", ctx.npu(dev), 1 if code.startswith("W") else 2, device=dev)
    for text in texts:
        cat = cats.get(text)
        if not cat or (coded and text in parts()):
            continue
        if text == IO_ERROR_TEXT and not RE_DEVICE_IO_ERROR.search(ctx.text):
            continue  # a wrapper's I/O error (another errno, or its detail on the next line) is no device's
        ctx.add(f"msg:{cat}", ctx.npu(dev) or ctx.node, max(ctx.sev, 1), device=dev)
    return False  # documented messages add to what the other parsers find; they never end the line
