"""Configuration and environment texts of the framework consoles (:mod:`opsbrain.ingest.parsers.framework`): a
library, path, file, port or host name the job's environment lacks, a setting the line names as wrong, a parallel
layout the model cannot take, the model converter's ``--out_nodes`` refusals; and the texts that look like them but
are no fault of the environment (a system path's ENOENT, advice to set a variable, a default taken). The CANN and
HCCL parsers read :data:`CFG_ENV` on a line they found failing. Split from framework.py in session 44."""

from __future__ import annotations

import re

from opsbrain.ingest.screen import screened
from opsbrain.lazyre import lazy_compile

_ENV = (
    r"No module named|No package metadata was found for|cannot open shared object|libascend\w*\.so|set_env\.sh|"
    r"LD_LIBRARY_PATH|"
    r"(?-i:ASCEND_(?:HOME|TOOLKIT|OPP|RT_VISIBLE)\w*)|command not found|Permission denied|No such file or "
    r"directory|environment variable|env(?:ironment)? (?:is )?not (?:set|found)|not found in the environment|"
    r"undefined symbol|init env failed|\[EnvConfig\]|\bby (?:HCCL|HCCN|ASCEND)_[A-Z_]+|AclSetCompileopt|"
    r"address already in use|port is (?:been |being )?(?:using|used|in use|occupied)|port .{0,40}(?:in use|occupied)|"
    r"\bfail(?:ed)? to (?:listen|bind)(?: on| to| at)?:?\s*\[?\d{1,3}(?:\.\d{1,3}){3}\]?:\d{1,5}\b|"
    r"gethostbyname failed|Name or service not known|DNS resolution failed|"
    r"\bThere are not enough slots available in the system to satisfy the \d+|\bwas not reachable via ssh\b|"
    r"(?:npu-smi|hccn_tool|ascend-dmi|msnpureport) not found|Cannot find bin(?:ary)? (?:of|for) op|"
    r"未找到命令|died unexpectedly with status 127|\bsh: \d+: [^\s:]+: not found|\bvisible devices \(0\)|"
    r"\b(?:received|sent) message (?:after decompression )?larger than max\b|"
    r"\bunknown or invalid runtime name: \S|\bUnknown runtime specified \S|"
    r"\bCheck (?:Owner|Owner group|Other group) permission failed\b|\bowner id diff: current process user id is \d|"
    r"\b(?:owner|permission) not right\b|"
    r"\[ERROR\] You are not the owner of path\b|"
    r"\bNo matching distribution found for \S|\bCould not find a version that satisfies the requirement \S|"
    r"\bcan't be installed because it doesn't have a source distribution or wheel for the current platform\b|"
    r"\bCannot install .{1,300}? because these package versions have conflicting dependencies\b|"
    r"\bThe following packages are not available from current channels\b")
_FILES = (r"(?<!device )\bpath\b(?![\s:=\[(\"']*/dev/)(?:[^.;]|\.(?=\S)){0,120}\b(?:does not|do not|doesn't) exist"
          r"(?!,? (?:ignoring|skipping)\b)|"
          r"\b(?:fail(?:ed)? to|cannot|can't|could not|unable to) open (?:the )?(?:(?!device )[A-Za-z]+ )?file\b"
          r"(?![\s:=\[(\"']*/dev/)(?!.{0,200}?(?:Input/output error|Read-only file system|\berrno[=: ]\s*(?:5|30)\b))|"
          r"\[Errno 2[01]\] (?:Is|Not) a directory: |\b(?:IsA|NotA)DirectoryError: ")
"""A path the job was given that does not exist, a file that cannot be opened (see :data:`CFG_ENV_TEXT`). A dot
inside a path (``./output``, ``model.om``) is no sentence end. An open that failed with EIO or EROFS (glibc
strerror: ``Input/output error``, ``Read-only file system``; GE's E13001 appends it, ``Reason: [Errno 5]
Input/output error``, hicann/ge model_parser_base.cc; hccn_tool prints the number, ``errno=5``, hicann/driver
dsmi_optical.c; EIO 5, EROFS 30 on Linux) is the storage's, not the job's files. Nor is a device node
(``/dev/davinci3``, a "device path" or "device file"): the driver creates them, and the driver's own check says so
(hicann/driver dsmi_product_ext.c: ``Davinci device path does not exist. (path="/dev/davinci3")``). Nor a path the
program says it ignores or skips (session 39): kubelet's watch of its static-pod directory prints ``"Unable to read
config path" err="path does not exist, ignoring" path="/etc/kubernetes/manifests"`` at level E every second or so
when the node has no such directory, and goes on with no static pods (kubernetes/kubernetes
pkg/kubelet/config/file_linux.go, ``doWatch``: a missing path is an empty pod list, a retryable error).
A path of the wrong kind, as Python's OSError prints it (``IsADirectoryError: [Errno 21] Is a directory: '<path>'``,
``NotADirectoryError: [Errno 20] Not a directory: ...``; EISDIR / ENOTDIR, ``[Errno N] strerror: 'filename'``,
CPython Objects/exceptions.c ``OSError_str``) or as a framework's argument check raises it (MindSpore's
``save_checkpoint``: ``IsADirectoryError: For 'save_checkpoint', the parameter `ckpt_file_name`: ... is a directory, it
must be a file name.``, mindspore/train/serialization.py): a directory given where a file is opened, or the reverse,
the job's arguments as a missing path is (session 55, tester55g: a weight-conversion script handed a model directory
for its file argument, ji-huazhong/verl@6ae8a79 bugfix.md, read framework_error 0.60 from the bare exception)."""
_SETTING = r"configuration (?:item|file)\b|config file\b|for (?:parameter|option) --[A-Za-z]"
_SETTING_VAR = (r"(?-i:\b(?:(?:HCCL|HCCN|ASCEND|ATB|ASDOPS|LCCL|MINDIE|PYTORCH_NPU|TORCH_NPU|TASK_QUEUE|RANK_TABLE)"
                r"_[A-Z0-9_]*[A-Z0-9]|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_BUFF?SIZE(?:_[A-Z0-9]+)*)\b)")
