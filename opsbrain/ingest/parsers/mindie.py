"""MindIE (Ascend inference serving) error codes in its server and MindIE-MS logs: ``MIE05E040000[llm_backend] get
model instance processing request failed`` (``MIE`` + component + level + six digits) become ``err:<code>``. The shipped
knowledge base gives them no category (their meanings are listed only in MindCluster FaultDiag's knowledge graph,
vendor data not copied here); an imported knowledge graph (``opsbrain kb import``) speaks for them at run time."""

from __future__ import annotations

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened

RE_MIE = screened(r"(?<![0-9A-Za-z])(MIE\d{2}[A-Z]\d{6})(?![0-9A-Za-z])")

_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):
        return False
    found = False
    for code in dict.fromkeys(RE_MIE.findall(ctx.text)):
        ctx.add(f"err:{code}", ctx.npu() or ctx.node, max(ctx.sev, 1), device=ctx.device())
        found = True
    del found
    return False  # a code adds to the line; the other parsers still read its text
