"""The job's installation and settings named by a program's own error text are configuration, not the program
(opsbrain.ingest.parsers.framework; the plog head of opsbrain.ingest.parsers.cann)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(line: str) -> set[str]:
    sigs, _ = ingest_text(line + "\n")
    return {s.kind for s in sigs}


@pytest.mark.parametrize(("line", "kind"), [
    # Ascend C runtime AscendCheckSoCVersion (cannmirror/asc-devkit tools/build/asc_rt/ascendc_runtime.cpp),
    # as printed in vllm-ascend#6676 (910B kernels on a 310P card)
    ("[ERROR] the socversion Ascend910B1 of bin package does not match the current device socverison Ascend310P3. "
     "Please modify default socversion in run.sh or execute run.sh with socversion parameter.", "cfg:version"),
    # the same check, a chip the installed package does not know (MindCluster ascend-fd example plog line)
    ("[ERROR] TBE(505389,python3):2026-05-29-15:29:54.823.918 [ascendc_runtime.cpp:228]  505389 "
     "AscendCheckSoCVersion:cur soc version ascend950pr_9599 not found.", "cfg:version"),
    # PyTorch c10/core/Device.cpp without the torch_npu plug-in (MinerU#2665)
    ("RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, ort, xla, "
     "lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: npu", "cfg:env"),
    # protobuf descriptor_database.cc / descriptor.cc: one generated .proto registered twice (protobuf#3469,
    # torchair FAQ)
    ("[libprotobuf ERROR google/protobuf/descriptor_database.cc:57] File already exists in database: caffe.proto",
     "cfg:env"),
    ("RuntimeError: CHECK failed: GeneratedDatabase()->Add(encoded_file_descriptor, size):", "cfg:env"),
    # MindSpore op_info_utils.cc LoadOpInfoJson / GenerateOpInfos (MindOCR FAQ, export on a 310 host)
    ("[ERROR] KERNEL(849474,7f7571d68740,python):2024-10-26-08:44:27.998.221 [mindspore/ccsrc/kernel/oplib/"
     "op_info_utils.cc:179] LoadOpInfoJson] Get op info json suffix path failed, soc_version: Ascend310", "cfg:env"),
    ("RuntimeError: Load op info form json config failed, version: Ascend310", "cfg:env"),
    # MindSpore strided_slice_info.cc strategy check (MindSpore error-analysis tutorial, "Incorrect Operator Logic")
    ("[ERROR]Check StridedSliceInfo1414: When there is a mask, the input is not supported to be split", "cfg:env"),
    # binaries built against other versions than the installed ones, as their refusers print them: glibc's loader
    # (elf/dl-version.c "version `%s' not found (required by %s)"), NumPy 2 (migration guide), NumPy's ABI check,
    # protobuf 4 (python/google/protobuf/descriptor.py)
    ("ImportError: /lib/aarch64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.29' not found (required by "
     "/usr/local/lib/python3.9/site-packages/torch/lib/libtorch_python.so)", "cfg:version"),
    ("A module that was compiled using NumPy 1.x cannot be run in", "cfg:version"),
    ("AttributeError: _ARRAY_API not found", "cfg:version"),
    ("ValueError: numpy.dtype size changed, may indicate binary incompatibility. Expected 96 from C header, got 88 "
     "from PyObject", "cfg:version"),
    ("TypeError: Descriptors cannot be created directly.", "cfg:version"),
    # torch_npu's lazy dlsym of the installed CANN libraries (Ascend/pytorch torch_npu/csrc/distributed/HcclCompile.h,
    # TORCH_CHECK(func, "Failed to find function ", "HcclCommInitRootInfoConfig")): the installed HCCL lacks it
    ("RuntimeError: Failed to find function HcclCommInitRootInfoConfig", "cfg:version"),
    ("[W compiler_depend.ts:148] Warning: Failed to find function aclsysGetCANNVersion (function operator())",
     "cfg:version"),
    # op-plugin's lookup of an aclnn API in the installed CANN (Ascend/op-plugin op_plugin/utils/op_api_common.h,
    # EXEC_NPU_CMD): the ops package installed lacks it (vllm-ascend#9258; vllm-ascend PR #8382 on #7095)
    ("RuntimeError: aclnnAddRmsNormBias or aclnnAddRmsNormBiasGetWorkspaceSize not in libopapi.so, or libopapi.sonot "
     "found.", "cfg:version"),
    # a container's /dev/shm too small: Ray's object store (store_runner.cc, as GPUStack#5014 printed it) and
    # PyTorch's DataLoader worker (torch/utils/data/_utils/signal_handling.py)
    ("[2026-03-25 05:44:29,435 W 39 39] (raylet) store_runner.cc:83: System memory request exceeds memory available "
     "in /dev/shm. The request is for 10200547328 bytes, and the amount available is 9663676416 bytes.", "cfg:env"),
    ("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
     "cfg:env"),
    # clang's missing header (Index SDK FAQ, operator build on openEuler 24.03)
    ("fatal error: 'cstdint' file not found", "cfg:env"),
    # MindCluster scheduling FAQ: the NPUs held by another container
    ("npu is busy, check again", "cfg:device"),
    # HCCL's rank-table check scene tag opening a plog line without its stage tag (vllm-ascend#7711)
    ("[RanktablCheck] 'device ip' is not set correctly, must be set when multi Server or HCCL INTRA ROCE ENABLE "
     "enabled", "cfg:ranktable"),
    # dash's command-not-found (mindspore#252: MindFormers' hccl_tools.py calling hccn_tool)
    ("/bin/sh: 1: hccn_tool: not found", "cfg:env"),
    # CANN EK0001 as MindSpore's profiler relays it (MindSpore error-code doc) and E21001's message (hicann/runtime
    # error_code.json, File_Operation_Error_Open)
    ("EK0001: Path [/data/profiler_中文/profiler] for [profilerResultPath] is invalid or does not exist. The Path name "
     "can only contain A-Za-z0-9-_.", "cfg:env"),
    ("Failed to open file /home/module/fusion_switch.json.", "cfg:env"),
])
def test_an_installation_or_setting_text_is_configuration(line: str, kind: str) -> None:
    found = kinds(line)
    assert kind in found
    assert not {"op:unsupported", "op:compile"} & found


@pytest.mark.parametrize("line", [
    # a device string the program itself got wrong: no plug-in is missing
    "RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
    "vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: auto",
    # an operator-info check of a shape, not of a strategy
    "[ERROR] ME(1,python):2024-01-01-00:00:00.000.000 [matmul_info.cc:10] MatMulInfo0: The shape of input is invalid",
    # an operator the chip's kernel package lacks is unsupported, not a package for another chip (vllm-ascend#1813)
    "RuntimeError: call aclnnMoeGatingTopKSoftmax failed, detail:EZ1001: Get regInfo failed, The "
    "binary_info_config.json of socVersion [ascend310p] does not support opType [MoeGatingTopKSoftmax].",
    # a process that runs out of file handles opens too many, it is not missing one (MindSpore data-processing guide)
    "OSError: [Errno 24] Too many open files",
])
def test_a_program_error_near_those_texts_is_not(line: str) -> None:
    assert not {"cfg:env", "cfg:version"} & kinds(line)


def test_a_plog_thread_id_before_the_function_is_no_code() -> None:
    """RUNTIME and TBE plog lines print the thread id bare after the source position: a 50xxxx thread id is no
    AscendCL return code (the code on the same line still is)."""
    assert "rt:505389" not in kinds("[ERROR] TBE(505389,python3):2026-05-29-15:29:54.823.918 [ascendc_runtime.cpp:228]"
                                    "  505389 AscendCheckSoCVersion:cur soc version ascend950pr_9599 not found.")
    found = kinds("[ERROR] RUNTIME(227839,rtstest_host):2026-07-13-11:39:20.982.674 [api_c.cc:1713]507011 "
                  "rtModelExecute:ErrCode=207005, desc=[driver error:resource alloc fail], InnerCode=0x7020023")
    assert "rt:207005" in found and "rt:507011" not in found


@pytest.mark.parametrize("line", [
    # libstdc++'s verbose terminate handler: SGLang Ascend NPU FAQ (gloo in a heartbeat thread), CANN 7.0.0 PyTorch
    # migration FAQ (c10::Error from NPUStream)
    "terminate called after throwing an instance of 'gloo::EnforceNotMet'",
    "terminate called after throwing an instance of 'c10::Error' what(): 0 INTERNAL ASSERT FAILED at "
    "/***/pytorch/c10/npu/NPUStream.cpp:146, please report a bug to PyTorch.",
])
def test_an_uncaught_cpp_exception_is_the_programs_runtime_error(line: str) -> None:
    assert kinds(line) == {"py:RuntimeError"}


def test_the_shard_check_regex_is_bounded_on_a_long_line() -> None:
    """A line of operator-info heads with only one of the two words: each head costs at most its bounded gaps."""
    import time

    from opsbrain.ingest.parsers.ctx import MAX_LINE
    from opsbrain.ingest.parsers.framework import RE_SHARD_CHECK

    for text in (("AInfo1: must " * 400)[:MAX_LINE], ("AInfo1: split " * 400)[:MAX_LINE]):
        t0 = time.perf_counter()
        assert RE_SHARD_CHECK.rx.search(text) is None
        assert time.perf_counter() - t0 < 0.5


@pytest.mark.parametrize("line", [
    # a program that logs at WARNING a path it then creates or skips, and goes on (Python logging's default
    # "%(levelname)s:%(name)s:%(message)s" format, Python docs logging.basicConfig; the family of
    # logger.warning(f"The path {p} does not exist, ...") in public code)
    "WARNING:root:The path /data/cache/kernel_meta does not exist, will create it",
    # MindSpore's log head at WARNING (format of the MindSpore error-analysis tutorial's CANN cases)
    "[WARNING] ME(51545,ffff8ba74480,python):2019-07-25-19:17:35.411.770 [mindspore/train/serialization.py:100] "
    "Failed to open file /root/.cache/mindspore/kernel_meta/kernel_cache.json, the kernels will be compiled again",
    # torch_npu's warning form (compiler_depend.ts, as RE_WARNING documents it)
    "[W compiler_depend.ts:26] Warning: path /root/.cache/torch_npu/kernel_meta does not exist, it will be created",
    # a bundle's own collection log: msnpureport's export script, whose tag precedes the level (hicann/driver
    # src/ascend_hal/msnpureport/scripts/msnpureport_auto_export.sh, print_log)
    "2025-03-01 10:00:00.123 [RECORD_LOG] [WARNING] The device log /var/log/npu/slog storage path does not exist, "
    "will create.",
])
def test_a_missing_path_or_file_a_warning_reports_is_no_configuration_fault(line: str) -> None:
    """CANN's EK0001 / E21001 are errors; the same words at WARNING are a step the program survives."""
    assert "cfg:env" not in kinds(line)


