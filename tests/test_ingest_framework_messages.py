"""Messages the frameworks raise themselves (torch_npu, MindSpore, vllm-ascend, MindIE), often with no CANN code on
the line: knowledge_base/codes.yaml ``messages``, the block at the top of the list. Lines marked (doc) are copied
from the page the row cites; lines marked (src) are the message as the cited source builds it, with example values
where it formats a number or a name."""

from __future__ import annotations

import pytest

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def roles(kind: str) -> dict[str, str]:
    return dict(default_table().of(kind))


MEMORY = [
    # (src) Ascend/pytorch torch_npu/csrc/framework/utils/NpuUtils.cpp:252
    "RuntimeError: NPU out of memory. device id: 0",
    # (src) torch_npu/csrc/core/npu/NPUWorkspaceAllocator.cpp:500
    "RuntimeError: NPU out of memory. NPUWorkspaceAllocator tried to allocate 2.00 GiB(NPU 0; 60.97 GiB total "
    "capacity; 1.66 GiB free). If you want to reduce memory usage, take a try to set the environment variable "
    "TASK_QUEUE_ENABLE=1.",
    # (src) torch_npu/csrc/core/npu/NPUCachingAllocator.cpp:3611
    "NPU out of memory. Allocation was preemptively rejected because it would exceed per_process_memory_fraction "
    "limit. Requested size: 2.00 GiB",
    # (src) torch_npu/csrc/core/npu/CachingHostAllocator.cpp:670
    "RuntimeError: Malloc pin memory failed, host out of memory, Rried to allocate size: 1073741824, "
    "total_allocated_memory: 0, total_reserved_memory: 0. You might be able to retry after freeing up memory using "
    "torch_npu.npu.host_empty_cache().",
    # (src) mindspore runtime/graph_scheduler/actor/actor_common.h, SET_OPCONTEXT_MEMORY_ALLOC_FAIL_BY_STRATEGY
    "RuntimeError: Device(id:0) memory isn't enough and alloc failed, kernel name: Default/MatMul-op0, alloc size: "
    "1073741824B.",
    # (doc) mindspore-ai/docs tutorials/source_en/debug/error_analysis/cann_error_cases.md:244
    "RuntimeError: mindspore/ccsrc/runtime/device/ascend/ascend_memory_manager.cc:62 MallocDeviceMemory] Malloc "
    "device memory failed, size[32212254720], ret[207001], Device 6 may be other processes occupying this card, "
    "check as: ps -ef|grep python",
    # (doc) the same page, line 292: the start-up check of free device memory (no runtime code on the line)
    "Malloc device memory failed, free memory size is less than half of total memory size.Device 0 Device MOC total "
    "size:34359738368 Device MOC free size:2140602368 may be other processes occupying this card, check as: ps "
    "-ef|grep python",
    # (doc) docs/mindspore/source_en/faq/implement_problem.md:296
    "Out of Memory!!! total[3212254720] (dynamic[0] memory poll[524288000]) malloc[32611480064] failed!",
    # (doc) docs/mindspore/source_en/faq/distributed_parallel.md:175 (the exception the FAQ names, as raised)
    "RuntimeError: Device memory not enough.",
]


@pytest.mark.parametrize("line", MEMORY)
def test_framework_memory_texts_name_the_out_of_memory_class(line: str) -> None:
    got = kinds(line)
    assert "msg:memory_exhausted" in got
    assert roles("msg:memory_exhausted").get("npu_oom") == "primary"


