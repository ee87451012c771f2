"""Framework consoles (torch_npu, MindSpore, vllm-ascend, MindIE, training launchers): Python exceptions as
printed (``RuntimeError: NPU out of memory. Tried to allocate ...``), out-of-memory texts, version and environment
errors, unsupported operators, graph-compile failures, NaN losses and data-loader timeouts."""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.atb import RE_ATB_SETUP, RE_ATB_SETUP_CODE, atb_setup_kind  # noqa: F401 (in _ANY)
from opsbrain.ingest.parsers.bisheng import RE_BISHENG_COMPILE, RE_LLVM_BACKEND_FATAL
from opsbrain.ingest.parsers.cfgenv import (  # noqa: F401 (CFG_SETTING, RE_LEVEL_TAG, RE_PARALLEL_LAYOUT re-exported)
    CFG_ENV,
    CFG_ENV_TEXT,
    CFG_SETTING,
    RE_ATB_GRAPH_INFERSHAPE,
    RE_ATB_MODEL_TYPE,
    RE_ATC_OUT_NODES,
    RE_BUILD_INPUT_MISSING,
    RE_CMAKE_TOO_NEW,
    RE_CONTEXT_OVER_MODEL,
    RE_DIST_BACKEND_ABSENT,
    RE_ENV_ADVICE,
    RE_ENV_FALLBACK,
    RE_JOB_FILES,
    RE_LEVEL_TAG,
    RE_OP_NO_BINARY,
    RE_PARALLEL_LAYOUT,
    RE_ROPE_SCHEMA_OLD,
    RE_SET_IN_CONFIG,
    RE_SETTING_WRONG,
    RE_SLEEP_ALLOCATOR,
    RE_SYSTEM_ENOENT,
    RE_TBE_INIT,
    RE_TOKENIZER_CLASS_MISSING,
    RE_TORCH_NO_NPU,
)
from opsbrain.ingest.parsers.cfgenv import tagged_below_error as _tagged_below_error
from opsbrain.ingest.parsers.ctx import LineCtx, rt_func
from opsbrain.ingest.parsers.errnums import driver_return_read
from opsbrain.ingest.parsers.hostenv import (
    RE_CKPT_NOT_ZIP,
    RE_DATASETS_DISK,
    RE_FD_LIMIT,
    RE_FILE_WRITE_FAILED,
    RE_FS_UNSUPPORTED,
    RE_SHM_TOO_SMALL,
    RE_TLS_UNTRUSTED,
    RE_WEIGHTS_CUT,
)
from opsbrain.ingest.parsers.memtexts import OOM_TEXT, RE_OOM_ADVICE
from opsbrain.ingest.parsers.mssanitizer import RE_MSSANITIZER_REPORT
from opsbrain.ingest.parsers.pyexc import (
    CPP_TO_PY,
    RE_CALL_SIGNATURE,
    RE_CPP_UNCAUGHT,
    RE_PADDLE_ENFORCE,
    RE_STOP_ITERATION,
)
from opsbrain.ingest.screen import Screened, group_of, screened
from opsbrain.lazyre import lazy_compile

RE_EXC = screened(r"(?:^|[\s:\]>|])((?:[A-Za-z_][\w]*\.)*([A-Z][A-Za-z0-9_]*(?:Error|Exception|Interrupt|Exit|Fault)))"
                    r"(?::|$)")
RE_VENDOR_ATTR = screened(r"module '(?:torch_npu|mindspore|mindie\w*|vllm_ascend|acl|te|tbe)(?:\.\w+)*' has no "
                          r"attribute")
"""An Ascend package that lacks an API its caller expects: the installed version is not the one the caller was
written for (vllm-ascend#340: ``module 'torch_npu' has no attribute '_npu_flash_attention'``, closed by the
maintainer as 'install the wrong pytorch version')."""
RE_PADDLE_UNIMPLEMENTED = screened(r"(?:^|[\s:\]>|])(?:\(Unimplemented\) |UnimplementedError: "
                                   r"(?=[^\n]{0,2000}?(?:\[Hint: |\(at \S)))")
"""Paddle's error type UNIMPLEMENTED, the feature or operator case a kernel does not implement: its error summary
names it ``UnimplementedError: <message>`` (paddle/common/errors.cc ``error_name``), the message the user sees
simplifies that to ``(Unimplemented) <message>`` (paddle/common/enforce.cc ``SimplifyErrorTypeFormat``:
``InvalidArgumentError: xxx -> (InvalidArgument) xxx``), and Python gets it as ``NotImplementedError``
(paddle/fluid/pybind exception translation, ``UNIMPLEMENTED`` -> ``PyExc_NotImplementedError``). Read as
``op:unsupported`` in both forms: a line quoted without the Python name, ``(Unimplemented) npu npu only support
mode=constant right now,but received mode is reflect . [Hint: ...] (at /p...`` (PaddleSpeech#4058: the NPU pad3d
kernel supports only constant padding, fixed in the caller by PaddleSpeech#4084), read nothing (session 47,
tester47f). The summary's form only with Paddle's own marks on its line (``[Hint: ...]``, ``(at <file>:<line>)``,
enforce.h): TensorFlow raises an exception of the same name (tensorflow/python/framework/errors_impl.py
``UnimplementedError``), ``UnimplementedError: Graph execution error:`` where cuDNN is not found (edwardyehuang/CAR#1),
which is neither an unsupported operator nor Python's NotImplementedError (review47)."""
PADDLE_TO_PY = {"UnimplementedError": "NotImplementedError"}
"""The Python exception Paddle raises for its error type (same translation), where the summary's own name differs."""
RE_SOC_PACKAGE = screened(r"\bsocversion \S+ of bin package does not match|\bbin soc version \S+ is incorrect|"
                          r"\bcur soc version \S+ not found", re.I)
