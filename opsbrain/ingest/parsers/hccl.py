"""HCCL (collective communication) text in CANN process logs and training consoles: notify-wait and socket
timeouts, heartbeat loss, transport/link set-up errors, the ``LINK_ERROR_INFO`` table rows (``| 124.0.0.11(1) |
124.0.0.21(0) | server | no connect |``), RDMA completion errors, and the ``EI`` error codes (CANN HCCL error-code
reference, facts.md §3). A line may also carry a remote (``remote[10.0.0.27]``, ``remoteIp[...]``) that the
collective waited for: it becomes the signal's ``peer``."""

from __future__ import annotations

import re

from opsbrain.ingest.benign import SETTING_LINE
from opsbrain.ingest.parsers.cann import RE_RT
from opsbrain.ingest.parsers.ctx import CODE_START, LineCtx
from opsbrain.ingest.parsers.framework import CFG_ENV
from opsbrain.ingest.rankrecords import STATUS_CELL
from opsbrain.ingest.screen import Screened, group_of, screened
from opsbrain.ingest.where import device_in, twin_node

RE_EI = screened(CODE_START + r"(EI\d{4})(?![0-9A-Za-z])")
_CQE_PEER = r"cqe err status\[\d+\].*?\bip:\["
"""HCCL's heartbeat CQE error names the peer whose RDMA work completed in error (``[Heartbeat]cqe err status[12],
time:[...], ip:[10.0.0.3]``, ascend-fd's st_cqe_testcase): the far end of the broken connection."""
RE_TWIN_REMOTE = screened(r"(?:remote\[|" + _CQE_PEER + r")10\.(\d+)\.(\d+)\.(\d+)\]", context=True)  # a peer
RE_REMOTE = screened(r"(?:(?:remote(?:_?ip|Ip|IpAddr)?|dest_?ip|peer(?:_?ip)?|dstIp)[\[=:\s(]+|" + _CQE_PEER + r")"
                     r"(\d{1,3}(?:\.\d{1,3}){3})", re.I, context=True)  # a signal's peer
RE_LINK_ROW = screened(r"\|\s*(\d{1,3}(?:\.\d{1,3}){3})\((\d+)\)\s*\|\s*(?:\d+\s*\|\s*)?"
                       r"(\d{1,3}(?:\.\d{1,3}){3})\((\d+)\)\s*\|\s*(?:\d+\s*\|\s*)?"
                       r"(\w+)\s*\|" + STATUS_CELL)  # with or without the port columns