CONFIG = [
    # (src) torch_npu/csrc/core/npu/NPUFunctions.cpp:191
    "RuntimeError: No NPUs are available",
    # (src) torch_npu/__init__.py:23
    "RuntimeError: Two accelerators cannot be used at the same time in PyTorch: npu and cuda. You can install the "
    "cpu version of PyTorch to use your npu device, or use the cuda device with 'export "
    "TORCH_DEVICE_BACKEND_AUTOLOAD=0'.",
    # (doc) Ascend/pytorch docs/zh/installation_guide/faq.md
    "ModuleNotFoundError: No module named 'torch_npu._C'",
    # (doc) vllm-ascend docs/source/faqs.md, FAQ 6 (its two texts)
    "RuntimeError: Failed to infer device type",
    "ImportError: libatb.so: cannot open shared object file: No such file or directory",
    # (doc) docs/mindspore/source_en/faq/implement_problem.md:312
    "error while loading shared libraries: libge_compiler.so: cannot open shared object file: No such file or "
    "directory",
    # (src) vllm-ascend vllm_ascend/compilation/acl_graph.py:206
    "RuntimeError: ACL graph capture failed with an old Ascend HDK/CANN stack signature (`Alloc sq cq fail`). Please "
    "upgrade Ascend HDK to 25.5.1 or later and use the matching CANN stack.",
    # (src) vllm_ascend/ops/fused_moe/token_dispatcher.py:156
    "PTA and CANN version is too old to support mc2 hierarchy comm, please upgrade your version.",
    # (doc) hiascend forum thread-02101179372557937167 (MindIE start-up)
    "[2025-03-10 20:26:36.604+08:00] [324] [325] [mindie-server] [ERROR] [share_memory.cpp:172] : [MIE04E120407] "
    "[model_backend] Shared memory available is not enough on the filesystem.",
    # (doc) docs/mindspore/source_en/faq/distributed_parallel.md:5
    "Init plugin so failed, ret = 1343225860",
    # (doc) Ascend/pytorch troubleshooting_cases/port_number_distributed_task_in_use.md
    "RuntimeError: The server socket has failed to listen on any local network address. The server socket has "
    "failed to bind to [::]:29500 (errno: 98 - Address already in use). The server socket has failed to bind to "
    "?UNKNOWN? (errno: 98 - Address already in use).",
]


@pytest.mark.parametrize("line", CONFIG)
def test_framework_environment_texts_name_the_configuration_class(line: str) -> None:
    assert "msg:config_or_environment" in kinds(line)
    assert roles("msg:config_or_environment").get("config_error") == "primary"


PROGRAM = [
    # (src) torch_npu/npu/__init__.py:318
    ("RuntimeError: Cannot re-initialize NPU in forked subprocess. To use NPU with multiprocessing, you must use the "
     "'spawn' start method", "msg:api_misuse"),
    # (src) torch_npu/csrc/libs/init_npu.cpp:35
    ("NPU device init fail, except got NPU device, but got cpu", "msg:api_misuse"),
    # (doc) Ascend/pytorch troubleshooting_cases/communication_operator_transfers_Non-contiguous_tensors.md
    ("RuntimeError: Tensors must be contiguous", "msg:api_misuse"),
    # (doc) troubleshooting_cases/failed_verify_op_parameters.md
    ("RuntimeError: Expected all tensors to be on the same device. Expected NPU tensor, please check whether the "
     "input tensor device is correct.", "msg:api_misuse"),
    # (doc) troubleshooting_cases/variables_used_gradient_computation_modified_by_in-place_op.md
    ("RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: "
     "[torch.FloatTensor [5]], which is output 0 of AddBackward0, is at version 1; expected version 0 instead. Hint: "
     "enable anomaly detection to find the operation that failed to compute its gradient, with "
     "torch.autograd.set_detect_anomaly(True).", "msg:api_misuse"),
    # (doc) mindspore-ai/docs tutorials/source_en/debug/error_analysis/mindrt_debug.md (Operator Build Errors)
    ("RuntimeError: Data type conversion of 'Parameter' is not supported, so data type int32 cannot be converted to "
     "data type float32 automatically.", "msg:api_misuse"),
    # (src) torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:3388, :6539; HCCLUtils.cpp:89
    ("RuntimeError: ProcessGroupHCCL support one device per process only", "msg:feature_unsupported"),
    ("RuntimeError: ProcessGroupHCCL does not support gather", "msg:feature_unsupported"),
    ("RuntimeError: Unsupported data type for HCCL process group", "msg:feature_unsupported"),
    # (src) mindspore plugin/device/ascend/hal/device/kernel_select_ascend.cc, CollectNotMatchMessage
    ("TypeError: Can not select a valid kernel info for [ReduceSum] in AI CORE or AI CPU kernel info candidates list.",
     "msg:feature_unsupported"),
    ("RuntimeError: Can not find any available kernel info for: Unique. Maybe the operator is not supported on Ascend "
     "platform.", "msg:feature_unsupported"),
    # (doc) tutorials/source_en/debug/error_analysis/cann_error_cases.md (E80000)
    ("[CRITICAL] KERNEL(51545,ffff8ba74480,python):2019-07-25-19:17:54.525.980 [mindspore/ccsrc/backend/"
     "kernel_compiler/tbe/tbe_kernel_compile.cc:494] QueryProcess] Single op compile failed, op: "
     "strided_slice_grad_d_1157509189447431479_0", "msg:operator_error"),
    # (src) vllm_ascend/compilation/acl_graph.py:212
    ("RuntimeError: ACL graph capture failed with a known stream-resource exhaustion signature. Consider reducing "
     "cudagraph_capture_sizes, lowering max_cudagraph_capture_size, preferring FULL or FULL_DECODE_ONLY for mostly "
     "uniform decode workloads, or temporarily disabling graph mode to confirm the failure is capture-related.",
     "msg:scheduling_resources"),
]