_SETTING_VERDICT = (r"(?:too (?:small|large|big|low|high)|invalid|illegal|not valid|out of (?:the )?range|"
                    r"not set\b(?!,? (?:so )?(?:using|use) (?:the )?default)|must be|should be|"
                    r"should (?:be )?(?:larger|greater|smaller|less) than|insufficient|not enough)\b")
_SETTING_WRONG = (rf"(?<!\bif )(?<!\bwhen )(?<!\bwhether ){_SETTING_VAR}[^.;,]{{0,40}}?\b{_SETTING_VERDICT}|"
                  rf"\b(?:invalid|illegal|wrong) (?:value (?:of|for) )?(?:the )?(?:env(?:ironment)? (?:variable )?)?"
                  rf"{_SETTING_VAR}")
"""An environment setting the line names as wrong: too small or too large, invalid, out of range, required (``must
be``) or not set. The setting is named as the CANN and Ascend libraries name theirs (``HCCL_*``, ``HCCN_*``,
``ASCEND_*``, ATB's ``ATB_*`` / ``ASDOPS_*`` / ``LCCL_*``, ``MINDIE_*``, torch_npu's ``PYTORCH_NPU_*`` /
``TASK_QUEUE_ENABLE``, ``RANK_TABLE_FILE``; any ``*_BUFFSIZE``), in capitals: the MoE dispatch / combine operators'
tiling check of the communication window (ops-transformer moe_distribute_*_tiling.cpp: ``HCCL_BUFFSIZE is too SMALL,
... NEEDED_HCCL_BUFFSIZE(...) = %luMB, HCCL_BUFFSIZE=%luMB.``; the FAQ of hicann/cann-recipes-infer's model guides:
set ``export HCCL_BUFFSIZE`` to the size needed, the same on every rank; the HCCL_BUFFSIZE reference of the CANN
environment-variable guide). The variable is the cause and its value the fix, whatever operator or wrapper code
(EZ1008 "Failed to execute tiling function", ERR00100) reports the failure around it. Not a sentence about the
setting (``if HCCL_BUFFSIZE is too small ...``), a default taken (``... is not set, using default ...``), nor a
line stated below ERROR (:func:`opsbrain.ingest.parsers.framework.parse`)."""
_FAILING = (r"fail|error|invalid|cannot|can't|unable|could not|not (?:found|exist|set)|no such|denied|wrong|"
            r"incorrect|illegal|missing")
_ATC_OUT_NODES = (r"\bUser specified tensor\[[^\]]*\] is not output of graph\b|"
                  r"\bThe input format of --out_nodes is invalid\b")