"""A kernel package built for another chip: the Ascend C runtime checks, before it loads a kernel binary, the SoC the
package was compiled for against the device's (cannmirror/asc-devkit tools/build/asc_rt/ascendc_runtime.cpp,
``AscendCheckSoCVersion``: "the socversion Ascend910B1 of bin package does not match the current device socverison
Ascend310P3. Please modify default socversion in run.sh ...", "bin soc version ... is incorrected", "cur soc version
... not found": a chip the installed package does not know). The installation does not fit the chip (vllm-ascend#6676:
910B kernels on a 310P card): the versions of what is installed, not the program."""
RE_PROTO_TWICE = screened(r"File already exists in database: \S+\.proto|CHECK failed: (?:GeneratedDatabase\(\)|"
                          r"generated_database_)->Add\(encoded_file_descriptor")
"""protobuf's C++ runtime refusing a generated ``.proto`` registered a second time in one process
(src/google/protobuf/descriptor_database.cc ``File already exists in database: X.proto``, then descriptor.cc's
fatal ``CHECK failed: GeneratedDatabase()->Add(encoded_file_descriptor, size)``): two loaded libraries carry the same
generated code (protobuf#5254, the maintainer: "the generated code ... is somehow getting linked twice ... multiple .so
files"), i.e. two installed packages that do not belong together (torchair FAQ: a TE wheel not matching the CANN in
use). The installation, not the program's logic."""
RE_CKPT_SHAPE = screened(r"size mismatch for [\w.]+: copying a param with shape .{0,120}? from checkpoint, the shape "
                         r"in current model is")
"""PyTorch's ``load_state_dict`` refusing a checkpoint whose tensors do not fit the model as built
(torch/nn/modules/module.py ``_load_from_state_dict``: "size mismatch for {}: copying a param with shape {} from
checkpoint, the shape in current model is {}."): the checkpoint was saved under another model configuration (a vocab
padded to another size, another hidden size or tensor-parallel split; lm-sys/FastChat#575, a 32,001-token checkpoint
for a 32,000-token model): the job's settings, not the framework's code."""
RE_OP_INFO = screened(r"Get op info json suffix path failed|Load op info (?:form |from )?json(?: config)? failed")
"""MindSpore reading the operator information of the installed CANN for the chip
(mindspore/ccsrc/kernel/oplib/op_info_utils.cc, ``LoadOpInfoJson``: "Get op info json suffix path failed,
soc_version: ..." for a SoC the build has no op info for, or the op info path missing or unreadable; then
``GenerateOpInfos``' "Load op info json failed" and the RuntimeError "Load op info form json config failed"): the
installation or the chip it runs on (MindOCR FAQ: exporting on a 310 inference host; run it on the training host)."""
RE_COMPILER_HEADER = screened(r"fatal error: '[\w./+-]+' file not found")
"""clang's missing-header error (``fatal error: 'cstdint' file not found``; gcc's form, ``fatal error: cstdint: No
such file or directory``, is read by the "No such file or directory" text): the compiler's include path or the
installed headers, i.e. the build environment (CANN's operator build on a host whose C++ headers are not on
CPLUS_INCLUDE_PATH), not the program."""
RE_NPU_BUSY = screened(r"\bnpu is busy, check again\b", re.I)
"""MindCluster's pod log when the NPUs it was given are held by another container (MindCluster scheduling FAQ '"npu
is busy, check again" Is Displayed in Pod Logs': NPUs occupied by, or mounted into, another container): the
allocation of devices, read like the device-in-use texts (``cfg:device``)."""
RE_BUILT_FOR_OTHER = screened(
    r"version `GLIBC(?:XX)?_[\d.]+' not found|compiled using NumPy 1\.x cannot be run in|"
    r"\b_ARRAY_API not found|(?<!Warning: )\bnumpy\.\w+ size changed, may indicate binary incompatibility|"
    r"Descriptors cannot be created directly")
"""A binary built against other versions than the ones installed, each named by the program that refuses it: the
dynamic loader's ``version `GLIBCXX_3.4.29' not found (required by ...)`` (glibc elf/dl-version.c: the libstdc++ or
glibc on the host is older than the one a package was built with); NumPy 2's refusal of an extension compiled for
NumPy 1 (``A module that was compiled using NumPy 1.x cannot be run in NumPy 2.x``, ``_ARRAY_API not found``; the
NumPy 2.0 migration guide) and the ABI check Cython compiles into an extension built against NumPy's C headers
(``ValueError: numpy.ndarray size changed, may indicate binary incompatibility. Expected 88 from C header, got 80 from
PyObject``, ``numpy.dtype ...``, ``numpy.ufunc ...``: ``__Pyx_ImportType`` in Cython/Utility/ImportExport.c raises it
when NumPy's type is smaller than the header the extension was built with; the MindSpore FAQ "Execution Problems"
shows gensim's, fixed by reinstalling matching numpy and gensim, session 47, tester47j; the same text printed as a
``RuntimeWarning:``, a type larger than the header, is the harmless case NumPy filters itself and is benign,
:data:`opsbrain.ingest.benign.BENIGN`);
protobuf 4's refusal of generated code older than the runtime (``Descriptors cannot be created directly. ... your
generated code is out of date and must be regenerated with protoc >= 3.19.0``, protobuf python/google/protobuf/
descriptor.py; its own advice: downgrade the protobuf package or regenerate). The versions installed, not the
program: CANN's Python tools (te, the op compiler) hit each of these when the environment's packages drift."""
RE_LIB_SYMBOL_MISSING = screened(r"\bFailed to find function \w+|"
                                 r"\baclnn\w+ or aclnn\w+GetWorkspaceSize not in \S+\.so\b")