TEXTS: tuple[tuple[Screened, str], ...] = (
    (screened(r"notify ?wait (?:time ?out|timeout)|wait notify timeout|NotifyWait.*timeout|"
                r"Task run failed.*notify|taskType\[Notify Wait\]|fftsplus task timeout.*stuck notify|"
                r"base information is .*\btype:NOTIFY WAIT,", re.I),
     "hccl:notify_timeout"),  # the FFTS+ form: "hccl fftsplus task timeout ... stuck notify num:3" (lmdeploy#3354);
    # the AI CPU's form in a device log: "[TaskException]base information is streamId:149, ..., type:NOTIFY WAIT,
    # localRank:1, remoteRank:0" (ascend-fd's st_aicpu_notify_testcase; its code 109, AI CPU notify wait timeout)
    # HCCL's task-exception record of a collective task that timed out ("[TaskExecStage][Timeout][Host]Task run
    # failed, base information is streamID:[2], taskID[21], tag[AllReduce_...]"): hicann/hccl docs/zh/user_guide/
    # fault_diagnosis/task_exec_stage.md, task exception mechanism (a notify wait no peer answered in time)
    (screened(r"\[TaskExecStage\]\[Timeout\]", re.I), "hccl:exec_timeout"),
    (screened(r"heart ?beat lost|lost heart ?beat|HeartBeat.*(?:lost|timeout|abnormal)", re.I), "hccl:heartbeat_lost"),
    # HCCL's QP creation refused for lack of device memory ("[%s] ra qp create fail, reason: out of memory.
    # qpInfo:[%s], return: ret[%d]"): hicann/hcomm@e11f953a src/platform/common/adapter/adapter_hccp.cc, CHK_OOM_RET,
    # printed when the RoCE driver returns ROCE_ENOMEM_RET (328100), with EI0011 (memory_size "[0.25MB, 3MB],
    # affected by QP depth configuration") and HCCL_E_OOM; the mscommreport case 13_cclBuffer内存申请失败 carries it
    # (session 43, tester43c). Memory, not a socket: read before the socket words its function tag may hold.
    (screened(r"\bra qp create fail, reason: out of memory\b", re.I), "mem:oom"),
    # torch_npu's ProcessGroupHCCL::broadcastMasterID: a rank other than 0 could not fetch rank 0's HCCL root info
    # from the c10d store while setting up a communicator. Older branches (v1.11.0 to v2.2.0-6.0.rc1, @750d5d12)
    # hide the store's reason behind the variable's name ("store->get() got error: HCCL_BLOCKING_WAIT", "Unknown
    # exception: HCCL_BLOCKING_WAIT"); later ones print it and the cause ("[3] is setting up HCCL communicator and
    # retrieving hcclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: ... This
    # may indicate a possible application crash on rank 0 or a network set up issue.", @9e73e708): a rank's
    # socket wait for a peer that never answered, as EI0006 (session 51, tester51j: DLRover's NPU job log).
    (screened(r"socket.*time ?out|get socket timeout|connect(?:ion)? time ?out|wait.*socket.*timeout|"
                r"\[Get\]\[Socket\]|RaSocket|socket (?:connect|recv|send)? ?fail|"
                r"(?:store->get\(\) got error|Unknown exception): HCCL_BLOCKING_WAIT|"
                r"retrieving hcclUniqueId from \[0\] via c10d key-value store", re.I), "hccl:socket_error"),
    (screened(r"transport.*init.*(?:fail|error)|create(?:d)? ?(?:commHD|transport|link).*fail|"
                r"LINK_ERROR_INFO|the connection failure between this device", re.I), "hccl:transport_init"),
    (screened(r"\bcqe\b.*err|err.*\bcqe\b|retry ?cnt exceed|retransmi\w* (?:exceed|time ?out)|"
                r"\bRDMA\b.*(?:error|fail)|\broce\b.*(?:error|fail)", re.I), "hccl:rdma_error"),  # words: not "pROCEss"
    (screened(r"HCCL_CONNECT_TIMEOUT|HCCL_EXEC_TIMEOUT|exec(?:ute)? ?timeout|execution timeout|"
                r"op ?timeout|collective.*time(?:d)? ?out|Watchdog caught collective operation timeout", re.I),
     "hccl:exec_timeout"),
    (screened(r"rank ?table.*(?:fail|error|invalid|not)|(?:fail|error|invalid).*rank ?table|RANK_TABLE_FILE|"
              r"\[Ranktabl(?:e)?(?:Config|Check)\]", re.I),
     "cfg:ranktable"),  # read on the line without HCCL's stage tags (RE_STAGE_TAG): the tag is not the text
)
WAIT_KINDS = frozenset({"hccl:notify_timeout", "hccl:exec_timeout", "hccl:heartbeat_lost", "hccl:socket_error"})
"""The kinds above that are a rank's report of a wait on other ranks: a notify wait or a collective's execution that
timed out, a peer's heartbeat lost, a socket to a peer that could not be set up in time. A collective spans every
node of its job, so the rank that prints one can sit on any of them: its part is a witness of the fault, not its
subject (the remote it waited for is, ``hccl:remote``). The RDMA completion error, the transport set-up failure and
the ``no connect`` rows are a rank's own transport or port errors: they stay with the part that prints them (the
RoCE port-down's die prints the error CQE; hicann/hccl docs, Error CQE Occurred)."""
RE_TIMEOUT_SETTING = screened(r"\b(?:HCCL_CONNECT_TIMEOUT|HCCL_EXEC_TIMEOUT)(?: (?:set by \w+ to \[\d+\]"
                              r"|(?:is )?not set,? (?:so )?(?:using|use) (?:the )?default)"
                              r"|\" is (?:parsed\.|not set\. Default value is used))"
                              r"|^\s*(?:is \d{1,7}s, )?You can set the interval by using HCCL_(?:EXEC|CONNECT)_TIMEOUT"
                              r"\.?\)?\s*$")
