"""MindIE (Ascend inference serving) error codes in its server and MindIE-MS logs: ``MIE05E040000[llm_backend] get
model instance processing request failed`` become ``err:<code>``. A code is ``MIE``, a two-digit component (04 the
Server, 05 LLM, 03 MS / Motor ...), a level letter and a six-digit *hexadecimal* code of the component (MindIE
error-code reference, "使用说明": ``MIE01E000001``; the Server's own codes end in hex digits, ``MIE04E02041C``,
``MIE04E01010A``). The shipped knowledge base gives the codes no category (their meanings are listed only in
MindCluster FaultDiag's knowledge graph, vendor data not copied here); an imported knowledge graph (``opsbrain kb
import``) speaks for them at run time. One field the reference documents is read: the error type of a Server code
(its last two hex digits; the Server's "错误码展示方式说明": sub-component, service phase, error type), where ``1B``
is a configuration error (``cfg:env``). Earlier releases numbered the types otherwise but had no ``1B``; the other
types (``1C`` an initialisation exception, ``16`` an unknown error ...) name no cause.

Three LLM codes name a cause of the device's (session 48, the lead; :data:`LLM_CAUSES`): MindIE LLM's own table
(Ascend/MindIE-LLM mindie_llm/utils/log/error_code.py @8b4871ad, ``ErrorCode``) names ``MIE05E01000A``
TEXT_GENERATOR_OUT_OF_MEMORY, ``MIE05E000005`` ATB_MODELS_OUT_OF_MEMORY and ``MIE05E01000B``
TEXT_GENERATOR_HBM_MULTI_BIT_ECC_ERROR, the last raised where the model's exception carries torch_npu's ``HBM MULTI
BIT ECC ERROR`` (``EXCEPTION_TO_ERROR_CODE``); ``ErrorCodeException`` prints ``<NAME> fault happened, error code:
<code>.``. They read as the allocators' out-of-memory (``mem:oom``) and the runtime's multi-bit ECC error
(``ecc:uce``) do; the table's other codes (parameters, plug-ins, PD links) name no cause of ours."""

from __future__ import annotations

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened

RE_MIE = screened(r"(?<![0-9A-Za-z])(MIE\d{2}[A-Z][0-9A-F]{6})(?![0-9A-Za-z])")
SERVER = "04"  # the component code of MindIE Server
SERVER_CONFIG_TYPE = "1B"  # a Server code's error type: configuration error
LLM_CAUSES = {"MIE05E01000A": "mem:oom", "MIE05E000005": "mem:oom", "MIE05E01000B": "ecc:uce"}
"""MindIE LLM codes whose documented name is a cause (module docstring)."""

_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):
        return False
    for code in dict.fromkeys(RE_MIE.findall(ctx.text)):
        comp, dev = ctx.npu() or ctx.node, ctx.device()
        ctx.add(f"err:{code}", comp, max(ctx.sev, 1), device=dev)
        if code[3:5] == SERVER and code[5] == "E" and code[-2:] == SERVER_CONFIG_TYPE:
            ctx.add("cfg:env", comp, 2, device=dev)
        if (cause := LLM_CAUSES.get(code)) is not None:
            ctx.add(cause, comp, 2, device=dev)
    return False  # a code adds to the line; the other parsers still read its text