"""torch_npu's lazy binding of the installed CANN libraries: every call into libascendcl, libhccl, libdcmi, ... goes
through ``GET_FUNC(name)``, a ``dlsym`` on the library opened at first use (Ascend/pytorch torch_npu/csrc/core/npu/
register/FunctionLoader.cpp), then ``TORCH_CHECK(func, "Failed to find function ", "<name>")``
(torch_npu/csrc/core/npu/interface/AclInterface.cpp, torch_npu/csrc/distributed/HcclCompile.h). The function is
absent from the library installed: a CANN older than the torch_npu built against it (the loader's ``undefined
symbol``, read as the environment, for a symbol looked up at run time). The versions installed, not the program.
op-plugin's aclnn calls alike (Ascend/op-plugin op_plugin/utils/op_api_common.h, ``EXEC_NPU_CMD``: ``aclnnX or
aclnnXGetWorkspaceSize not in libopapi.so, or libopapi.sonot found.``; vllm-ascend#9258, and PR #8382: the CANN ops
package no longer exports it): no failed operator call (before: ``op:aclnn``; session 48, tester48e)."""
RE_UNKNOWN_TARGET = screened(r"\bfor the --?target option: Cannot find option named '")
"""An LLVM-based compiler asked for a target its build does not have: LLVM's option parser rejects a value no
registered choice matches (llvm/include/llvm/Support/CommandLine.h, ``parser<DataType>::parse``: ``Cannot find option
named '<value>'!``, after ``Option::error``'s ``for the --<option> option:``). triton-ascend hands its compiler the
chip it runs on (ascend/backend/compiler.py, ``_get_kernel_target``): ``bishengir-compile: for the --target option:
Cannot find option named 'Ascend310P3'!`` is a build that does not support that chip (vllm-ascend#7423, the
maintainer: the main branch supports 310P3; vllm-ascend#7421 "Triton-Ascend doesn't support 310P"). The versions
installed, not the program (session 39)."""
RE_OPTION_VALUE = screened(r"\bfor the --?[\w-]+ option: Cannot find option named '")
"""The same parser refusing the value of another option (``llc -regalloc=linearscan``: ``for the --regalloc option:
Cannot find option named 'linearscan'!``): a value the command line gave, the job's settings (session 39)."""
RE_UNKNOWN_ARGS = screened(r"\berror: unrecognized arguments: |\bSome specified arguments are not used by the "
                           r"HfArgumentParser\b|\bremaining_argv: \[|\bthe following arguments are required: [-\w{]|"
                           r"\bargument [-\w/{},]+: (?:invalid (?:\w+ value|choice): |expected (?:\w+ )*arguments?\b)|"
                           r"(?<![\w-])--[A-Za-z][\w-]* must be (?:in the range|greater|less|between)\b|"
                           r"\bError: (?:Got unexpected extra arguments? \(|No such option: -)")
"""A launcher's argument parser refusing arguments it does not know, or a value it was given: Python's argparse
(Lib/argparse.py ``ArgumentError`` / ``parse_known_args``: ``error: unrecognized arguments: ...``, ``the following
arguments are required: --x``, ``argument --x: invalid int value: 'a'`` / ``invalid choice`` / ``expected one
argument``; session 42; a positional argument is named by its metavar or dest, a sub-command's by its choices,
``{train,eval}``: ``_get_action_name``, session 43), an option's range check (gpustack#4132,
gpustack/worker/backends/ascend_mindie.py: ``--max-input-token-len must be in the range (0, --max-seq-len]``),
transformers' ``HfArgumentParser`` (hf_argparser.py: ``Some specified arguments are not used by the
HfArgumentParser: [...]``) and ms-swift's
(swift/llm/base.py ``_parse_args``: ``ValueError(f'remaining_argv: {remaining_argv}')`` unless ``--ignore_args_error``,
which logs it as a warning instead; ms-swift#8115: MindSpeed flags ``megatron sft`` does not take), and Click's
(src/click/core.py ``Got unexpected extra argument ({args})``, exceptions.py ``No such option: {name}``, shown by
``UsageError.show`` as ``Error: ...``; kuberay#1984: a worker pod's ``ray start``, session 44). The command
line the job was started with, not the program; not read on a line below ERROR (session 39)."""
_SHARD = r"\b(?:strateg(?:y|ies)|split|shard)"
_SHARD_NO = r"\b(?:not supported|invalid|must|should|can ?not|is empty|exceed\w*|divisible|fail\w*)\b"
RE_SHARD_CHECK = screened(rf"\b[A-Z][A-Za-z0-9]*Info\d+: .{{0,160}}?(?:{_SHARD}.{{0,160}}{_SHARD_NO}|"
                          rf"{_SHARD_NO}.{{0,160}}{_SHARD})")