"""A timeout's value being set, not a timeout: HCCL's start-up line naming each timeout and where its value came from
(``[INFO] HCCL(114725,python3):... [externalinput.cc:407] [114725]HCCL_CONNECT_TIMEOUT set by environment to
[130]s``, every job's plog in ascend-fd's st_transport_init fixture; the multi-rank analysis reads the values from
it), or saying it was not set and its default is used (``HCCL_EXEC_TIMEOUT is not set, using default value 1836s``);
the 950's form of both (``[Init][EnvVarParam]Env config "HCCL_CONNECT_TIMEOUT" is parsed.``, ``... is not set. Default
value is used.``, INFO lines HCCL prints for each variable it reads: hicann/hccl@f97e5675 docs/zh/user_guide/
fault_diagnosis/debug_thinking.md, the 950 "base_config" listing; session 41).
A line that only gives the variable a number (``export HCCL_EXEC_TIMEOUT=1836``, an environment dump, a Python dict:
:data:`opsbrain.ingest.benign.SETTING_LINE`) is none either. An error that names the variable, with its value or not
(``execute timeout, HCCL_EXEC_TIMEOUT=1836s exceeded``), is still a timeout. Nor is the canned advice torch_npu prints
under ERR00100 (``Possible Cause: ... 2. The execution speed on some NPU in the cluster is too slow to complete a
communication operation within the timeout interval. (The default timeout interval is 1800s, You can set the interval
by using HCCL_EXEC_TIMEOUT.)``): where the advice is written over several lines, the line that names the variable
comes after the ``Possible Cause:`` head that cuts a one-line rendering (:data:`opsbrain.ingest.parsers.ADVICE`). Only
that sentence as the whole line (review58: the same words after a timeout HCCL reports keep its reading); it read
``hccl:exec_timeout`` under an sglang copy that failed with ``tsfw unknown error`` (session 58, tester58p's b58p-03:
the engine's collective_timeout_sw 0.50, overruled by the text model)."""
RE_STAGE_TAG = screened(r"\[(?:InitGroupStage|InitChannelStage|TaskExecStage)\]\[(Ranktable(?:Config|Check|Detect))\]")
"""HCCL's multi-level search keywords (hicann/hccl docs/zh/user_guide/fault_diagnosis/debug_thinking.md, "HCCL
多级检索关键字"): a stage tag and a scene tag on every error of that scene. Two of the init-stage scenes are rank
table faults, ``RanktableConfig`` (the rank table file cannot be read: ``[InitGroupStage][RanktableConfig]errNo[...]
path /ranktable.json is not a valid real path``, rank_table_load_fail.md) and ``RanktableCheck`` (its cluster
information fails the checks: cluster_info_verify_fail.md): ``cfg:ranktable``. ``RanktableDetect`` is the
root-info negotiation of the communicator's ranks (cluster_info_nego.md: a rank that cannot reach the server's host
NIC, ranks that never called the init, a server port already bound), which uses no rank table: its tag says nothing
of the cause, so the word "Ranktable" in it is not read as a rank-table fault; the rest of the line still is. A
config or check scene tag without its stage tag (``[RanktablCheck] 'device ip' is not set
correctly, must be set when multi Server or HCCL INTRA ROCE ENABLE enabled``, a D node's plog in vllm-ascend#7711,
the tag spelled so) is a rank-table fault as well."""
STAGE_RANKTABLE = frozenset({"RanktableConfig", "RanktableCheck"})
RE_EXCEPTION_TYPE = screened(r"ExceptionType:\[(Stuck|Error cqe) Occurred\]", re.I)
"""The type of a cluster exception HCCL's heartbeat broadcast reports (hicann/hccl docs/zh/user_guide/
fault_diagnosis/task_exec_stage.md, cluster heartbeat table): ``Error cqe Occurred`` is a network problem (RoCE
retransmissions past the limit), ``Stuck Occurred`` a rank whose operators stopped moving (host process or device
task stuck), ``Heartbeat Lost Occurred`` a rank that sent no heartbeat for 30 s. The record is tagged
``[HeartbeatAbnormal]`` whatever its type, so only the lost type is a lost heartbeat."""
EXCEPTION_KINDS = {"stuck": "hccl:exec_timeout", "error cqe": "hccl:rdma_error"}
RE_PARAM_CONFLICT = screened(r"\[ParameterConflict\]|CMD information \w+ check fail|"
                             r"arguments for collective communication are inconsistent between ranks", re.I)