@pytest.mark.parametrize("line, kind", PROGRAM)
def test_texts_that_say_fix_the_program_name_the_program(line: str, kind: str) -> None:
    assert kind in kinds(line)
    assert "config_error" not in roles(kind) or roles(kind)["config_error"] != "primary"


def test_the_unsupported_error_is_read_but_its_cpu_fallback_warning_is_not() -> None:
    # (src) torch_npu/csrc/aten/VariableFallbackKernel.cpp:249 (error) and the doc unsupported_op_called.md (warning)
    error = "RuntimeError: CAUTION: The operator 'aten::_to_sparse' is not currently supported on the NPU backend."
    warning = ("[W compiler_depend.ts:51] Warning: CAUTION: The operator 'aten::linalg_lstsq.out' is not currently "
               "supported on the NPU backend and will fall back to run on the CPU. This may have performance "
               "implications. (function npu_cpu_fallback)")
    assert "msg:feature_unsupported" in kinds(error)
    assert not any(k.startswith(("msg:", "op:")) for k in kinds(warning))


AMBIGUOUS = [
    # (doc) mindspore-ai/docs faq/data_processing.md:577 (device set-up failed, cause elsewhere)
    ("RuntimeError: Ascend kernel runtime initialization failed. The details refer to 'Ascend Error Message'.",
     "msg:internal"),
    # (doc) faq/data_processing.md:208
    ("TDT Push data into device Failed", "msg:internal"),
    # (doc) hiascend MindIE error-code reference MIE05E040001; forum thread-02101179372557937167
    ("LLMInferEngine failed to init LLMInferModels", "msg:internal"),
    # (src) ProcessGroupHCCL.cpp:1790, :1794
    ("Heartbeat monitor timed out! Process will be terminated after dumping debug info.", "msg:timeout"),
    ("ProcessGroupHCCL's watchdog got stuck for 480 seconds without making progress in monitoring enqueued "
     "collectives.", "msg:timeout"),
]


@pytest.mark.parametrize("line, kind", AMBIGUOUS)
def test_wrappers_with_several_causes_are_read_only_as_weak_support(line: str, kind: str) -> None:
    assert kind in kinds(line)
    assert "primary" not in roles(kind).values()


def test_a_rank_that_never_got_the_root_info_is_a_collective_timeout() -> None:
    # (doc) faq/distributed_parallel.md:221: the root rank exited or was late, as HCCL's own EI0015
    line = ("RuntimeError: Communicator of group xxx inited: failed. Result: Init communicator for group xxx exception "
            "info: Failed to fetch the unique id of the collective lib from the meta server node. Maybe the root rank "
            "process of this group has exited or has not executed to QueryUniqueID step. Please check root rank: "
            "0's log.")
    assert "msg:comm_timeout" in kinds(line)
    assert roles("msg:comm_timeout").get("collective_timeout_sw") == "secondary"


def test_a_glog_check_on_an_hccl_call_reads_its_return_code() -> None:
    # xLLM-AI/xllm#350 (glog CHECK_EQ prints both values; the left one is the call's HcclResult)
    line = ("F20251111 12:28:58.504206 214989 collective_service.cpp:37] Check failed: status == HCCL_SUCCESS "
            "(1 vs. 0) HCCL get root info failed.")
    assert "hcclret:1" in kinds(line)


def test_mindspore_hccl_adapter_reads_its_return_code() -> None:
    # (src) mindspore-ai/mindspore plugin/device/ascend/hal/hccl_adapter/hccl_adapter.cc (InitHcclComm,
    # @ba7788e3): MS_LOG(ERROR) << "HcclCommInitClusterInfo failed, ret:" << hccl_result
    assert "hcclret:1" in kinds("HcclCommInitClusterInfo failed, ret:1")