"""The model converter (ATC) refusing the output nodes its ``--out_nodes`` argument names: ``E19999 User specified
tensor[p2o.Concat.38] is not output of graph.`` (Huawei's ATC fault case, https://www.hiascend.com/document/
caselibrary/detail/atc_case_00003: the node named does not exist or is named without its output index,
``p2o.Concat.38:0``) and ``The input format of --out_nodes is invalid`` (the ATC guide's troubleshooting,
https://www.hiascend.com/document/detail/zh/canncommercial/5046/inferapplicationdev/atctool/atlasatc_16_0177.html:
the output index left out). The conversion's command line, not the converter: E19999 is GE's catch-all inner error
(``err:E19999``, ambiguous), the text says which setting (session 43). Read on the code's line as :data:`CFG_ENV`
(the CANN parser), and on a line of its own (:data:`RE_ATC_OUT_NODES`)."""
CFG_ENV = screened("|".join((_ENV, _FILES, _SETTING, _SETTING_WRONG, _ATC_OUT_NODES)), re.I)
"""Missing or wrongly set pieces of the environment, on a line another parser found failing (CANN, HCCL). A
configuration file or item, or a command-line option (``--aicore_num``), named by a failing line is a setting the job
was started with: the CANN references' solution for such errors is to change the setting (EP0003 "Value ... for
configuration item dump_path in configuration file acl.json is invalid", E20101 with an ATC/ACL option,
hicann/runtime docs/zh/error_code_ref), not the program. ``Cannot find bin of op <type>``: the operator's compiled
kernel is not installed (torch_npu troubleshooting, "operator call error" ERR01100: the matching Kernels / ops
package missing comes first among the causes; CANN installs op binaries with the ops package). ``No package metadata
was found for <name>`` (session 40): CPython's ``importlib.metadata.PackageNotFoundError``, a subclass of
``ModuleNotFoundError`` raised when a distribution is not installed (cpython Lib/importlib/metadata/__init__.py,
``PackageNotFoundError.__str__``; https://docs.python.org/3/library/importlib.metadata.html), e.g. transformers
asking for ``flash_attn``'s version on an Ascend host (huggingface/transformers#36696). gRPC's ``Received message
larger than max (N vs. M)`` / ``Sent message larger than max (...)`` (session 45, tester45j; grpc/grpc
src/core/ext/filters/message_size and grpc-go rpc_util.go, status RESOURCE_EXHAUSTED): a message above the channel's
configured max_(send|recv)_message_length; MindSpore Serving's FAQ (docs/serving faq.md): raise the server's
``max_msg_mb_size`` (100 MB by default) or send less. The size limit is a setting, not the host. Docker's daemon
refusing the container runtime a ``--runtime`` flag names (session 47, tester47e): ``Error response from daemon:
unknown or invalid runtime name: <name>`` (moby/moby daemon/runtime_unix.go, ``getRuntime``: the name is neither in
daemon.json's ``runtimes`` nor a containerd shim name; older daemons: ``Unknown runtime specified <name>.``). On an
Ascend host ``--runtime=ascend`` before Ascend Docker Runtime is installed and registered, or before Docker was
restarted after the install (hw-native-sys/pypto docs/en/user/04-dev-container.md, Edge Cases): the host's set-up,
not a device. The file-security check of MindIE's components and MindX SDK refusing a file the process reads (session
47, tester47l): ``Check path: config.json failed, by: Check Other group permission failed: Current permission is 4,
but required no greater than 0.`` and ``owner id diff: current process user id is 0, file owner id is 1000``
(Ascend/MindIE-LLM src/utils/log/file_utils.cpp ``FileUtils::ConstrainPermission`` / ``ConstrainOwner``, the
``Owner`` / ``Owner group`` / ``Other group`` digit of the mode above the one allowed, or a file another user owns;
the MindIE LLM FAQ, "Check_path: config.json failed": chmod 640 the weight directory's config.json; MindX SDK's
FileUtils.cpp prints ``Check Owner permission failed: Current permission is 7, but required no greater than 6.``):
the files' mode or owner, set by whoever installed them. MindX DL's file check refusing a binary or library it
loads (session 51, tester51p): ``owner not right <path> <uid>``, ``write permission not right <name> <mode>``,
``permission not right <name> <mode>`` (Ascend/mind-cluster @22bb3d98 component/ascend-docker-runtime/mindxcheckutils/
mindxcheckutils.go ``FileChecker`` / ``normalFileCheck``: owner neither root nor the running user, group or other may
write; component/ascend-common/common-utils/utils/file_check.go prints the same; the device plugin's ``check log file
failed, owner not right``). Ascend Docker Runtime checks runc before it execs it (runtime/common/common.go) and dies by
``log.Fatal`` (runtime/main.go), so docker quotes ``... ascend-docker-runtime did not terminate successfully: exit
status 1: 2024/07/24 09:59:29 owner not right /usr/bin/runc 1000`` (liguodongiot/llm-action
llm-localization/ascend/FAQ.md: chown root:root /usr/bin/runc; ascend-fd's knowledge graph, kg-config.json
AISW_MindX_Docker_Runtime_02: runc's owner not root or its mode writable, the container cannot start): the host's
files, not a device. pip's resolver failing on a requirement (session 48,
tester48o): ``Could not find a version that satisfies the requirement <req> (from versions: ...)`` then
``No matching distribution found for <req>``, and ``Cannot install <reqs> because these package versions have
conflicting dependencies.`` (pypa/pip src/pip/_internal/resolution/resolvelib/factory.py,
``_report_single_requirement_conflict`` / ``get_installation_error``): no index the job reaches holds a matching
version, or the pins contradict each other, e.g. an NPU CI image build whose pip lacks the mirror that hosts
triton-ascend (vllm-project/vllm#50504). The package index and pins, not a device. Not pip's own warning that its
resolver "does not currently take into account all the packages that are installed", after which it installs.
conda's solver failing the same way (session 51, tester51n): ``PackagesNotFoundError: The following packages are not
available from current channels:`` and the list of specs (conda/conda @9c644e1e conda/exceptions.py, class
``PackagesNotFoundError``, the message when channel URLs are known), e.g. an AI4S model's environment.yml pinning
``blas==1.0=mkl``, an x86 build, created on an aarch64 910B server (iocaswolfteam/LangYa_v1_0#3): the channels and
pins, not a device. uv's installer refusing a locked package with no file for the host (session 55, tester55h):
``error: Distribution `triton==3.0.0 @ registry+https://pypi.org/simple` can't be installed because it doesn't have a
source distribution or wheel for the current platform`` and its hint naming the platforms the package has wheels for
(astral-sh/uv, the resolver's check of a distribution's compatible files; uv's docs, "Resolution" / required
environments), e.g. an x86_64-only triton pin on an aarch64 Ascend host (itove/ascend's deployment notes): the
requirements and the platform, not a device. msopgen refusing an input or output path another user owns
(session 52, tester52a): ``<time> (<pid>) - [ERROR] You are not the owner of path <path>`` (mirror
xiaobingling93-pixel/Ascend-msopgen @6d0ce115 msopgen/interface/utils.py, the path check after
``check_input_permission_valid``: ``check_path_owner_consistent``, the file's uid is not the running process's, then
``MsOpGenException``), e.g. a container building as root over files a
host user owns (aflyingto/TTFHW-auto-build README: ``docker run -u $(id -u):$(id -g)``): the build's files and user,
not a device. Only at ERROR: Ascend/msopgen @16518047 prints the same words with ``print_warn_log`` and goes on."""
CFG_ENV_TEXT = screened(_ENV, re.I)
"""Configuration and environment texts (this parser's own reading; a setting needs :data:`CFG_SETTING`): libraries
and paths not found, environment variables a program names (HCCL's ``[EnvConfig]`` stage and ``set ... by
HCCL_SOCKET_IFNAME`` lines, CANN's ``init env failed``), a port already taken
(errno EADDRINUSE, "Address already in use"; HCCL's listen failure asks whether another process uses the port), a
server that cannot listen on or bind the address and port it was given (MindIE Server's endpoint: ``[MIE04E02041C]
[endpoint] Failed to listen 172.17.0.3:40032, please check if business ip and port are legal``: a port in use or an
address the host does not have, both the server's configured ipAddress / port), a
host name that does not resolve (MPICH's ``gethostbyname failed``, the HCCL Test FAQ of hicann/oam-tools: the node's
name is missing from /etc/hosts; ``DNS resolution failed: [Errno -2] Name or service not known``, MindSpore's
distributed FAQ: a master host name DNS cannot resolve), a launcher refusing the layout or the hosts it was given
(session 49, tester49m: Open MPI's ``There are not enough slots available in the system to satisfy the 2 slots that
were requested by the application``, help-orte-rmaps-base.txt / PRRTE's help-prte-rmaps-base.txt: more ranks than
the hostfile's ``slots=N`` or the cores, inducer/grudge#227 fixed with ``--oversubscribe``; DeepSpeed's runner
``Using hostfile at <file> but host=<host> was not reachable via ssh. If you are running with a single node please
remove <file> or setup passwordless ssh.``, deepspeed/launcher/runner.py ``main``: its ssh check of the first host
failed, hpcac/2023-APAC-HPC-AI#1), the vendor tools a node must provide not found (HAMi's
device plugin: ``npu-smi not found in [...] or PATH``, Project-HAMi/ascend-device-plugin#103), and torch_npu's
compile options set when a device is first set up (``torch.npu.set_device`` -> ``SetPrecisionMode ...
AclSetCompileopt(aclCompileOpt::ACL_PRECISION_MODE ...)``, the stack of vllm-ascend#2244), before any operator runs:
their failure is the CANN op compiler's environment (vllm-ascend#2210, the maintainer: "pin numpy < 2.0 with CANN
8.2.1"). A path the job was given that does not exist (CANN EK0001 "Path [...] for [profilerResultPath] is invalid
or does not exist", as MindSpore's error-analysis tutorial shows it; E20002 "... Reason: ASCEND_OPP_PATH does not
exist or access permission is denied ...", hicann/runtime docs/en/error_code_ref/FE-Errors/E20002-*.md; error_code.json
holds only the generic templates of both) and a file that cannot be opened (CANN E21001
File_Operation_Error_Open "Failed to open file ...", whose reference names the causes: the file does not exist, its
permissions are insufficient, or the software package was installed wrongly; hicann/runtime error_code.json) are the
job's files and installation, as "No such file or directory" is (:data:`RE_JOB_FILES`, not on a warning)."""
RE_JOB_FILES = screened(_FILES, re.I)
RE_SETTING_WRONG = screened(_SETTING_WRONG, re.I)
"""The missing paths and files of :data:`CFG_ENV_TEXT`, read only on a line that does not state a level below
ERROR: a program that logs at WARNING a path it then creates or skips goes on (CANN's W-level codes, e.g. W40010
"Path [%s] for [%s] is invalid", are warnings), while EK0001 / E20002 / E21001 are errors."""
RE_SYSTEM_ENOENT = lazy_compile(r"/(?:dev|proc|sys)/[^\s:'\"]*['\"]?:\s*No such file or directory", re.I)
"""strerror(ENOENT) on a system path: a device node the driver did not create or the container did not mount
(``/dev/davinci3``), a process that ended while a tool walked /proc (``find: '/proc/123/task/124': No such file or
directory``). Neither is the job's installation: not read as the environment text."""
RE_ENV_ADVICE = lazy_compile(r"\b(?:try|consider|you (?:can|may|could|might|should)(?: also)?) (?:setting|to set|set|"
                           r"increase|raise|adjust|change|tune)\b[^.]{0,120}?\benvironment variables?\b[^.]*", re.I)