"""HCCL's consistency check at link set-up (hicann/hccl docs/zh/user_guide/fault_diagnosis/param_link_stage.md,
EI0005): the two ends of a link issued collectives whose tag, type, reduce op, count, buffer size or data type
differ (``[InitChannelStage][ParameterConflict]CMD information tag check fail. local[AllGather_...],
remote[AllReduce_...]``, ``EI0005: ... The arguments for collective communication are inconsistent between
ranks:parameter count, local end 16512, remote end 8320``). The guide puts the cause in the business code that
issued different operators on the ranks: ``hccl:param_mismatch``."""
RE_ROOT_RANK = screened(r"Cluster Exception Location\[IP/ID\]:\[(\d{1,3}(?:\.\d{1,3}){3})/(\d+)\]|"
                        r"serverId\[(\d{1,3}(?:\.\d{1,3}){3})\], ([^,]{1,40}), "
                        r"(?:Heartbeat Lost|Stuck|Error cqe) Occurred")
"""HCCL's own root of a cluster failure: the rank its heartbeat broadcast blames, as the error log prints it
(``Cluster Exception Location[IP/ID]:[90.90.92.240/1] ... ExceptionType:[Heartbeat Lost Occurred]``) or the
EI0002 text's abnormal-device list (``serverId[192.168.100.111], deviceId[4], Heartbeat Lost Occurred``; its device
field read by :func:`opsbrain.ingest.where.device_in`, in any spelling a re-spelt copy may carry). CANN HCCL
user guide, fault-detection chapter (hcclug_000055) and EI0002 chapter (hcclug_000031): the root becomes the
``hccl:remote`` the collective waited for, on that server's device."""
RE_HCCL_RET = screened(r"(?:HCCL|OPS) function error: \W*(?:hccl|Hccl|HCCL)\w*.*?error code is (\d{1,4})\b|"
                       r"\bHccl\w+ fail\w*, error:(\d{1,4})\b|\bhcclRet -> (\d{1,4})\b|"
                       r"\bfail(?:ed)?[.,]? ret\[(\d{1,4})\]|function of the hccl module\. ret = (\d{1,4})\b")
