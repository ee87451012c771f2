"""Ascend DMI diagnosis and stress-test reports (``ascend-dmi --dg -i aicore [-s]``, ``--dg --scene ...``). The tool
prints one item per line and its verdict indented on the next (``aicore:`` then ``PASS``), and a failing item's
details as ``*** ...`` lines. Verdicts (MindCluster ToolBox guide, "AICORE诊断"/"AICORE压测", toolboxug_0152/0153):
PASS no anomaly, SKIP not supported, EMERGENCY_WARN replace the hardware, GENERAL_WARN (CANN "AI Core Error"
troubleshooting guide: may be an AI Core problem; the knowledge graph: rerun the task), FAIL the test failed.

Lines are read one at a time, so a verdict line does not know its item: the kinds say what the line says
(``dmi:emergency_warn``, ``dmi:general_warn``, ``dmi:fail``; ``dmi:device_error`` on the device a ``*** Device N:``
detail names, as in CANN's "AI Core超时故障" case: ``*** Device 4: a timeout error occurred.``; ``dmi:npu_busy`` when
the tool warns that other processes hold the NPU and results may be affected). PASS, HEALTH and SKIP give nothing.
"""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened

RE_VERDICT = screened(r"^\s+(EMERGENCY_WARN|GENERAL_WARN|FAIL)\s*$")
RE_DEVICE_DETAIL = screened(r"^\s*\*\*\* Device (\d+): (.{1,200})")
RE_BUSY = screened(r"^\s*\*\*\* Some processes are seizing the NPU", re.I)
VERDICT_KIND = {"EMERGENCY_WARN": ("dmi:emergency_warn", 2), "GENERAL_WARN": ("dmi:general_warn", 1),
                "FAIL": ("dmi:fail", 2)}

_ANY = group_of(globals())


def _verdict(ctx: LineCtx, m: re.Match[str]) -> None:
    kind, sev = VERDICT_KIND[m.group(1)]
    ctx.add(kind, ctx.node, sev)


def _device_detail(ctx: LineCtx, m: re.Match[str]) -> None:
    dev = int(m.group(1))
    ctx.add("dmi:device_error", ctx.npu(dev) or ctx.node, 2, device=dev)


def _busy(ctx: LineCtx, m: re.Match[str]) -> None:
    ctx.add("dmi:npu_busy", ctx.node, 1)


READERS = ((RE_VERDICT, _verdict), (RE_DEVICE_DETAIL, _device_detail), (RE_BUSY, _busy))


def parse(ctx: LineCtx) -> bool:
    """A line of an ascend-dmi report is fully explained by what it says (no other parser reads it)."""
    if _ANY.may(ctx.text):  # else the line screen rules out every regex of this parser
        for rx, read in READERS:
            if m := rx.match(ctx.text):
                read(ctx, m)
                return True
    return False