"""A MindSpore parallel operator's check of the shard strategy it was given, printed under the operator-info name
(``<Op>Info<n>: ...``: mindspore/ccsrc/frontend/parallel/ops_info, e.g. strided_slice_info.cc "When there is a mask,
the input is not supported to be split"). MindSpore's error-analysis tutorial files these checks under strategy
configuration errors ("these policy check errors are reported due to specific operator slicing restrictions"): the
strategy the job configured, as :data:`~opsbrain.ingest.parsers.cfgenv.RE_PARALLEL_LAYOUT`."""
RE_NODE_LABEL = screened(r"\bcheck Node \S+ label \[[\w./-]+\] Failed, value is\b")
"""The Ascend Volcano plugin's predicate refusing a node whose ``accelerator-type`` label is not the type the job's
NPU handler schedules (session 39; Ascend/mind-cluster component/ascend-for-volcano/internal/npu/ascend910/
ascend910old/module910x8/node.go before commit b7ebe0b4, ``checkNodeLabelOK``: ``check Node %s label [%s] Failed,
value is %s``, returned by ``CheckNodeNPUByTask``; volcano-sh/volcano#4446: ``checkNodeNPUByTask : check Node
controller01 label [accelerator-type] Failed, value is module-910b-8``, the vcjob pending). The job asks for a kind
of device the node does not have, by its labels: the job's or the node's set-up (``cfg:device``), not a fault of any
device."""


# Memory texts beyond the allocators' "out of memory": vLLM's start-up check when the weights leave no room for the KV
# cache ("Available KV cache memory: -0.87 GiB", vllm-ascend#9372; "No available memory for the cache blocks",
# vllm-ascend#5707; its start-up check "Free memory on device (8.0/64.0 GiB) on startup is less than desired GPU
# memory utilization", vllm-ascend#14628: another process holds the memory; session 48: the KV cache left does not hold
# one request of max_model_len, V1 "... KV cache is needed, which is larger than the available KV cache memory", V0 "...
# can be stored in KV cache (N)", tests/test_kv_cache_sizing48.py), MindSpore's allocator ("... is more than
# total mem size", mindone#820), the graph engine's check that a graph's memory fits the device ("Sum of
# total_mem_offset:%zu and var_mem_size:%zu is greater than memory manager malloc max size %zu, ... reduce your
# batchsize or scale your model may solve problem", E19999, and the older "[Check][TotalMemOffset] %zu is greater
# than ..." / "Current memoffset %zu is greater than ...": mindspore-ai/graphengine
# ge/graph/build/memory/graph_mem_assigner.cc @c9a4b65720440289d04a63e131e02d09f4896f06) and the runtime's own
# allocation failure under EL0004 ("Call rtMalloc fail, ... device_id:0", Helios#62).
# Versions: CANN's E40002 "Unsupported Python version: ..." (hicann/runtime error_code_ref, TEfusion errors).
# Devices: a process that cannot count its NPUs runs where none is mounted or visible ("get device count of NPU
# failed", drvGetDevNum, on a MindCluster head node: resumable-training CLI guide; the DSMI query's "Get physical
# device number failed", lmdeploy#2585), not on a lost device; MindSpore's "Got device count[8] and device id[9]"
# is a device id past the node's devices (its distributed FAQ: hosts sharing one hostname get the same local ranks).
# Unsupported: ascend-fd's report status NORMAL_OR_UNSUPPORTED says no fault event was found (MindCluster FaultDiag
# user guide, docs/en/faultdiag/user_guide/07_diagnosing_faults.md), not that an operator is unsupported.
# Environment, fifth round: bash's "command not found" in a Chinese locale ("bash: orted: 未找到命令") and Open MPI's
# "A daemon ... died unexpectedly with status 127" (127: the shell's command-not-found status), HCCL Test FAQ
# (hicann/oam-tools docs/zh/hccl_test/faqs.md). The same in dash, Debian's /bin/sh: "/bin/sh: 1: hccn_tool: not
# found" (its error prefix is the shell's name and the script's line number; MindFormers' hccl_tools.py calls
# hccn_tool through the shell, mindspore#252).
# Compile, eighth round: GE builds a single-operator model when an operator is compiled on first use; its failure
# prints ``[Build][SingleOpModel]call ge interface generator.BuildSingleOpModel failed``, ``[Build][Op]Fail to build op
# model`` and ``build op model failed, result = 500002`` (vllm-omni#890, titled "Compile op[trans_Cast_2,] failed、
# build op model failed"): the same operator compile failure without the word "compile" (the last line's code is
# read by the runtime-code parser first).
# Unsupported, session 39: mmcv's device dispatch finds no kernel of an operator for the tensor's device and prints
# ``roi_align_forward_impl: implementation for device xla:1 not found.`` (open-mmlab/mmcv
# mmcv/ops/csrc/common/pytorch_device_registry.hpp, DISPATCH_DEVICE_IMPL's TORCH_CHECK; mmcv#3063: some operators
# have no NPU implementation yet): the installed release does not run that operator on the NPU.
# Session 40 (tester40c): MindSpore titles its allocation failures "#umsg#Memory not enough:#umsg#Device(id:N) memory
# isn't enough and alloc failed, ..." (mindspore-ai/mindspore mindspore/ccsrc/runtime/graph_scheduler/actor/
# actor_common.h @94bdab39f64433c95bd69e5aeee25c5473917353, SET_OPCONTEXT_MEMORY_ALLOC_FAIL_BY_STRATEGY); a paste cut
# after the title still says the device memory ran out. vLLM's Ray set-up (vllm-project/vllm vllm/executor/
# ray_utils.py @01eec54927dd101d2d1e8dbf96e35b69699a0b4f, initialize_ray_cluster and _wait_until_pg_ready) says
# "The number of required NPUs exceeds the total number of available NPUs in the placement group.", "Current node
# has no NPU available." and "Cannot provide a placement group of ... within ... seconds" when the Ray cluster holds
# fewer devices than the parallel sizes ask for (a node that never joined, a tensor/pipeline size past the cards):
# the job's or the cluster's set-up (cfg:device), not a device fault.
RE_MS_INTERNAL = screened(r"^\s*(?:-\s*)?Framework Unexpected Exception Raised:")
"""MindSpore's title for an exception it raises with ``MS_INTERNAL_EXCEPTION`` (mindspore/core/utils/log_adapter;
its test tests/ut/cpp/utils/log_adapter_test.cc ``TestInternalException``: the title, then "This exception is caused
by framework's unexpected error. Please create an issue at https://gitee.com/mindspore/mindspore/issues to get
help."): the framework's own verdict that the error is its own, not the user's script or setting (session 42,
tester42a: mindone#692 read framework_error only at 0.50 from the bare RuntimeError)."""
RE_GE_PRERUN = screened(r"(?:\bRun |\[Run\]\[)PreRun(?:OptimizeOriginalGraph|OptimizeSubGraph|"
                        r"AfterOptimizeSubGraph)\]? failed for graph\b")