"""An HCCL API's return code (HcclResult, hicann/hcomm include/hccl/hccl_types.h): torch_npu's ``HCCL function
error: hcclCommInitRootInfoConfig(...), error code is 1`` and ``OPS function error: HcclAllreduce, error code is 6``,
MindIE's ``HcclCommInitRootInfo fail, error:2``, HCCL's own ``call trace: hcclRet -> 4`` and ``... is failed.
ret[9]``, and the aclnn base's ``Nnopbase fails to invoke the HcclAllocComResourceByTiling function of the hccl
module. ret = 4``; the kind ``hcclret:N`` takes its roles from knowledge_base/codes.yaml ``hccl_results``."""
_OTHER_CODES = screened(r"E[A-HJ-Z]\d{4}|ERR\d{5}|(?i:" + RE_RT.pattern + ")", context=True)
"""A CANN or runtime code on the line, which the CANN parser reads after this one (so the line is not explained
here): a runtime code only where that parser reads one, after its word (session 38; before, any ``50xxxx``)."""
RE_RT_TRACE = screened(r"\[FUNC:\w+\]\[FILE:\w+\.c(?:c|pp)?\]|reason=\[?lost heart ?beat", re.I)
"""The runtime's own trace of a lost device heartbeat (``Device[0] lost heartbeat.[FUNC:SyncTask][FILE:
direct_hwts_engine.cc][LINE:407]``, ``rtDeviceSynchronizeWithTimeout execution failed, reason=lost heartbeat``,
vllm-ascend#8186): the task scheduler of the device stopped answering (ACL_ERROR_RT_LOST_HEARTBEAT 507010, "The task
scheduler loses the heartbeat"), read by the CANN parser as a lost device, not HCCL's heartbeat between ranks."""
RE_CQE_NOT_TIMEOUT = screened(r"\bTask run failed\b.*\berrType=0x[0-9a-f]+\((?!task timeout\))[a-z ]+\)", re.I)
"""The runtime's failed-task record names why the task failed (``ProcLogicCqReport:Task run failed, ...,
sqe_type=7(notify wait), errType=0x20(sq sw status error), sqSwStatus=0x102d0559``): the CQE's error bit by
its name, ``task exception``, ``task trap``, ``task timeout``, ``sqe error``, ``resource conflict error``, ``sq sw
status error``, ``warning`` (hicann/runtime src/runtime/core/src/engine/stars/stars_engine.cc @f5c2df5a,
``StarsEngine::StarsCqeErrorDesc_`` and ``ProcLogicCqReport``). A notify-wait task that failed for any reason but
``task timeout`` did not time out waiting for a peer: the runtime aborted the stream when another task on the device
failed (the CANN troubleshooting case of MoE dispatch/combine prints it before the AI Core's ``MTE instruction is out
of range``), so it is no ``hccl:notify_timeout`` (session 36; before, any ``Task run failed ... notify`` was one)."""
RE_ONE_SIDED_LINK = screened(r"\[IsUsedRdma\]localDeviceId: -?\d+, remoteDeviceId: -?\d+, "
                             r"linkType \d+ is not supported")
"""HCCL's one-sided service (under HIXL / LLM-DataDist and Mooncake's AscendDirectTransport, the KV-cache transfer
of PD disaggregation) refusing a pair of devices on one server: on a 910B such a pair uses RDMA only when intra-node
RoCE is switched on (``GetExternalInputIntraRoceSwitch()``, HCCL_INTRA_ROCE_ENABLE), otherwise its link type must be
HCCS, else ``HCCL_ERROR("[HcclOneSidedService][IsUsedRdma]localDeviceId: %d, remoteDeviceId: %d, linkType %u is not
supported")`` and ``HCCL_E_NOT_SUPPORT`` (CANN Open Software HCCL, hccl_one_sided_service.cc
``HcclOneSidedService::IsUsedRdma``; a copy at HongminTan/ACNC2025-HCCL@b9714026 src/domain/collective_communication/
framework/communicator/impl/one_sided_service/). The cards chosen and the switch, not an operator: ``cfg:env`` (before,
``op:unsupported`` from the framework parser's "not supported"; vllm-ascend#13175's decode plog, session 52,
tester52d)."""
_HCCL_CONTEXT = screened(r"HCCL|hccl|hcom|Hccl|HCOM|collective|allreduce|all_reduce|allgather|broadcast", re.I,
                         context=True)


def _peer(ctx: LineCtx) -> str | None:
    """The remote a line names: the twin's node id for the twin's management address (``remote[10.0.0.40]`` ->
    ``pod0/node39``) on the twin's own lines only (a line of a host named like the twin's, or of no host); on a
    real host's line the address as written (tester BJ: a real bundle's missing host was named ``pod0/node39``)."""
    twin = ctx.is_twin() if ctx.twin is not None else (
        not ctx.node or twin_node(ctx.node.replace("/", "-")) is not None)
    if twin and (m := RE_TWIN_REMOTE.search(ctx.text)):
        p, hi, lo = (int(x) for x in m.groups())
        return f"pod{p}/node{hi * 250 + lo - 1}"
    if m := RE_REMOTE.search(ctx.text):
        return m.group(1)
    return None