"""Advice to set an environment variable, printed whether or not anything failed (DeepSpeed's op builder at every
start without libaio: ``If libaio is already installed (perhaps from source), try setting the CFLAGS and LDFLAGS
environment variables to where it can be found.``, deepspeed/ops/op_builder/async_io.py, seen in ms-swift#1243's
healthy run): what one may do, not a variable the environment lacks. The rest of the line is read as usual. Session
38: advice to change a variable's value is the same (Mooncake's AscendDirectTransport on HIXL's connect TIMEOUT
names a peer, then advises raising ``ASCEND_CONNECT_TIMEOUT``, mooncake-transfer-engine ascend_direct_transport.cpp;
tests/test_ingest_hixl_status.py): a timeout to a peer, not a missing variable."""
RE_ENV_FALLBACK = lazy_compile(r"\benvironment variable\b[^.;]{0,80}?\bis (?:not set|empty|unset)\b,?\s*(?:so |then )?"
                             r"(?:the \w+(?: \w+){0,4} (?:will|are|is)\b|"
                             r"will\b|using\b|use\b|defaults? to\b|fall(?:ing)? back\b)"
                             r"[^.]*|"
                             r"\bSetting [A-Z][A-Z0-9_]* environment variable\b[^.;]{0,60}?\b(?:in|by) default\b"
                             r"[^.]*|"
                             r"\benvironment variables? \[[A-Z][A-Z0-9_]*(?:=[^\]\s]*)?\] "
                             r"(?:is|are|has been|have been) exported\b[^.]*", re.I)
"""A program saying an environment variable is unset or empty and what it does instead (session 40): MindSpore's
dump-path helper on Ascend prints ``The environment variable 'MS_OM_PATH' is not set, the files will save to the
process local path, as ./rank_id/...`` and ``Environment variable 'RANK_ID' is empty, using the default value: 0``
at WARNING and goes on (mindspore-ai/mindspore, mindspore/ccsrc/plugin/device/ascend/hal/device/
ascend_kernel_runtime.cc and ascend_runtime_core.cc, ``GetDumpPath``; seen before a traceback in
mindspore-lab/mindone#207). A default taken, not a variable the job lacks; the rest of the line is read as usual.
Session 52 (tester52o): MindSpore 2.0 names what it saves in more words, ``... 'MS_OM_PATH' is not set, the files of
node dump will save to the process local path, as ./rank_id/node_dump/...`` (same file, r2.0, seen in
mindspore-lab/mindcv#504): up to five words between ``the`` and the verb.
Session 40 (tester40e): a launcher setting a variable to its default for its workers, which torchrun prints at each
start with more than one process per node when ``OMP_NUM_THREADS`` is unset (pytorch/pytorch
torch/distributed/run.py, ``config_from_args``: ``Setting OMP_NUM_THREADS environment variable for each process to be
1 in default, to avoid your system being overloaded ...``, then exports it to the workers; mmdetection's
mmdet/utils/setup_env.py prints the same for ``OMP_NUM_THREADS`` and ``MKL_NUM_THREADS``), as in lm-sys/FastChat#2422's
healthy Ascend run: a tuning notice, not a variable the job lacks. Session 45 (tester45j): a launcher exporting a
variable to the worker it starts, as msrun says for each worker (mindspore-ai/mindspore
mindspore/python/mindspore/parallel/cluster/process_entity/_api.py, ``start_worker_processes``: ``Start worker
process with rank id:0, log file:output/msrun_log/worker_0.log. Environment variable [RANK_ID=0] is exported.``,
older releases ``[RANK_ID] is exported.``; MindSpore Transformers' quick start shows the eight lines as the sign the
task has started): a variable set, not one the job lacks."""
RE_LEVEL_TAG = lazy_compile(r"\[(WARN(?:ING)?|INFO|DEBUG|ERROR|ERR|CRITICAL|FATAL)\]")
"""The first bracketed level within a line's head that the level reader does not take as the line's level, because
a tag of the tool's own comes first: msnpureport's export script prints ``<date time> [RECORD_LOG] [WARNING] The
device log ... storage path does not exist, will create.`` (hicann/driver msnpureport_auto_export.sh, print_log)."""