"""A stage of GE's graph pre-run failed: GraphManager::PreRun optimises the graph (PreRunOptimizeOriginalGraph: prepare,
infer shape, optimise; PreRunOptimizeSubGraph: each engine's subgraph optimisation, fusion and lx buffer) and builds it
(PreRunAfterOptimizeSubGraph: Optimize2, Build) before its first run, and logs ``Run %s failed for graph:%s.``
(mindspore-ai/graphengine ge/graph/manager/graph_manager.cc @fde6b4c6; ``[Run][%s] failed for graph:%s, session_id:%lu``
from 2021): the graph failed to compile (``op:compile``). Ascend/modelzoo's PWC-Net job log (TF 1.15, 2020): ``PreRun:
ErrorNo: -1(failed) Run PreRunOptimizeSubGraph failed for graph:ge_default_20201205115415.``. Only at an error level:
the same words at WARNING or INFO add nothing. Not the pre-run thread's outer ``PreRun Failed, thread exit..``
(PreRun also creates the runtime context, rtCtxCreate, which fails on a device's fault) nor the TF Adapter's ``GEOP::::
DoRunAsync Failed`` (geop_npu.cc: any failed RunGraphAsync, a run's too). Session 46 (hixl46)."""
RE_CANN_GRAPH_CALL = screened(r"\bCANNGRAPH failure -?\d+|\bCANN Graph error executing\b|\bCANN graph check failed\b")
"""A GE graph-API call (the IR build / parser APIs ``ge::aclgrph*``, returning a ``ge::graphStatus``) that failed in
a C++ program that hands its network to CANN as a graph: onnxruntime's CANN execution provider converts each subgraph
it takes to an offline model (cann_graph.cc ``ParserONNXModel``: ``ge::aclgrphParseONNXFromMem``; ``BuildONNXModel``:
``ge::aclgrphBuildModel``, ``ge::aclgrphSaveModel``) through ``CANN_GRAPH_CALL`` (cann_call.h: library name
``CANNGRAPH``, cann_call.cc ``%s failure %d: %s ; NPU=...``) and ``CANN_GRAPH_RETURN_IF_ERROR`` (cann_common.h:
``CANN Graph error executing <expr>``); OpenCV's dnn CANN backend checks the same calls with ``ACL_CHECK_GRAPH_RET``
(modules/dnn/src/op_cann.hpp: ``CANN graph check failed, ret = <graphStatus>`` and the exception ``CANN graph check
failed``; net_cann.cpp ``compileCannGraph`` wraps ``ge::aclgrphBuildInitialize`` and ``aclgrphBuildModel``). The
network failed to convert and compile into a model (``op:compile``), as GE's own ``build graph failed`` is; the
AscendCL calls of both programs (``CANN failure 500001`` / ``CANN check failed, ret = 100000``) carry their codes,
which the cann parser reads. microsoft/onnxruntime onnxruntime/core/providers/cann @89e47161 (cann_graph.cc),
@ea5dc5eb (cann_call.h), @f8b74ff7 (cann_common.h); opencv/opencv modules/dnn/src/net_cann.cpp @06a7c031. Session
47, tester47b: onnxruntime#20617 and #21352, opencv#23199 read no signal from these lines."""
RE_MS_ANALYZE_FAIL = screened(r"See file '[^'\n]*analyze_fail\.(?:ir|dat)' for more details")
"""MindSpore's pointer to the IR it dumps when graph compilation fails in type/shape inference (static analysis):
``The function call stack (See file '.../rank_0/om/analyze_fail.dat' for more details. Get instructions about
`analyze_fail.dat` at https://www.mindspore.cn/search?inputValue=analyze_fail.dat)`` (``analyze_fail.ir`` in later
releases). mindspore-ai/docs tutorials/source_zh_cn/advanced/error_analysis/mindir.md ("IR文件分析": how to find the
cause of a graph-inference failure from analyze_fail.ir); the MS_OM_PATH variable's doc: the file is dumped when "a
compiling graph error occurred". The network did not compile (``op:compile``): mindyolo#168 (yolov7's loss stacking
tensors of different dtypes, the same loss fixed in mindyolo#219 by a cast) read nothing but this block (session 49,
tester49h). Only the pointer with its ``See file`` form, not a sentence naming the file."""
RE_VERSION_STATED = screened(r"\bversion.*(?:mismatch|not match|does not match|not compatible|incompatible|"
                             r"not supported)|(?:mismatch|incompatible).*\bversion|requires? .*\bversion|"
                             r"\bversion.*(?:too low|too old|lower than)|unsupported \w+ version", re.I)