def test_the_same_missing_file_at_error_level_is_still_configuration() -> None:
    assert "cfg:env" in kinds("[ERROR] ME(51545,ffff8ba74480,python):2019-07-25-19:17:35.411.770 "
                              "[mindspore/train/serialization.py:100] Failed to open file "
                              "/home/module/fusion_switch.json.")


@pytest.mark.parametrize("line", [
    # GE's E13001 with its errno reason (hicann/ge base/common/helper/model_parser_base.cc: "Failed to open file %s.
    # Reason: %s." filled by FormatErrnoReason, inc/graph_metadef/common/ge_common/util.h "[Errno N] <strerror>");
    # EIO and EROFS are the storage's (glibc strerror: "Input/output error", "Read-only file system")
    "E13001: Failed to open file /home/HwHiAiUser/model.om. Reason: [Errno 5] Input/output error.",
    "Failed to open file /data/ckpt/rank_0/checkpoint_1-10_32.ckpt: Read-only file system",
    # hccn_tool's form with the number (hicann/driver src/custom/network/dsmi/ascend950/dsmi_optical.c; EIO is 5)
    "Failed to open file: /home/hccn/optical_fw.bin, errno=5",
    # the driver's device-monitor check of the device node it created (hicann/driver src/custom/dev_prod/user/
    # dsmi_product_ext/dsmi_product_ext.c, DEV_MON_ERR), in a driver plog head
    '[ERROR] DRV(2468,npu-smi):2025-03-01-10:00:00.123.456 [dsmi_product_ext.c:341]2468 dsmi_check_davinci_dev: '
    'Davinci device path does not exist. (path="/dev/davinci3")',
    # a device node that cannot be opened: the driver's or the device's, not a file of the job
    "Failed to open device file /dev/davinci_manager",
    "Failed to open file /dev/davinci_manager",
])
def test_a_file_the_storage_or_the_driver_cannot_open_is_not_the_jobs_configuration(line: str) -> None:
    assert "cfg:env" not in kinds(line)