def tagged_below_error(text: str) -> bool:
    """True when the first bracketed level in the first 80 characters of ``text`` is below ERROR."""
    m = RE_LEVEL_TAG.search(text, 0, 80)
    return m is not None and m.group(1) in ("WARN", "WARNING", "INFO", "DEBUG")
_NEAR = ".{0,160}"
"""The gap between the two halves of a two-part text regex (:data:`CFG_SETTING`, :data:`RE_PARALLEL_LAYOUT`): a
message names both in one clause, and a bounded gap keeps the regex linear in the line (an unbounded ``.*`` on both
sides is quadratic where the line screen does not run it first, a non-ASCII line: 10 ms a 4 kB line)."""
CFG_SETTING = screened(rf"(?:{_SETTING}){_NEAR}(?:{_FAILING})|(?:{_FAILING}){_NEAR}(?:{_SETTING})", re.I)
"""A setting named by a line that says something failed: a launcher's ``Loading configuration file: ...`` or
``Successfully loaded config file: ...`` names one without any fault (MindIE pyMotor's controller log, whose level
after the date is not read as INFO)."""
_LAYOUT = (r"\b(?:tensor|pipeline|data|expert|context|sequence)[ _-](?:model[ _-])?parallel(?:[ _-]size)?|"
           r"\b(?:tp|pp|dp|ep|cp)_size\b|\bstrategy (?:value|is)\b")
_REJECTED = (r"\b(?:divisible|exceed(?:s|ed|ing)?|must be|should be|greater than|less than|not match(?:es|ed)?|"
             r"mismatch(?:es|ed)?|invalid)\b")
RE_PARALLEL_LAYOUT = screened(rf"(?:{_LAYOUT}){_NEAR}{_REJECTED}|{_REJECTED}{_NEAR}(?:{_LAYOUT})", re.I)
"""A parallel layout the job was launched with that the model or the devices cannot take: the launcher's own
argument check, before any operator runs (vLLM's ``ModelConfig.verify_with_parallel_config``: "Total number of
attention heads (32) must be divisible by tensor parallel size (3)"; MindSpeed-MM's troubleshooting guide:
``RuntimeError: tp_size exceeds num_key_value_heads``, solved by a smaller TP; MindSpore's semi-auto parallel
check of a shard strategy, its error-analysis tutorial: "The strategy is ((8, 1)), shape 4 can not be divisible by
strategy value 8", solved by configuring the operator's strategy). The setting is the cause, not the
program: a configuration error, as a configuration item named by a failing line (:data:`CFG_SETTING`).
The rejection is a word of its own (``invalid_grad_skip=False`` in a printed argument list is a name, not a verdict)
within :data:`_NEAR` of the layout: a check's message names both in one clause, while a launch banner that prints
every argument on one line may hold either anywhere."""
RE_ATC_OUT_NODES = screened(_ATC_OUT_NODES)
"""The converter's ``--out_nodes`` refusals (:data:`_ATC_OUT_NODES`) on a line of their own."""
RE_CONTEXT_OVER_MODEL = screened(r"\bUser-specified max_model_len\b[^.]{0,40}? is greater than the \w+ max_model_len\b",
                                 re.I)
"""A context length the job was launched with that the model's own config does not allow: vLLM checks the
``--max-model-len`` argument against the length derived from the model's ``config.json`` before it loads anything
(vllm/config ``_get_and_verify_max_len``: ``User-specified max_model_len (65536) is greater than the derived
max_model_len (max_position_embeddings=32768 ...). ... To allow overriding this maximum, set the env var
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1``). The setting is the cause and lowering it (or the variable) the fix: Huawei Cloud's
Ascend-vLLM inference FAQ (https://support.huaweicloud.com/bestpractice-modelarts/modelarts_llm_infer_5908032.md,
problem 2, quoting ``ValueError:User-specified max_model_len is greater than the drived max_model_len``: export
VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 or raise ``seq_length`` in config.json). A configuration error, as a parallel layout
the model cannot take (:data:`RE_PARALLEL_LAYOUT`); the ValueError alone reads framework_error. Session 47,
tester47i."""
RE_ROPE_SCHEMA_OLD = screened(r"\brope_scaling['`]? must be a dictionary with two fields\b.{0,200}?'rope_type'")
"""A model config written for a newer transformers than the one installed: transformers before 4.43 validated
``rope_scaling`` as exactly ``{type, factor}`` (LlamaConfig ``_rope_scaling_validation``: ``ValueError: `rope_scaling`
must be a dictionary with two fields, `type` and `factor`, got {...}``), so the Llama 3.1 config, whose dict carries
``rope_type`` and more fields, fails there. Huawei Cloud's Ascend-vLLM FAQ
(https://support.huaweicloud.com/bestpractice-modelarts/modelarts_llm_infer_91237.html, problem 3: ``got {'factor':
8.0, 'low_freq_factor': 1.0, ..., 'rope_type': 'llama3'}``, fixed by upgrading transformers to 4.43.1) and SGLang's
image test notes ("The old transformers version doesn't understand the new rope_scaling format"). Read only when the
rejected dict names ``'rope_type'`` (the newer schema's key): without it the dict may simply be wrong. ``cfg:version``.
Session 47, tester47i."""
RE_DIST_BACKEND_ABSENT = screened(r"\bRuntimeError: Distributed package doesn't have (?:NCCL|XCCL) built in\b|"
                                  r"\bValueError: Your assigned backend \S+ is not avaliable, please use \S")