"""A line that states a version mismatch (``cfg:version``): read on any failing line, and on a CANN code's line too
(:mod:`.cann`; session 50: the CANN troubleshooting case "operator library package version problem" prints ``E19999
The opp version of the model does not match the current opp run package, Model is [6.4.T11.0.B300], opp run package is
[7.0.T3.0.B107], try to convert the om again!``, which read only the inner-error code)."""
TEXTS: tuple[tuple[Screened, str], ...] = (
    (RE_MS_INTERNAL, "fw:internal"),
    (OOM_TEXT, "mem:oom"),
    (RE_VENDOR_ATTR, "cfg:version"),
    (RE_VERSION_STATED, "cfg:version"),  # the word: "Data type conversion of 'Parameter' is not supported" names none
    (RE_ATB_GRAPH_INFERSHAPE, "cfg:env"),  # MindIE's ATB-models graph: a setting (cfgenv.RE_ATB_GRAPH_INFERSHAPE)
    (RE_TBE_INIT, "cfg:env"),  # TBE's start-up, not an operator's compile (cfgenv.RE_TBE_INIT)
    (CFG_ENV_TEXT, "cfg:env"),
    (RE_JOB_FILES, "cfg:env"),
    (RE_SETTING_WRONG, "cfg:env"),
    (CFG_SETTING, "cfg:env"),
    (RE_PARALLEL_LAYOUT, "cfg:env"),
    (RE_CONTEXT_OVER_MODEL, "cfg:env"),
    (RE_DIST_BACKEND_ABSENT, "cfg:env"),
    (RE_SLEEP_ALLOCATOR, "cfg:env"),  # vllm-ascend's sleep-mode allocator: not built, or expandable segments
    (RE_ROPE_SCHEMA_OLD, "cfg:version"),
    (RE_SHARD_CHECK, "cfg:env"),
    (RE_SOC_PACKAGE, "cfg:version"),
    (RE_BUILT_FOR_OTHER, "cfg:version"),
    (RE_SHM_TOO_SMALL, "cfg:env"),
    (RE_FD_LIMIT, "cfg:env"),
    (RE_FILE_WRITE_FAILED, "cfg:env"),
    (RE_CKPT_NOT_ZIP, "cfg:env"),
    (RE_WEIGHTS_CUT, "cfg:env"),
    (RE_DATASETS_DISK, "cfg:env"),
    (RE_FS_UNSUPPORTED, "cfg:env"),
    (RE_TLS_UNTRUSTED, "cfg:env"),  # the host's trust store, proxy or clock (hostenv.RE_TLS_UNTRUSTED)
    (RE_COMPILER_HEADER, "cfg:env"),
    (RE_BUILD_INPUT_MISSING, "cfg:env"),
    (RE_NPU_BUSY, "cfg:device"),
    (RE_NODE_LABEL, "cfg:device"),
    (RE_LIB_SYMBOL_MISSING, "cfg:version"),
    (RE_TORCH_NO_NPU, "cfg:env"),
    (RE_PROTO_TWICE, "cfg:env"),
    (RE_OP_INFO, "cfg:env"),
    (RE_OP_NO_BINARY, "cfg:env"),  # no kernel binary for the op on this chip: the OPP package (RE_OP_NO_BINARY)
    (RE_CKPT_SHAPE, "cfg:env"),
    (RE_UNKNOWN_TARGET, "cfg:version"),
    (RE_CMAKE_TOO_NEW, "cfg:version"),
    (RE_TOKENIZER_CLASS_MISSING, "cfg:version"),
    (RE_ATB_MODEL_TYPE, "cfg:version"),  # before op:unsupported: atb_llm lacks the model, no operator
    (RE_OPTION_VALUE, "cfg:env"),
    (RE_UNKNOWN_ARGS, "cfg:env"),
    (RE_SET_IN_CONFIG, "cfg:env"),  # an error naming its fix as a setting of the configuration
    (RE_ATC_OUT_NODES, "cfg:env"),
    (screened(r"invalid device|device id.*(?:invalid|out of range|exceed)|(?:invalid|wrong) (?:rank|device)|"
                r"visible devices|set_device.*fail|SetDevice.*fail|because the device is (?:already )?(?:used|"
                r"occupied|in use)|dcmi module initiali[sz]e failed\. ret is -8005"
                r"|get (?:physical )?device (?:count|number)(?: of NPU)? failed"
                r"|Got device count\[\d+\] and device id\[\d+\]"
                r"|number of required [A-Z]PUs exceeds the total number of available [A-Z]PUs in the placement group"
                r"|Current node has no [A-Z]PU available|Cannot provide a placement group of",
                re.I), "cfg:device"),
    (RE_PADDLE_UNIMPLEMENTED, "op:unsupported"),
    # not EOPNOTSUPP's strerror with its errno ("[Errno 95] Operation not supported", "... (os error 95)"): a file
    # system refusing a file operation, read by RE_FS_UNSUPPORTED (session 46, tester46d)
    # MindSpore finding no ACL / AI CPU / host kernel for a node: ``The current [<node>] operator did not match any
    # operator prototype library.`` (mindspore-ai/mindspore@cd3e506e ge_kernel_executor.cc ``PrintQueryAclTypeErr``,
    # then ``Query kernel type failed``; its kernel selection raises the text as NotSupportError; session 51)
    (screened(r"(?<!\[Errno 95\] Operation )not supported(?! \(os error \d+\))|(?<!NORMAL_OR_)unsupported|"
              r"not implemented|NotImplemented|is not support|no kernel|did not match any operator prototype library|"
                r"not registered|op type .* not|: implementation for device \S+ not found", re.I), "op:unsupported"),
    # the word in a path is a folder or file, not a compiler (pytest's ``FAILED tests/ut/compilation/test_x.py::t``,
    # vllm-ascend#10210; session 48, tester48o): no ``/`` or ``\`` beside it, no ``.py`` after it. Spelled by the
    # characters around the word, not look-around, so that RE2 runs the row (``Screened.found``): with look-around
    # ``re`` read ``fail`` * 1024 in ~0.1 s (45 s at 100 KB; review48, tests/test_regex_linear43b.py)
    (screened(r"(?:^|[^\w/\\])compil(?:e|ed|ing|ation)"
              r"(?:[^\w/\\.\n].*fail|\.(?:(?:py?)?fail|[^p\n].*fail|p[^y\n].*fail|py\w.*fail))|"
              r"fail.*[^\w/\\\n]compil(?:e|ed|ing|ation)(?:$|[^\w/\\.]|\.(?:$|[^p]|p(?:$|[^y])|py\w))|build graph fail|"
                r"graph.*(?:build|compile).*fail|TBE.*fail|op_compile|CompileOp|build op model fail|"
                r"BuildSingleOpModel fail|Fail to build op model|\baclopCompile\w*.*fail|fail.*\baclopCompile",
                re.I), "op:compile"),
    (RE_GE_PRERUN, "op:compile"),
    (RE_CANN_GRAPH_CALL, "op:compile"),
    (RE_MS_ANALYZE_FAIL, "op:compile"),
    (RE_BISHENG_COMPILE, "op:compile"),
    (RE_LLVM_BACKEND_FATAL, "op:compile"),
    (RE_MSSANITIZER_REPORT, "rt:aicore_sw"),  # a checker's report on the kernel's own access (mssanitizer)
    # the aclnn engine's own launch / run failure lines name the operator (hicann/opbase src/nnopbase, session 38); not
    # torch_npu's relay "... current working operator name is aclnnX." after any other error (session 56)
    (screened(r"(?<!operator name is )aclnn.*(?:fail|error)|(?:fail|error).*(?<!operator name is )aclnn|"
              r"\blaunch failed for \w+, errno:|"
              r"\bKernel Run failed\. opType:", re.I), "op:aclnn"),
    (screened(r"\[ASSERT\].*Assertion|Assertion `.*' failed|Assertion `", re.I), "op:assert"),
    # the trainers' periodic lines too: the Hugging Face Trainer's metrics dict ``'grad_norm': nan`` and Megatron's
    # (MindSpeed's) training_log ``| grad norm: nan |`` (session 44, tester44b; sources in docs/formats.md)
    (screened(r"loss is nan|nan loss|grad(?:ient)? norm is (?:inf|nan)|loss scale.*overflow|"
              r"found NaN in local grad norm|'grad_norm': nan\b|\| grad norm: nan \|", re.I), "train:nan"),
    (screened(r"\bdcmi\b|drvError|halGetDeviceInfo|(?<!reason=)(?<!reason=\[)(?<!desc=\[)driver.*(?:fail|error|not)|"
              r"firmware.*(?:fail|error|mismatch)|dsmi_\w+ fail", re.I), "drv:api_error"),
)
"""``drv:api_error``: not the runtime's reason strings ``reason=driver error:invalid value`` / ``desc=[driver
error:...`` (hicann/runtime errcode_manage.cc rtErrMap_): they describe a driver return code by the AscendCL code
the runtime maps it to, which the ``errnums`` parser reads (``driver error:invalid value`` is 107000, a parameter;
``driver error:internal error`` is 507899, the driver's own)."""


