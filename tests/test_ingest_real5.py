"""Line shapes added in the real-log corpus' fifth round (issue 14): error numbers decoded to the documented codes
they stand for (HCCL's ``errNo[0x...]``, the runtime's internal ``retCode=0x07...``, HCCL Test's ``retcode: N``,
MindSpore's ``Error Number N``, DCMI return codes), ascend-dmi report lines, and a few documented causes (name
resolution, missing vendor tools, vLLM's start-up memory check, the driver's Vm fault, the AI Core analyser's
atomic-overflow conclusion). Every line is copied from the source its comment names."""

from __future__ import annotations

import pytest

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest import ingest_text
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.parsers.errnums import hccl_result
from opsbrain.ingest.parsers.rt_internal import RT_INTERNAL_TO_ACL


def kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text)[0]]


@pytest.mark.parametrize(("line", "kind"), [
    # HCCL's errNo: HCCL_ERROR_CODE = (5 << 24) + (sub-module << 16) + HcclResult (hicann/hccl src/common/log.h);
    # the lines: tests/data/real_logs corpus_b (b019, vllm-ascend issue) and the hicann/hccl rank-table guide
    ("[ERROR] HCCL(38011,python):2025-07-15-12:45:32.997.778 [adapter_hccp.cc:647] [38011][Init][RaRdma]"
     "errNo[0x0000000005000013] rdma init fail. return: ret[328004]", "hcclret:19"),
    ("[ERROR] HCCL(1104629,test_one_side):2025-10-28-17:45:13.679.684 [param_check.cc:66] [1104629][InitGroupStage]"
     "[RanktableConfig]errNo[0x0000000005010001] path /ranktable.json is not a valid real path", "hcclret:1"),
    # the runtime's internal numbers (hicann/runtime errcode_manage.cc): RT_ERROR_DRV_ERR 0x07020010 is 507899
    # (LLaMA-Factory#3839), RT_ERROR_DEVICE_RETAIN 0x07010006 is 507033 (vllm-ascend#4284)
    ("        stream setup failed, retCode=0x7020010.[FUNC:SyncGetDevMsg][FILE:api_impl.cc][LINE:4643]",
     "rt:507899"),
    ("        New device failed, retCode=0x7010006[FUNC:SetDevice][FILE:api_impl.cc][LINE:2398]", "rt:507033"),
    # HCCL Test's return code of the HCCL API (hicann/oam-tools docs/zh/hccl_test/faqs.md)
    ("hccl interface return err ./common/src/hccl_test_common.cc:538, retcode: 7 ", "hcclret:7"),
    # MindSpore's HCCL init failure (mindspore-ai/docs faq/distributed_parallel.md)
    ('Ascend collective Error: "HcclCommInitRootInfo failed. | Error Number 2', "hcclret:2"),
    # DCMI: -8020 is DCMI_ERR_CODE_RESOURCE_OCCUPIED (hicann/driver DCMI return codes); the line: the npu-smi
    # message of cann-container-image#46
    ("dcmi model initialized failed, because the device is used. ret is -8020", "cfg:device"),
    # name resolution (HCCL Test FAQ; MindSpore distributed FAQ) and a vendor tool the device plugin cannot find
    # (Project-HAMi/ascend-device-plugin#103)
    ("MPID_nem_tcp_init(379)..................: gethostbyname failed, HW-AI-LC-1-1 (errno 2)", "cfg:env"),
    ("RuntimeError: DNS resolution failed: [Errno -2] Name or service not known. Please check whether the correct "
     "host name is input.", "cfg:env"),
    ("npu-smi set device-share -i 1 -c 0 -d 1: npu-smi not found in", "cfg:env"),
    # vLLM's start-up memory check (vllm-ascend#14628)
    ("ValueError: Free memory on device (8.0/64.0 GiB) on startup is less than desired", "mem:oom"),
    # the driver's SVM fault: the operator's out-of-bounds access (CANN troubleshooting, canncommercial 80RC22 0015)
    ("2024-02-20-17-07-25/slog/dev-os-0/debug/device-os/device-os_20240122045443091.log:461:[EVENT] KERNEL(4128,"
     "sklogd):2024-01-22-05:03:02.259.649 [klogd.c:253][2572550.901383] [ascend] [ERROR] [devmm] "
     "[devmm_svm_device_fault 438] <kworker/u16:186:9871,9871> Vm fault failed. (hostpid=1885445; devid=0; vfid=0; "
     "ret=64; fault_addr=0x1240f1fa0000; start=0x1240f1fa0000)", "rt:aicore_sw"),
    # the AI Core error analyser's conclusion (CANN troubleshooting, CANNCommunityEdition 80RC2alpha002 0018)
    ('Analysis result: success. "**********************Root cause conclusion******************" "dha status 1" found '
     "in log. It means Atomic accumulation exception, please check the input data and network accuracy. Attention "
     "please, if multiple tasks are running on the same device at the same time, false positives may be generated. "
     "You are advised to pull up only one task and collect it .", "rt:aicore_sw"),
    # a missing op binary: the ops / Kernels package (torch_npu troubleshooting, "operator call error" ERR01100)
    ("EZ9999: [PID: 775] 2025-02-16-12:18:25.258.321 Cannot find bin of op Range, integral key "
     "0/1/|int64/ND/int64/ND/int64/ND/int64/ND/.", "cfg:env"),
])
def test_real_line_gives_its_documented_kind(line: str, kind: str) -> None:
    assert kind in kinds(line)