@pytest.mark.parametrize("line", [
    # MindSpore's EK0001 relay (MindSpore error-analysis tutorial) for a path with a dot in it
    "EK0001: Path [/home/user/.cache/profiler] for [profilerResultPath] is invalid or does not exist. The Path name "
    "can only contain A-Za-z0-9-_.",
    # GE's file_utils (hicann/ge graph_metadef/base/utils/file_utils.cc): "Dir path of %s is invalid or does not exist"
    "Dir path of ./output/kernel_meta is invalid or does not exist",
    # the reading's own "could not open" form, on a line with no other word the ingestion gate knows
    "Could not open file /usr/local/Ascend/ascend-toolkit/latest/opp/vendors/config.ini",
])
def test_a_missing_path_with_dots_or_a_file_that_could_not_be_opened_is_read(line: str) -> None:
    assert "cfg:env" in kinds(line)


@pytest.mark.parametrize(("line", "kind"), [
    # the standard exceptions pybind11 translates to another type than RuntimeError (pybind11 docs, "Built-in C++ to
    # Python exception translation"), as libstdc++'s verbose terminate handler names them
    ("terminate called after throwing an instance of 'std::bad_alloc'", "py:MemoryError"),
    ("terminate called after throwing an instance of 'std::out_of_range'", "py:IndexError"),
    ("terminate called after throwing an instance of 'std::invalid_argument'", "py:ValueError"),
])
def test_an_uncaught_standard_exception_is_what_pybind11_translates_it_to(line: str, kind: str) -> None:
    found = kinds(line)
    assert kind in found and "py:RuntimeError" not in found


