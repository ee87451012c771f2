"""Monitoring components' own failures (:data:`opsbrain.ingest.benign.COMPONENT_SELF`): npu-exporter's failure to run
``hccn_tool`` (:data:`opsbrain.ingest.benign.SELF_FAILURE`) is a warning of the node, of its own kind, and the line is
fully explained by it: no other parser reads its error text (``no such file or directory``) as the job's."""

from __future__ import annotations

import re

from opsbrain.ingest.benign import SELF_FAILURE
from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened

RE_EXPORTER_READ = screened(SELF_FAILURE.pattern, re.I)
_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    if _ANY.may(ctx.text) and RE_EXPORTER_READ.search(ctx.text):
        ctx.add("mon:exporter_read", ctx.node, 1)
        return True
    return False