INFO_KINDS = ("mem:oom", "train:nan")
"""What a line that states its own INFO / DEBUG level may still report: vLLM logs its KV-cache budget at INFO
(``INFO ... Available KV cache memory: -0.87 GiB``, vllm-ascend#9372) and trainers their loss. Any other text of this
parser on such a line is a step the program reports, not a failure: MindCluster's components log ``[INFO] ...
devmanager.go:134    get card list from dcmi reset timeout is 60`` on a normal start (upgrade guide,
container-manager), and a startup banner prints ``LD_LIBRARY_PATH`` or ``ASCEND_HOME_PATH`` without anything missing."""
BELOW_ERROR_QUIET = (RE_JOB_FILES, RE_SETTING_WRONG, RE_UNKNOWN_ARGS, RE_GE_PRERUN)
"""Texts read only at an error level: the same words in a warning or an INFO line add nothing."""
RE_WARNING = lazy_compile(r"^\s*(?:\[rank\d+\]:)?\[W[ \d]|\bWarning: (?!EZ|EE|EI|EL|EH|EJ)"
                          r"|^\s*(?:\[rank\d+\]:\s*)?\S+\.py:\d+: \w*Warning: |^\s*warnings\.warn(?:_explicit)?\(")
"""A warning as torch_npu / glog print it (``[W compiler_depend.ts:26] Warning: ...``): a kernel falling back to
AI CPU or an unsupported dtype converted is a warning, not the cause of a failure. A version mismatch is still one
when printed as a warning (Paddle-Lite's ``[W ...] CANN version mismatch. The build version is 5.1.0, but the
current environment version is 5.1.2``, Paddle-Lite#10514: the cause of the failed inference). Python's warnings
module line as well, ``{filename}:{lineno}: {category}: {message}`` and the source line it echoes indented below it,
most often the ``warnings.warn(...)`` call itself (CPython Lib/warnings.py ``_formatwarnmsg_impl``): MindSpeed's
``.../fp8_utils.py:11: UserWarning: Currently, it is not supported to Cast shard fp32 main params to fp8 model
params`` in the log of a rescheduled Pod that resumed and trains on (MindCluster resumable-training guide, session
46, tester46h: read framework_error 0.66 from ``op:unsupported``)."""
_ANY = group_of(globals())