"""A job that asks torch.distributed for a collective backend the install or the device does not have. PyTorch's
``RuntimeError: Distributed package doesn't have NCCL built in`` (torch/distributed/distributed_c10d.py,
``_new_process_group_helper``: ``if not is_nccl_available(): raise RuntimeError(...)``, ``XCCL`` alike; torch_npu's
copy of the helper keeps the check): an Ascend host runs the CPU build of torch beside torch_npu, which has no NCCL,
so the job must ask for ``hccl`` (deepspeedai/DeepSpeed#7312, training on a Huawei NPU). accelerate's ``ValueError:
Your assigned backend nccl is not avaliable, please use hccl`` (src/accelerate/state.py, ``PartialState.__init__``:
the backend given differs from the one ``_prepare_backend`` picks for the device; older releases printed the braces
unformatted, modelscope/ms-swift#1020 on NPU fine-tuning). The launch setting or the torch wheel, not the program:
``cfg:env`` (both read framework_error from the bare exception before; session 50, tester50c). Only as the raised
exception: a program's own message that it falls back to gloo, or the ``raise RuntimeError("...")`` source line a
traceback echoes, are no failure."""
RE_CMAKE_TOO_NEW = screened(r"\bCompatibility with CMake < \d+(?:\.\d+)* has been removed from CMake\b")
"""A build's CMake newer than the project's build files allow: CMake 4.0 removed compatibility with
``cmake_minimum_required`` below 3.5 and stops the configure step with ``CMake Error at <file>:<line>
(cmake_minimum_required): Compatibility with CMake < 3.5 has been removed from CMake.`` (CMake 4.0 release notes,
"Deprecated and Removed Features"; https://cmake.org/cmake/help/v4.0/release/4.0.html). Ascend/pytorch's build FAQ
gives the torch_npu form (docs/zh/installation_guide/faq.md @9e73e708, 问题4: "the CMake in your container is newer",
against third_party/Tensorpipe's libuv; the fix, ``-DCMAKE_POLICY_VERSION_MINIMUM=3.5``). The versions installed, not
the program. Not the warning CMake 3.27-3.31 print first (``... will be removed from a future version of CMake.``),
after which the configure step goes on (session 47, tester47k)."""
RE_BUILD_INPUT_MISSING = screened(r"\binclude could not find (?:requested|load) file\b"
                                  r"|\bcannot find -l[\w.+-]+|\bunable to find library -l[\w.+-]+")
"""A build step that cannot find a file it was told to use, in the build tools' own words. CMake's ``include()`` of a
file that does not exist, without ``OPTIONAL``: ``CMake Error at <file>:<line> (include):`` then ``include could not
find requested file:`` and the path (Kitware/CMake Source/cmIncludeCommand.cxx @028d3183, ``"could not find requested
file:\\n  "``; CMake 3.x and older say ``could not find load file:``): the CMake module or package file is not where
the build's paths say, i.e. a toolkit or package not installed there or another install's paths
(sgl-kernel-npu#485: ``ASCConfig.cmake`` of CANN 8.5.1 including ``FindASC.cmake`` of a CANN 9.0.0 the build script
sourced; PaddleCustomDevice#411: ``include could not find load file: generic``). The linker's missing library: GNU
ld's ``cannot find -l<name>`` (binutils ld/ldfile.c @0381901e ``"%P: cannot find %s\\n"`` with the ``-l`` name; gold
fileread.cc ``cannot find -l%s``) and LLVM lld's ``unable to find library -l<name>``: no ``lib<name>.so``/``.a`` in the
library search path (PaddlePaddle/Paddle#57270, ``cannot find -lnpu_hccl`` building Paddle's Ascend target, which the
maintainer answered is built from PaddleCustomDevice instead). The build's environment, not the program: ``cfg:env``,
as the compiler's missing header (``RE_COMPILER_HEADER``) is. Not ``undefined reference to`` (a library found but
lacking the symbol: another version or a program's own error). Session 50, tester50e."""
RE_TOKENIZER_CLASS_MISSING = screened(r"\bTokenizer class \w+ does not exist or is not currently imported\b")
"""A model's ``tokenizer_config.json`` naming a tokenizer class the installed transformers does not have:
``AutoTokenizer.from_pretrained`` raises ``ValueError: Tokenizer class <name> does not exist or is not currently
imported.`` when the class named there resolves to nothing (transformers/models/auto/tokenization_auto.py,
``from_pretrained``). The checkpoint was written for another transformers: ``TokenizersBackend`` exists from
transformers v5 on (eugr/spark-vllm-docker#102 "compatibility issues with Transformers v5"; Blaizzy/mlx-vlm#612 fails
with it on transformers 4.57.3), and vllm-ascend#8213 (MiniMax-M2.7 on vllm-ascend 0.17/0.18) stops there at start.
The versions installed, not the program: ``cfg:version``; the ValueError alone reads framework_error. Session 47,
tester47o."""
RE_ATB_GRAPH_INFERSHAPE = screened(r"\bnodes\[\d+\]\s+infer ?shape\s+fail\b|"
                                   r"\b\w+_graph infer shape fail, error code: \d+")