_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):  # the line screen rules out every regex of this parser: no signal here
        return False
    text = ctx.text
    if m := RE_LINK_ROW.search(text):
        dest, dest_rank, _src, _src_rank, _role, status = m.groups()
        if status.strip().lower() != "connected":
            ctx.add("hccl:no_connect", ctx.npu(), 2, peer=f"{dest}({dest_rank})", device=ctx.device())
        return True
    found = False
    if m := RE_ROOT_RANK.search(text):
        ip, dev = (m.group(1), int(m.group(2))) if m.group(1) else (m.group(3), device_in(m.group(4)))
        if dev is not None:
            ctx.add("hccl:remote", f"{ip}/npu{dev}", 1, peer=ip, device=dev)
            found = True
    peer = _peer(ctx)
    codes = list(dict.fromkeys(RE_EI.findall(text)))
    for code in codes:
        ctx.add(f"hccl:{code}", ctx.npu(), 2, peer=peer, device=ctx.device())
        if peer and peer.startswith("pod"):
            ctx.add("hccl:remote", peer, 1, peer=peer)
        found = True
    if ctx.sev >= 2 and RE_ONE_SIDED_LINK.search(text):  # the deployment, not an operator (see above)
        ctx.add("cfg:env", ctx.npu(), 2, peer=peer, device=ctx.device())
        return True
    if m := RE_HCCL_RET.search(text):
        ret = int(next(g for g in m.groups() if g is not None))
        if ret:  # HCCL_SUCCESS is no error; the return code adds to the line, it does not explain it (a relayed
            ctx.add(f"hcclret:{ret}", ctx.npu(), 2, peer=peer, device=ctx.device())  # RuntimeError still counts)
    hccl_line = bool(codes) or bool(_HCCL_CONTEXT.search(text))
    if RE_PARAM_CONFLICT.search(text):
        ctx.add("hccl:param_mismatch", ctx.npu(), 2, peer=peer, device=ctx.device())
        found = True
    if m := RE_EXCEPTION_TYPE.search(text):  # a stuck rank or a CQE error, not a lost heartbeat (see above)
        ctx.add(EXCEPTION_KINDS[m.group(1).lower()], ctx.npu(), max(ctx.sev, 1), peer=peer, device=ctx.device())
        return not _OTHER_CODES.search(text)
    tag = RE_STAGE_TAG.search(text)
    tagged = bool(tag and tag.group(1) in STAGE_RANKTABLE)
    if tagged:
        ctx.add("cfg:ranktable", ctx.npu(), max(ctx.sev, 1), peer=peer, device=ctx.device())
        found = True
    untagged = RE_STAGE_TAG.sub("", text) if tag else text
    for rx, kind in TEXTS:
        if tagged and kind == "cfg:ranktable":
            continue  # the scene tag said so already
        if rx.found(untagged if kind == "cfg:ranktable" else text) and (
                hccl_line or kind in ("hccl:notify_timeout", "hccl:heartbeat_lost", "cfg:ranktable")):
            if kind == "hccl:heartbeat_lost" and ("drv_" in text or (not hccl_line and RE_RT_TRACE.search(text))):
                continue  # the driver's (kernel parser) or the runtime's (CANN parser) device heartbeat, not HCCL's
            if kind == "hccl:exec_timeout" and (RE_TIMEOUT_SETTING.search(text) or SETTING_LINE.match(text)):
                continue  # the value a job started with, not a timeout
            if kind == "hccl:notify_timeout" and RE_CQE_NOT_TIMEOUT.search(text):
                continue  # the runtime says the notify-wait task failed for another reason than a timeout
            ctx.add(kind, ctx.npu(), max(ctx.sev, 1), peer=peer, device=ctx.device())
            if kind in ("hccl:notify_timeout", "hccl:rdma_error") and not codes and peer and peer.startswith("pod"):
                ctx.add("hccl:remote", peer, 1, peer=peer)  # the remote the wait or the failed RDMA work names
            found = True
            break
    if found and CFG_ENV.search(text):
        ctx.add("cfg:env", ctx.npu(), 2, device=ctx.device())  # an HCCL error that names its configuration cause
    return found and not _OTHER_CODES.search(text)