def test_conversion_is_no_version() -> None:
    # MindSpore's Parameter dtype error (mindrt_debug.md) holds "conversion ... not supported": no version at all
    line = ("RuntimeError: Data type conversion of 'Parameter' is not supported, so data type int32 cannot be "
            "converted to data type float32 automatically.")
    assert "cfg:version" not in kinds(line)
    # a version mismatch printed as a warning stays one (Paddle-Lite#10514, tests/data/real_logs e033)
    assert "cfg:version" in kinds("[W  5/ 9 20:23:15.461 ...src/driver/huawei_ascend_npu/utility.cc:57 "
                                  "InitializeAscendCL] CANN version mismatch. The build version is 5.1.0, but the "
                                  "current environment version is 5.1.2")


@pytest.mark.parametrize("line", [
    # https://github.com/open-mmlab/mmcv/issues/3063 (via open-mmlab/mmcv#2998), mmocr's sdmgr on torch_npu
    "RuntimeError: roi_align_forward_impl: implementation for device xla:1 not found.",
    # https://github.com/open-mmlab/mmcv/issues/3216
    "RuntimeError: nms_impl: implementation for device npu:0 not found.",
])
def test_mmcv_device_dispatch_without_a_kernel_is_an_unsupported_operator(line: str) -> None:
    """mmcv's DISPATCH_DEVICE_IMPL (mmcv/ops/csrc/common/pytorch_device_registry.hpp) finds no kernel of the
    operator for the tensor's device: the release does not run it there (session 39)."""
    assert "op:unsupported" in kinds(line)
    assert roles("op:unsupported").get("framework_error") == "primary"


DVPP_VPC_PARAMETERS = [
    # (doc) CANN 8.0.0 troubleshooting_0167 "VPC Call Failure", log messages (2) and (4)-(7): each a check of a
    # parameter the application passed to the VPC; the page's solution is to correct the application
    "Output bufferSize(65536) should not be smaller than widthStride(256) * heightStride(256) * 3 / 2 = 98304",
    "bareDataAddr(0xaaaadeccdcd0), bareDataBufferSize(3133440) should be allocated by acldvppMalloc!",
    "Both RoiNum(1) outputAddr(0xaaaadeccdcd0) and first roi outputAddr(0xffff00002000) should be allocated by "
    "acldvppMalloc!",
    "RoiNum(0): inputConfigure cropArea, leftOffset(26) should be smaller than rightOffset(25)!",
    "RoiNum(0): inputConfigure cropArea, upOffset(80) should be smaller than downOffset(79)!",
    "RoiNum(0): scale must be in [1/32, 16], cropWidth(1920), pasteWidth(10)!",
]


@pytest.mark.parametrize("line", DVPP_VPC_PARAMETERS)
def test_dvpp_vpc_parameter_checks_are_the_callers_misuse(line: str) -> None:
    got = kinds(line)
    assert "msg:api_misuse" in got
    assert roles("msg:api_misuse").get("framework_error") == "primary"


def test_a_vpc_crop_inside_the_image_is_no_misuse() -> None:
    # the crop-area words alone (no failed check) name nothing
    assert "msg:api_misuse" not in kinds("RoiNum(0): inputConfigure cropArea, leftOffset(0), rightOffset(1919)")


@pytest.mark.parametrize("line", [
    # https://github.com/PaddlePaddle/PaddleSpeech/issues/4058 (its title: the error as the user saw it, cut there)
    '(Unimplemented) npu npu only support mode=constant right now,but received mode is reflect . [Hint: Expected '
    'mode == "constant", but received mode:reflect != "constant":constant.] (at /p',
    # (src) the same check's error summary: paddle/common/errors.cc error_name (UNIMPLEMENTED -> "UnimplementedError"),
    # message from https://github.com/PaddlePaddle/PaddleSpeech/pull/4084 (pad3d_kernel.cc:43)
    'UnimplementedError: npu only support mode=constant right now,but received mode is replicate . [Hint: Expected '
    'mode == "constant", but received mode:replicate != "constant":constant.] (at '
    '/paddle/backends/npu/kernels/pad3d_kernel.cc:43)',
])
def test_paddle_unimplemented_error_type_is_an_unsupported_operator(line: str) -> None:
    """Paddle's error type UNIMPLEMENTED (paddle/common/enforce.cc SimplifyErrorTypeFormat prints it
    ``(Unimplemented) ...``; Python gets NotImplementedError): a kernel that does not implement the case, read as
    ``op:unsupported`` (session 47, tester47f); before, the short form read nothing and the summary only an unknown
    ``py:UnimplementedError``."""
    got = kinds(line)
    assert "op:unsupported" in got
    assert "py:UnimplementedError" not in got
    assert roles("op:unsupported").get("framework_error") == "primary"