"""An ATB-models graph of a MindIE model whose node could not infer its output shape: ATB-models' base model
(Ascend/MindIE-LLM @e21bf2cf examples/atb_models/atb_framework/core/base/model.cpp, ``Model::BuildNodeOutTensorImpl``,
the node's ``InferShape`` returning an error: ``<model> nodes[<id>]  infer shape fail, error code: <st>``; earlier
releases threw ``<model> nodes[<id>] infershape  fail, enable log: export ASDOPS_LOG_LEVEL=ERROR, ...``, which MindIE
LLM's ``standard_model.py`` prints as ``Exception:Qwen25VL_VIT_graph nodes[1] infershape  fail``), and the layer
graph's ``Qwen25VL_VIT_layer_0_graph infer shape fail, error code: 8``. MindIE LLM's FAQ (Ascend/MindIE-LLM @613aab54
docs/en/faq/faq.md, "Qwen2VL/Qwen2.5VL_VIT_graph nodes[1] infershape fail") quotes both and names two causes, both the
deployment's: the model not supported on that hardware by the MindIE version installed (take the version its model
list gives) and an input too large for the self-attention operator (lower ``maxPrefillTokens`` in the serving
config.json). gpustack#2814 (Qwen2.5-VL on MindIE, image requests): the maintainers' workaround is the setting
``ATB_LLM_ENABLE_AUTO_TRANSPOSE=1``. ``cfg:env``; the traceback alone read nothing (session 51, tester51a). Not
another library's "infer shape failed" (MindSpore Lite's scheduler, an operator's aclnn status 561001)."""
RE_ATB_MODEL_TYPE = screened(r"\bunsupported model type: [\w.-]+\s*[;；]\s*"
                             r"请确认atb_llm\.models路径下是否存在名为", re.I)
"""MindIE's ATB Models refusing a checkpoint's ``model_type``: ``atb_llm.models.get_model`` lists the model folders
the installed atb_llm carries and raises ``NotImplementedError(f"unsupported model type: {model_type}；请确认
atb_llm.models路径下是否存在名为{model_type}的文件夹。")`` ("check that atb_llm.models has a folder named X") for one
it lacks; MindIE Server prints it on its config manager's ``[ERROR]`` lines (``Failed to get vocab size from tokenizer
wrapper with exception: NotImplementedError: unsupported model type: qwen3_vl_moe；...``). Ascend/MindIE-LLM
examples/atb_models/atb_llm/models/__init__.py @8b4871ad (the same check in get_llm_model of vita and the multimodal
base logs it with ``ErrorCode.ATB_MODELS_PARAM_INVALID``, MIE05E000003, a parameter error). The installed MindIE /
ATB Models version does not carry the model (or config.json names a wrong type): ``cfg:version``, not an operator
the program lacks. gpustack#5317 (https://github.com/gpustack/gpustack/issues/5317, qwen3_vl_moe on 310P; the
current atb_llm has the folder) and the hiascend forum thread https://www.hiascend.com/forum/thread-0262186656288704064-1-1.html
(xlm-roberta: MindIE 2.0.RC1 has no embedding models, 1.0 had). The ``unsupported`` read ``op:unsupported`` and the
excerpt framework_error 0.66 (session 51, tester51h, blind b51h-04); the ``NotImplementedError`` it is raised as is
atb_llm's way of saying so, not a feature the framework left out, and is not read on such a line (as an
``AttributeError`` naming a vendor attribute is not)."""
RE_TBE_INIT = screened(r"\[InitTbeFunc\]:? Failed to (?:init tbe|initialize TbeFunctions)\b|"
                       r"\[InitTeFusion\]:? Failed to initi\w*ze TeFusion\b|"
                       r"\bInitializeAdapter adapter \[tbe_op_adapter\] failed\b|"
                       r"\bTbeInitialize failed to initialize tbe\b")
"""The TBE op-store adapter failing to start, before any operator is compiled: FE's ``TbeOpStoreAdapter`` opens the
compiler plugin, binds its functions and calls ``TbeInitialize(options)`` (the TBE Python side, with the options
such as the debug directory), and reports ``[GraphOpt][InitializeInner][InitTbeFunc] Failed to init tbe.``,
``[GraphOpt][InitializeInner][InitTeFusion]: Failed to initialize TeFusion.`` and, from the adapter manager,
``[SubGraphOpt][PreCompileOp][InitAdapter] InitializeAdapter adapter [tbe_op_adapter] failed!`` (hicann/ge @ffdcbc9f
compiler/engines/nn_engine/optimizer/adapter/tbe_adapter/tbe_op_store_adapter.cc, ``InitializeInner`` /
``InitializeTeFusion``; .../adapter/common/op_store_adapter_manager.cc); TEFUSION's own line is ``TbeInitialize
failed to initialize tbe.`` No operator is named: the compiler's environment did not start (its Python modules, the
Python that set_env.sh points at, a path option it cannot use), read ``cfg:env`` and not ``op:compile`` (which the
``[PreCompileOp]`` stage tag and "tbe ... fail" gave before). In the public logs the cause printed above it is the
environment's: vllm-ascend#2748 (E40023, the path set for ge.debugDir is invalid, Permission denied), MinerU#2258
(EC0010, TBE's Python under NumPy 2.0), Ascend/pytorch#29 (``No module named 'tbe.common'``), an ATC run's E40001
(``LD_LIBRARY_PATH`` invalid when loading the Python library). Session 50, tester50b."""
RE_SLEEP_ALLOCATOR = screened(r"\bassert camem_available\b|\bAssertionError: camem allocator is not available\b|"
                              r"\bExpandable segments are not compatible with memory pool\b|"
                              r"\bcannot be enabled with `expandable_segments`, please set `expandable_segments` to "
                              r"`False`")
