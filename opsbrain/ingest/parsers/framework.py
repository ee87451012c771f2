"""Framework consoles (torch_npu, MindSpore, vllm-ascend, MindIE, training launchers): Python exceptions as
printed (``RuntimeError: NPU out of memory. Tried to allocate ...``), out-of-memory texts, version and environment
errors, unsupported operators, graph-compile failures, NaN losses and data-loader timeouts."""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.ctx import LineCtx

RE_EXC = re.compile(r"(?:^|[\s:\]>|])((?:[A-Za-z_][\w]*\.)*([A-Z][A-Za-z0-9_]*(?:Error|Exception|Interrupt|Exit|Fault)))"
                    r"(?::|$)")
TEXTS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"out of memory|OutOfMemory|\bOOM\b|memory (?:allocation|alloc) fail|fail(?:ed)? to (?:allocate|"
                r"malloc)|alloc(?:ate)? memory fail|aclrtMalloc\w* fail|Tried to allocate|memory is not enough|"
                r"insufficient (?:device )?memory|not enough memory|EL0004|memory pool.*(?:full|exhaust)", re.I),
     "mem:oom"),
    (re.compile(r"version.*(?:mismatch|not match|does not match|not compatible|incompatible|not supported)|"
                r"(?:mismatch|incompatible).*version|requires? .*version|version.*(?:too low|too old|lower than)", re.I),
     "cfg:version"),
    (re.compile(r"No module named|cannot open shared object|libascend\w*\.so|set_env\.sh|LD_LIBRARY_PATH|"
                r"ASCEND_(?:HOME|TOOLKIT|OPP|RT_VISIBLE)\w*|command not found|Permission denied|No such file or "
                r"directory|environment variable|env(?:ironment)? (?:is )?not (?:set|found)|undefined symbol", re.I),
     "cfg:env"),
    (re.compile(r"invalid device|device id.*(?:invalid|out of range|exceed)|(?:invalid|wrong) (?:rank|device)|"
                r"visible devices|set_device.*fail|SetDevice.*fail", re.I), "cfg:device"),
    (re.compile(r"not supported|unsupported|not implemented|NotImplemented|is not support|no kernel|"
                r"not registered|op type .* not", re.I), "op:unsupported"),
    (re.compile(r"compile.*fail|fail.*compil|build graph fail|graph.*(?:build|compile).*fail|"
                r"TBE.*fail|op_compile|CompileOp", re.I), "op:compile"),
    (re.compile(r"aclnn\w*.*(?:fail|error)|(?:fail|error).*aclnn", re.I), "op:aclnn"),
    (re.compile(r"loss is nan|nan loss|grad(?:ient)? norm is (?:inf|nan)|loss scale.*overflow|"
                r"found NaN in local grad norm", re.I), "train:nan"),
    (re.compile(r"\bdcmi\b|drvError|halGetDeviceInfo|driver.*(?:fail|error|not)|firmware.*(?:fail|error|mismatch)|"
                r"dsmi_\w+ fail", re.I), "drv:api_error"),
)


def parse(ctx: LineCtx) -> bool:
    text = ctx.text
    found = False
    for rx, kind in TEXTS:
        if rx.search(text):
            dev = ctx.device()
            ctx.add(kind, ctx.npu(dev) or ctx.node, 2, device=dev)
            found = True
            break
    if m := RE_EXC.search(text):
        name = m.group(2)
        if name not in ("StopIteration",):
            ctx.add(f"py:{name}", ctx.node, 2)
            found = True
    elif "Traceback (most recent call last)" in text:
        ctx.add("py:traceback", ctx.node, 1)
        found = True
    return found