@pytest.mark.parametrize("line, kind", [
    # a client relaying a FastAPI HTTPException detail: the CANN message's lines as one JSON string (RFC 8259 s.7
    # escapes a newline as \n); line shape from vllm-ascend issue 4284 (mineru-npu-model-server), cut
    ('ERROR | __main__:doc_parse:95 | Dispatch error: 500: {"detail":"NPU function error: c10_npu::SetDevice'
     '(device_id_), error code is 507033\\n[ERROR] 2025-11-19-11:14:58 (PID:356, Device:0, RankID:-1) ERR00100 PTA '
     'call acl api failed\\nE30006: 2025-11-19-11:14:58.516.606 Failed to verify the OPP\\n"}', "err:E30006"),
    # the same escape before an HCCL code (CANN's EI0006 text, hicann/runtime error_code.json)
    ("RuntimeError('DIST call hccl api failed.\\nEI0006: Getting socket times out.')", "hccl:EI0006"),
])
def test_a_code_after_an_escaped_newline_starts_a_line(line: str, kind: str) -> None:
    """A code right after ``\\n`` (a multi-line message written as one JSON string or Python repr) is read as at
    a line's start; a code glued to a word still is not (session 37)."""
    assert kind in kinds(line)
    assert "err:E30006" not in kinds("build tag xE30006 done")


@pytest.mark.parametrize("line", [
    # Paddle's PIR executor (PaddlePaddle/Paddle paddle/fluid/framework/new_executor/pir_interpreter.cc) logs the
    # failed check at glog WARNING, then rethrows it; as printed in Paddle#75300 and PaddleX#4920 (910B)
    "Instruction OP id: 0, Ir OP id: 1100, pd_op.conv3d raises an EnforceNotMet exception "
    "common::enforce::EnforceNotMet",
    "W0120 16:31:52.696573 131485 backward.cc:462] While running Node (MultiplyGradNode) raises an EnforceNotMet "
    "exception",
])
def test_a_paddle_enforce_failure_is_the_programs_runtime_error_despite_its_warning_level(line: str) -> None:
    """The run fails (the exception is rethrown), so the reading is an error, not an exception the program survived
    (a WARNING-level Python exception is read at severity 1 and never triggers the software triage)."""
    sigs, _ = ingest_text(line + "\n")
    assert [(s.kind, s.severity) for s in sigs if s.kind.startswith("py:")] == [("py:RuntimeError", 2)]