def exception_severity(ctx: LineCtx, warning: bool) -> int:
    """The severity of a Python exception a line names: an error, unless the line says it is less -- a level it
    states below ERROR (``[WARNING] ...``, ``WARNING:root:...``, vLLM's ``WARNING 08-13 ...``) or torch_npu's warning
    form (:data:`RE_WARNING`): an exception a program reports and survives (a fallback, a retry)."""
    if ctx.stated and ctx.sev < 2:
        return ctx.sev
    return 1 if warning else 2


def _raised(text: str) -> re.Match[str] | None:
    """The first exception class a line names (:data:`RE_EXC`), not the C++ function a RUNTIME plog line names after
    its head (:func:`~opsbrain.ingest.parsers.ctx.rt_func`: ``CheckSmmuFault:`` was read as ``py:CheckSmmuFault``,
    session 36)."""
    func = rt_func(text)
    return next((m for m in RE_EXC.finditer(text) if func is None or m.start(1) != func.start(1)), None)


CARVE_OUTS = ((CFG_ENV_TEXT, (RE_SYSTEM_ENOENT, RE_ENV_ADVICE, RE_ENV_FALLBACK)), (OOM_TEXT, (RE_OOM_ADVICE,)))
"""The words a text's match may rest on that do not count for it: a system path that does not exist, advice to set
a variable, a variable's default taken (:mod:`.cfgenv`), advice that memory may run out (:mod:`.memtexts`)."""


def _carved_out(rx: Screened, text: str) -> bool:
    """Whether ``rx`` matches ``text`` only in words :data:`CARVE_OUTS` sets apart (looked at once ``rx`` matched)."""
    cuts = next((c for r, c in CARVE_OUTS if r is rx), ())
    return any(cut.search(text) and not rx.search(cut.sub(" ", text)) for cut in cuts)


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text) and "Traceback (most recent call last)" not in ctx.text:
        return False  # the line screen rules out every regex of this parser
    text = ctx.text
    found = False
    warning = bool(RE_WARNING.search(text))
    info = ctx.sev == 0
    if not (warning or info) and (kind := atb_setup_kind(text)):
        dev = ctx.device()
        ctx.add(kind, ctx.npu(dev) or ctx.node, 2, device=dev)
        found = True
    for rx, kind in TEXTS:
        if (warning and kind.startswith("op:")) or (info and kind not in INFO_KINDS):
            continue
        if rx in BELOW_ERROR_QUIET and (warning or (ctx.stated and ctx.sev < 2) or _tagged_below_error(text)):
            continue
        if not rx.found(text) or _carved_out(rx, text) or (kind == "drv:api_error" and driver_return_read(ctx)):
            continue
        dev = ctx.device()
        ctx.add(kind, ctx.npu(dev) or ctx.node, 2, device=dev)
        found = True
        break
    if m := _raised(text):
        name = m.group(2)
        if name in PADDLE_TO_PY and m.group(1) == name and RE_PADDLE_UNIMPLEMENTED.search(text):
            name = PADDLE_TO_PY[name]  # Paddle's own summary line, not TensorFlow's exception of that name
        if not ((name == "AttributeError" and RE_VENDOR_ATTR.search(text))
                or (name == "NotImplementedError" and RE_ATB_MODEL_TYPE.found(text))
                or (name == "AssertionError" and RE_SLEEP_ALLOCATOR.found(text))):
            ctx.add(f"py:{name}", ctx.node, exception_severity(ctx, warning))
            found = True
    elif RE_STOP_ITERATION.search(text):
        ctx.add("py:StopIteration", ctx.node, exception_severity(ctx, warning))
        found = True
    elif RE_PADDLE_ENFORCE.search(text):
        ctx.add("py:RuntimeError", ctx.node, 2)
        found = True
    elif m := RE_CPP_UNCAUGHT.search(text):
        ctx.add(f"py:{CPP_TO_PY.get(m.group(1), 'RuntimeError')}", ctx.node, exception_severity(ctx, warning))
        found = True
    elif RE_CALL_SIGNATURE.search(text):
        ctx.add("py:TypeError", ctx.node, exception_severity(ctx, warning))
        found = True
    elif "Traceback (most recent call last)" in text:
        ctx.add("py:traceback", ctx.node, 1)
        found = True
    return found