def test_decoded_kinds_have_knowledge_base_roles() -> None:
    """The decoded kinds are the documented ones: the knowledge base gives them roles (they are features)."""
    table = default_table()
    for kind in ("hcclret:19", "hcclret:7", "rt:507899", "rt:507033", "cfg:env", "cfg:device", "mem:oom",
                 "rt:aicore_sw"):
        assert table.of(kind), kind


def test_hccl_errno_layout() -> None:
    assert hccl_result("0000000005000009") == 9
    assert hccl_result("0000000005010009") == 9  # the HCOM sub-module: the same HcclResult
    assert hccl_result("0000000000000009") is None  # not HCCL's module id
    assert hccl_result("0000000005000000") is None  # success is no error
    line = ("[ERROR] HCCL(17528,python3):2026-03-18-10:34:43.142.152 [hccl_comm.cc:306] [18111][HcclComm]"
            "[HcomAllReduce_6629421139219749105_0]errNo[0x0000000000000009] index[0]")
    assert not any(k.startswith("hcclret:") for k in kinds(line))  # hicann/hccl param_link_stage.md: no module id


def test_runtime_internal_table_matches_its_source_rows() -> None:
    """Rows read from hicann/runtime errcode_manage.cc and internal_error_define.hpp (681ef7610)."""
    assert RT_INTERNAL_TO_ACL[0x07020010] == 507899  # RT_ERROR_DRV_ERR -> ACL_ERROR_RT_DRV_INTERNAL_ERROR
    assert RT_INTERNAL_TO_ACL[0x07010006] == 507033  # RT_ERROR_DEVICE_RETAIN -> ACL_ERROR_RT_DEV_SETUP_ERROR
    assert RT_INTERNAL_TO_ACL[0x07020009] == 507000  # RT_ERROR_DRV_OPEN_TSD -> ACL_ERROR_RT_INTERNAL_ERROR
    assert 0x07000000 not in RT_INTERNAL_TO_ACL  # success is not listed
    task = ("        Kernel task happen error, retCode=0x26, [aicore exception].[FUNC:PreCheckTaskErr]"
            "[FILE:davinci_kernel_task.cc][LINE:1729]")  # a task's own small code is no internal runtime number
    # session 39: it is the task scheduler's number, 0x26 ACL_ERROR_RT_AICORE_EXCEPTION 507015 (ts_errors.py)
    assert {k for k in kinds(task) if k.startswith("rt:")} == {"rt:507015", "rt:aicore_exception"}


def test_dcmi_codes_without_a_set_up_cause_give_no_kind() -> None:
    """-8255 (not supported) and -8010 (message send failed) name no cause (Project-HAMi/ascend-device-plugin#66,
    #9)."""
    for line in ("[2026-04-28 07:59:11.955139][WARN]     261     dcmi/dcmi.go:1466    get cur vDev's activity info "
                 "failed, err: retCode: -8255",
                 "failed to get device health:ret code: -8010,health code: 4"):
        assert not {"cfg:device", "cfg:env"} & set(kinds(line))


def test_ascend_dmi_report() -> None:
    """A failing AICORE test as CANN's 'AI Core超时故障' case prints it; a passing one gives nothing
    (toolboxug_0153)."""
    failing = ("    Hardware:\n        aicore:\n            FAIL\n"
               "            *** Some processes are seizing the NPU. Test results may be affected.\n"
               "            *** Device 4: a timeout error occurred.\n")
    sigs = ingest_text(failing)[0]
    assert [s.kind for s in sigs] == ["dmi:fail", "dmi:npu_busy", "dmi:device_error"]
    assert sigs[2].device == 4
    assert kinds("        EMERGENCY_WARN\n") == ["dmi:emergency_warn"]
    passing = ("Stress test is being performed, please wait.\nSummary:\n    Arch: aarch64\n    Mode: ******\n"
               "    Time: 20250529-19:35:34\n \nHardware:\n    aicore:\n        PASS\n")
    assert kinds(passing) == []
    assert kinds("the test FAIL was expected") == []  # a verdict is a line of its own


def test_one_signal_once_per_line() -> None:
    line = "dcmi model initialized failed, because the device is used. ret is -8020"
    sigs = parse_line(line)
    assert len(sigs) == len(set(sigs))
    assert [s.kind for s in sigs].count("cfg:device") == 1



def test_a_torch_npu_error_type_means_the_same_in_every_submodule() -> None:
    """ERR<module><type>: error_code_information.md gives the type's meaning for every submodule (PTA, OPS, DIST,
    GRAPH, PROF), so ERR02002 (the DIST invalid-type case of the torch_npu troubleshooting guide) reads as ERR01002."""
    from opsbrain.diagnosis.knowledge import documented_kinds

    roles = documented_kinds()
    assert roles["err:ERR02002"] == roles["err:ERR01002"] == roles["err:ERR00002"]
    assert "framework_error" in roles["err:ERR03007"] and "config_error" in roles["err:ERR04008"]
    assert "err:ERR05002" not in roles  # no sixth submodule is documented
    assert "err:ERR02002" in kinds("[ERROR] 2024-08-18-22:15:47 (PID:23232, Device:0, RankID:0) ERR02002 DIST "
                                   "invalid type")


def test_an_invalid_device_id_is_a_configuration_error() -> None:
    """107001 ACL_ERROR_RT_INVALID_DEVICEID: a device id the job's set-up got wrong (MindSpore distributed FAQ:
    'Got device count[8] and device id[9]')."""
    table = default_table()
    assert ("config_error", "primary") in table.of("rt:107001")
