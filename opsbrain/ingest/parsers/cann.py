"""CANN process-log (plog) and runtime codes: ``[ERROR] RUNTIME(pid,proc):YYYY-MM-DD-HH:MM:SS.mmm.uuu [file:line]``
lines and consoles that relay them. Error codes of the CANN error-code reference (``EE9999``, ``EZ9999``,
``EL0004``, ``EJ0001``, ``EH0001``, ``E30008`` ...; ``EI`` codes are HCCL's, see :mod:`.hccl`), AscendCL / runtime
return codes (``507053``, ``507015``, ``207018``, ``107002``; with or without ``ErrCode=`` / ``error code is``),
torch_npu's ``ERR00100`` / ``ERR99999`` family, and the runtime's exception texts (AI Core / AI CPU / FFTS+ task
exceptions, memory copy failures)."""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import Screened, group_of, screened

RE_ECODE = screened(r"(?<![0-9A-Za-z])(E[A-HJ-Z]\d{4}|E[1-9]\d{4})(?![0-9A-Za-z])")
RE_ERR = screened(r"(?<![0-9A-Za-z])(ERR\d{5})(?![0-9A-Za-z])")
RE_RT = screened(r"(?<![0-9A-Za-z.:\-/_])([125]0\d{4})(?![0-9A-Za-z.:\-/_])")
_RT_CONTEXT = screened(r"err|fail|ret|result|code|exception|abnormal", re.I)
TEXTS: tuple[tuple[Screened, str], ...] = (
    (screened(r"ai ?core.*(?:exception|error|trap)|aicore_exception|aic(?:ore)? error|aivec.*(?:exception|error)|"
                r"kernel task happen error", re.I), "rt:aicore_exception"),
    (screened(r"ai ?cpu.*(?:exception|error|time ?out)", re.I), "rt:aicpu_exception"),
    (screened(r"fftsplus|ffts\+|ffts plus", re.I), "rt:ffts_exception"),
    (screened(r"memory async copy failed|memcpy.*fail|Dma copy failed|DMA.*timeout", re.I), "rt:memcpy_failed"),
    (screened(r"device.*(?:is )?(?:dead|lost|down)|(?:lost|no) heart ?beat|heart ?beat lost", re.I), "rt:device_lost"),
    (screened(r"stream.*(?:sync|synchronize).*(?:fail|timeout)|rtStreamSynchronize|aclrtSynchronize\w*.*fail", re.I),
     "rt:sync_failed"),
)


_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):  # the line screen rules out every regex of this parser: no signal here
        return False
    text = ctx.text
    found = False
    for code in dict.fromkeys(RE_ECODE.findall(text)):
        ctx.add(f"err:{code}", ctx.npu(), 2, device=ctx.device())
        found = True
    for code in dict.fromkeys(RE_ERR.findall(text)):
        ctx.add(f"err:{code}", ctx.npu(), 2, device=ctx.device())
        found = True
    if _RT_CONTEXT.search(text):
        for code in dict.fromkeys(RE_RT.findall(text)):
            ctx.add(f"rt:{code}", ctx.npu(), 2, device=ctx.device())
            found = True
    for rx, kind in TEXTS:
        if rx.search(text) and (ctx.sev >= 1 or found):
            ctx.add(kind, ctx.npu(), max(ctx.sev, 1), device=ctx.device())
            found = True
            break
    return found