"""The sleep-mode allocator refusing to start (``cfg:env``): the RL trainers' rollout engines (verl, OpenRLHF, trl,
ms-swift) offload vLLM between steps with ``enable_sleep_mode=True``, which on Ascend needs vllm-ascend's CANN-mem
pluggable allocator from its compiled extension. ``vllm_ascend/device_allocator/camem.py`` (@0bdaad4b) sets
``camem_available`` only when ``from vllm_ascend.vllm_ascend_C import ...`` succeeds and ``CaMemAllocator.
get_instance`` asserts ``assert camem_available, "camem allocator is not available"``: the extension was not built
(vllm-ascend#556, the maintainer: "set ``export COMPILE_CUSTOM_KERNELS=1`` and then re-install vllm-ascend";
vllm-ascend#3998 moves on to that rebuild). ``CaMemAllocator.__init__`` (and vLLM's vllm/device_allocator/cumem.py)
asserts ``Expandable segments are not compatible with memory pool. Please track
https://github.com/pytorch/pytorch/issues/147851 for the latest updates.`` when the allocator setting enables
expandable segments: a setting to turn off (ms-swift#6636: ``export PYTORCH_NPU_ALLOC_CONF="expandable_segments:
False"``; vllm-ascend PR#9242 / vLLM PR#40812: the assertion forced users to choose one of the two). Both read
framework_error 0.60 from the bare ``AssertionError`` before, which on such a line is the allocator's way of refusing
and is not read (as atb_llm's ``NotImplementedError`` is not). The assertion as raised or as the failing frame echoes
it; review text naming the allocator is not read. Session 51, tester51o. torch_npu's own check of the allocator
setting (``PYTORCH_NPU_ALLOC_CONF``) refuses the same pair the other way: ``RuntimeError: `max_split_size_mb` or
`garbage_collection_threshold`, cannot be enabled with `expandable_segments`, please set `expandable_segments` to
`False`.`` (Ascend/pytorch NPUCachingAllocator's ``CachingAllocatorConfig``), a setting the message names; session 56,
tester56h's b56h-08 (a MindSpeed run whose launch exported both, Kimsale/qwen3.5_35B_mindspeed) abstained at 0.14."""
RE_TORCH_NO_NPU = screened(r"device type at start of device string: npu\b")
"""PyTorch's device-string parser (c10/core/Device.cpp: ``Expected one of cpu, cuda, ... device type at start of device
string: npu``) knows ``npu`` only after the torch_npu plug-in registered it (torch_npu's ``__init__`` renames the
privateuse1 backend to ``npu``; PyTorch loads plug-ins itself only through the ``torch.backends`` entry point): the
plug-in is not installed or not imported in the job's environment (MinerU#2665, the maintainer: the NPU plug-in was
not loaded). Other device strings (``auto``, ``gpu``) are a program's own typo and stay unread."""
RE_OP_NO_BINARY = screened(r"\bOp \w+ does not has any binary\b")
"""The operator runtime finding no precompiled kernel for an operator on this chip (``EZ9999 ... Op Cast does not has
any binary.``, then ``launch failed for Cast, errno:561000``): in binary mode (torch_npu's
``set_compile_mode(jit_compile=False)``, the default on Atlas A2/A3: Ascend/op-plugin docs/context
"torch_npu.npu.set_compile_mode") an operator runs only from the binaries the installed kernels (OPP) package carries
for the SoC. None there means the package is missing, built for another chip, or lacks the operator on it: the
installation or the setting, not the program (LlamaFactory#3779 and #3796: installing the matching
Ascend-cann-kernels package fixed it; guides for 310B hosts: FlashAttentionScore has no binary there, use eager
attention; a vendor OPP rebuilt and reinstalled gave its KdaGateCumsum binaries back). ``cfg:env``; the EZ9999,
561000 and aclnn lines around it read framework_error 0.83 (session 55, tester55a's b55a-03)."""
RE_TBE_DIR_INVALID = screened(r"\[errCode:EB0500\]\s*message:\s*dir path is invalid\b")
"""TBE's operator compiler when the directory it compiles in cannot be used: ``TBEPythonError: [EB9999]
[errClass:NA][errCode:EB0500]message:dir path is invalid[errSolution:N/A]``, under ``E40021 Failed to compile Op``,
and then ``compile cce error ... errpath: <a temporary directory>``. A GPT-SoVITS port to 910B documents it with its
fix, ``TMPDIR`` exported as an absolute path that exists (stephenfuyuxin/npuAdapter @111847aa
GPT-SoVITSNPUMig/README.md, "需要重定向 tmpdir"): the host's environment, not the operator (``cfg:env``). Read on the
CANN line that carries the codes (:mod:`opsbrain.ingest.parsers.cann`); blind55's b55j-01 read framework_error 0.86
from the compile failure around it (session 56)."""
RE_SET_IN_CONFIG = screened(r"\bplease (?:set|specify|configure|add) [^.;\n]{1,120}? in (?:the |your )?"
                            r"(?:config(?:uration)?|yaml)(?: file)?\b", re.I)
"""A program's error that names the fix as a setting of its configuration: ``RuntimeError: Please set micro_batch_size
or set use_flash_attn=True in config.`` (MindSpeed mindspeed/core/transformer/flash_attention/generate_mask/
generate_mask.py ``generate_attention_mask``, raised when neither is given); other programs word their missing
settings alike (``Please set plan-usage.models.billable in config.``). The job's settings, not the program's code:
``cfg:env``. Session 55, tester55g: a verl + MindSpeed run whose fix was the override
``use_flash_attn=True`` in its launch script (ji-huazhong/verl@6ae8a79 bugfix.md) read framework_error 0.50 from the
bare RuntimeError. Read on a failing line only, as the other texts are."""
