"""The ingestion layer on real-format lines (each from a public source or Huawei's own fixtures' layout)."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from opsbrain.ingest import ingest_text, parse_line
from opsbrain.ingest.where import device_in, host_in, user_terms

REAL = [
    # (line, kind expected, device expected)
    ("HBM MULTI BIT ECC, Uncorrectable ECC, device_id=3, event_id=0x80e01801, time us=1.", "dev:80E01801", 3),
    ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)", "mem:oom", 0),
    ("Aug  1 08:38:31 localhost kernel: [ 1197.584409] [ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] "
     "<kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; new_count=1104; lost_count=4)",
     "drv:heartbeat_lost", 1),
    ("Mar 15 03:40:50 sha2uvp-gert01 kernel: Out of memory: Kill process 6033 (java) score 367 or sacrifice child",
     "os:oom_killer", None),
    # CANN troubleshooting 'Device Call Failure' (kernel log): a device another container holds, not a driver fault
    ("[52783.013547] [ascend] [ERROR] [devdrv] [devdrv_manager_container_get_devlist_ns 1210] <drv_hlt_dsmi_te:5615> "
     "some devices are used by other docker, mnt_ns = 0xffff8d33a5963720", "cfg:device", None),
    ("[ERROR] HCCL(26251,python3):2025-01-24-11:24:07.476.916 [comm_base.cc:1018][42715]   |  124.0.0.21(0)   |"
     "   124.0.0.11(1)   |  client  | no connect |", "hccl:no_connect", None),
    ("[ERROR] aclrtSynchronizeStream(stream) failed: 507015", "rt:507015", None),
    ("[  293.039556] NMI watchdog: Watchdog detected hard LOCKUP on cpu 34", "os:hard_lockup", None),
    ("[devid 3]    Mon Jan  1 10:00:00 2024    LINK DOWN", "hccn:down", 3),
    # second round (issue 14), each copied from the source named
    # vllm-ascend#9372: the weights leave no room for the KV cache
    ("Available KV cache memory: -0.87 GiB", "mem:oom", None),
    # mindone#820: MindSpore's allocator cannot grow past the device memory
    ("[ERROR] PRE_ACT(145615,fffbdf67f120,python):2025-01-12-09:48:13.703.514 [mindspore/ccsrc/backend/common/"
     "mem_reuse/mem_dynamic_allocator.cc:392] AddMemBlockAndMemBufByEagerFree] TotalUsedMemStatistics : 24725382656 "
     "plus TotalUsedByEventMemStatistics : 0 and plus alloc size : 100555779072 is more than total mem size : "
     "61079552000.",
     "msg:memory_exhausted", None),
    # vllm-ascend#340: an Ascend module without the API its caller expects (a version mismatch)
    ("AttributeError: module 'torch_npu' has no attribute '_npu_flash_attention'", "cfg:version", None),
    # cann-container-image#46: DCMI refuses a device another container holds
    ("dcmi model initialized failed, because the device is used. ret is -8020", "cfg:device", None),
    # Ascend/pytorch#7: CANN's own environment error behind an EH9999
    ("EH9999  [Init][Env]init env failed![FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]", "cfg:env", None),
    # vllm-ascend#4284: E30006, the operator package fails verification
    ("E30006: 2025-11-19-11:14:58.516.606 Failed to verify the OPP", "err:E30006", None),
    # lmdeploy#3354: the FFTS+ form of a notify-wait timeout
    ("        The error from device(chipId:5, dieId:0), serial number is 17, hccl fftsplus task timeout occurred "
     "during task execution, stream_id:7, sq_id:7, task_id:9865, stuck notify num:3, timeout:1836.[FUNC:ProcessStars"
     "HcclFftsPlusTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1657]", "hccl:notify_timeout", 5),
    # HCCL user guide hcclug_000031: the abnormal device EI0002 names
    ("serverId[192.168.100.111], deviceId[4], Heartbeat Lost Occurred, Possible Reason: 1. Process has exited, "
     "2. Network Disconnected", "hccl:remote", 4),
    # hicann/driver Ascend 950 HCCN tool reference: the link_stat history table
    ("|  0  |  0   |  4   |  LINK_DOWN  | Mon Feb 9 21:45:47 2026 |", "hccn:down", 0),
    # Helios#62: the runtime's own allocation failure under EL0004, with the device it failed on
    ("ERROR 04-09 21:56:46 [diffusion_engine.py:82]         Call rtMalloc fail, purpose: page caching, type = 2, "
     "size:3221291008, device_id:0[FUNC:Alloc][FILE:device_allocator.cc][LINE:72]", "mem:oom", 0),
    # hiascend 'AI Core hardware fault' page: the chip field printed in bold (**chipId**:2)
    ("[ERROR] RUNTIME(377228,ascend-dmi):2024-04-02-15:49:01.883.834 [device_error_proc.cc:1164] 377265 "
     "ProcessStarsCoreErrorInfo:The error from device(**chipId**:2, dield:0), serial number is 4, there is an fftsplus "
     "aivector error exception, core id is 34, error code = 0", "rt:aicore_exception", 2),
    # Huawei black-box log guide EDOC1100164868: history.log device heartbeat lost
    ("[2020-02-27-19:18:46.142527] system exception code [0x68020002]: ModuleName [DRIVER], ExceptionReason "
     "[DEVICE_HBL_EXCEPTION], TimeStamp [20200227191842-300803183].", "msg:device_lost", None),
]


@pytest.mark.parametrize(("line", "kind", "dev"), REAL)
def test_real_lines_become_their_signal(line: str, kind: str, dev: int | None) -> None:
    sigs = parse_line(line)
    kinds = [s.kind for s in sigs]
    assert kind in kinds, kinds
    if dev is not None:
        assert any(s.device == dev for s in sigs if s.kind == kind)


def test_a_driver_line_stating_an_ecc_error_reads_as_that_memory_error() -> None:
    """Composed, not copied: the driver's kernel-line head (CANN troubleshooting_0015's devmm line) around the multi-bit
    ECC text of the device black box's driver record (ascend-fd's bbox/driver.txt fixture). The driver is the reporter;
    the signal is the memory error, on the device the line names, not the driver's generic error."""
    head = "[2572550.901383] [ascend] [ERROR] [devdrv] [devdrv_fault_report 438] <kworker/u16:186:9871,9871> "
    bbox = "device_id = 2, fail info: device_id-2 appeared multi ecc err"
    kinds = {s.kind: s.device for s in parse_line(head + bbox)}
    assert kinds == {"ecc:uce": 2}, kinds
    kinds = {s.kind: s.device for s in parse_line(head + "single bit ecc error, devid=5")}
    assert kinds == {"ecc:ce": 5}, kinds
    assert [s.kind for s in parse_line(head + "ioctl failed, devid=5")] == ["drv:error"]


def test_the_device_a_command_queries_is_found_in_linear_time() -> None:
    """``-i N`` after ``npu-smi`` / ``hccn_tool`` is read within a command line's reach (the npu-smi and hccn_tool
    command references: ``npu-smi set -t <type> -i <id> -c <chip> -d <value>``): an unbounded gap scanned to the
    line's end from every tool name, quadratic (seconds on a 40 kB line; the first lines of an input are all scanned
    for the devices they name); bounded, milliseconds."""
    import time

    for text in ("npu-smi " * 5000, "hccn_tool " * 5000, "npu-smi -i x " * 3000):
        t0 = time.perf_counter()
        assert device_in(text) is None
        assert time.perf_counter() - t0 < 0.5
    assert device_in("npu-smi set -t device-share -i 1 -c 0 -d 1") == 1


def test_hosts_are_free_form_and_devices_as_found() -> None:
    assert host_in("Mar 15 03:40:50 dn360 kernel: EXT4-fs error") == "dn360"
    assert host_in("worker-7 EH9999: Inner Error!") == "worker-7"
    assert host_in("SetupAgent rankNum[3], rank[1], server[10.20.8.111%bond1], logicDevId[0]") == "10.20.8.111"
    assert host_in("no host here") is None
    for text, want in (("[dev3] x", 3), ("device 5 x", 5), ("chip 2 err", 2), ("npu7 down", 7),
                       ("logicDevId[4]", 4), ("device=1000", None),
                       # the device a tool is asked about (npu-smi and hccn_tool command references: -i <device id>)
                       ("root@node:~# npu-smi info -t health -i 3", 3), ("hccn_tool -i 6 -link -g", 6),
                       ("python run.py -i 3", None)):
        assert device_in(text) == want, text
    assert user_terms("worker-7/npu3") == {"component": "worker-7/npu3", "host": "worker-7", "device": 3}
    assert user_terms("pod0/node7/npu3/hbm")["host"] == "pod0-node7"


def test_the_same_excerpt_reads_the_same_whatever_the_host_naming() -> None:
    line = "Aug  1 08:38:31 {h} kernel: [ascend] [ERROR] [drv_soft_fault] Heartbeat lost! (device=2; lost_count=4)"
    kinds = {frozenset(s.kind for s in ingest_text(line.format(h=h))[0])
             for h in ("pod0-node7", "worker7", "gpu-host-12")}
    assert len(kinds) == 1 and "drv:heartbeat_lost" in next(iter(kinds))


def test_streaming_keeps_line_numbers_and_counts_cut_lines() -> None:
    text = "x" * 10_000 + "\nnothing\n" + "EI0002: notify wait timeout, remote rank [1]\n"
    sigs, stats = ingest_text(text)
    assert stats.lines == 3 and stats.lines_cut == 1
    assert [s.line_no for s in sigs if s.kind == "hccl:EI0002"] == [3]


def test_stdin_paste_is_diagnosed_by_the_cli() -> None:
    line = b"RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)\n"
    out = subprocess.run([sys.executable, "-m", "opsbrain", "diagnose", "--logs", "-", "--json"], input=line,
                         capture_output=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    import json

    d = json.loads(out.stdout)["diagnosis"]
    assert d["fault_class"] == "npu_oom" and d["evidence_lines"][0]["line"] == 1
    assert d["root"]["device"] == 0


def test_a_fault_at_the_end_of_a_big_log_is_found(tmp_path: Path) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    p = tmp_path / "big.log"
    with p.open("w") as f:
        for i in range(100_000):
            f.write(f"[INFO] GE(1,python):2024-05-01-10:00:00.000.000 [graph.cc:{i}] step {i} ok\n")
        f.write("Aug  1 08:38:31 host3 kernel: [ascend] [ERROR] [drv_soft_fault] Heartbeat lost! (device=5;)\n")
    res = diagnose_logs(str(p), load_engine())
    assert res["input"]["lines"] == 100_001
    assert res["diagnosis"]["fault_class"] == "npu_off_bus" and res["diagnosis"]["root"]["device"] == 5
    assert res["diagnosis"]["evidence_lines"][0]["line"] == 100_001


def test_a_root_device_named_only_in_text_cites_the_line_that_names_it() -> None:
    """No signal places the fault on a device, the input names one: the root is that device, and the first line
    naming it is among the evidence lines (so the root can be checked, and a cut keeping the evidence keeps it)."""
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    text = ("CANN error: EE9999: Inner Error!\n"
            "EE9999: [PID: 2750884] 2024-08-30-16:20:38.196.490 Stream destroy failed, stream is not in current "
            "ctx, stream_id=2.[FUNC:StreamDestroy][FILE:api_impl.cc][LINE:1032]\n"
            "[INFO] unrelated\n"
            "  current device: 1, in function ~ggml_backend_cann_context at ggml-cann/common.h:235\n")
    d = diagnose_logs("-", load_engine(), stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert d["root"]["device"] == 1
    rows = [r for r in d["evidence_lines"] if r["line"] == 4]
    assert rows and rows[0]["kind"] == "root:device" and "current device: 1" in rows[0]["text"]


def test_junk_never_raises() -> None:
    sigs, stats = ingest_text(bytes(range(256)) * 100)
    assert stats.lines >= 1 and isinstance(sigs, list)
    assert parse_line(None) == []  # type: ignore[arg-type]
    assert io is not None


def test_a_port_that_relocks_within_seconds_is_a_flap_not_a_port_down() -> None:
    from opsbrain.ingest import ingest_text

    records = ("[devid 0]link change records :\n"
               "[devid 0]    Sun Oct  5 10:13:51 2025    LINK UP\n"
               "[devid 0]    Sun Oct  5 10:13:50 2025    LINK DOWN\n")  # newest first, as hccn_tool lists them
    sigs, _ = ingest_text(records)
    flaps = [s for s in sigs if s.kind == "hccn:flap"]
    assert len(flaps) == 1 and flaps[0].line_no == 3 and flaps[0].device == 0
    stays = ("[devid 0]    Sun Oct  5 12:00:00 2025    LINK UP\n"
             "[devid 0]    Sun Oct  5 10:13:50 2025    LINK DOWN\n")  # back after a repair, hours later
    sigs, _ = ingest_text(stays)
    assert not [s for s in sigs if s.kind == "hccn:flap"]


def test_binary_content_is_counted_not_read(tmp_path: Path) -> None:
    """Random bytes given to --logs (a core file, a library in a collected directory) are no log: before, one of
    their lines held "oom" as a word and the answer was npu_oom at 0.64. The file's head decides; a text log with a
    few bad bytes, NUL padding (a file cut by a crash) or a binary blob after its head is still read."""
    import random

    from opsbrain.ingest.surface import looks_binary
    from opsbrain.ingest.textpaths import ingest_path

    junk = random.Random(7).randbytes(400_000)
    (tmp_path / "core.bin").write_bytes(junk)
    sigs, stats = ingest_path(str(tmp_path / "core.bin"))
    assert sigs == [] and stats.binary_lines > 30
    assert any("binary content" in n for n in stats.not_read)
    oom = b"RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)\n"
    gbk = "\u5185\u5b58\u4e0d\u8db3".encode("gbk")  # a Chinese word in GBK: bad UTF-8, still a text line
    text = b"[INFO] start\x00\x00\x00\n" * 70 + gbk + b" EL0004\n" + junk + b"\n" + oom
    (tmp_path / "train.log").write_bytes(text)
    sigs, stats = ingest_path(str(tmp_path / "train.log"))
    assert "mem:oom" in {s.kind for s in sigs} and stats.binary_lines > 0
    assert not looks_binary("[ERROR] 2024 \ufffd\ufffd EL0004 memory") and not looks_binary("\tat x\x1b[0m")


def test_edac_reads_its_error_reports_not_its_start_up() -> None:
    """Every boot prints EDAC's version and its memory controllers (drivers/edac/edac_module.c, ``EDAC MC: Ver:
    3.0.0``): no error (before, a healthy dmesg was answered driver_firmware_error at 0.63). Its error reports are
    ``EDAC MC<N>: <count> CE|UE ...`` (drivers/edac/edac_mc.c edac_ce_error / edac_ue_error)."""
    assert parse_line("[    1.502914] EDAC MC: Ver: 3.0.0") == []
    report = "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x1 offset:0x0)"
    assert [s.kind for s in parse_line(report)] == ["ecc:ce"]
    assert [s.kind for s in parse_line("EDAC MC1: 2 UE memory read error on unknown memory (page:0x0)")] == ["ecc:uce"]
    assert [s.kind for s in parse_line("EDAC MC1: 1 UE on any memory (page:0x0 offset:0x0 grain:1)")] == ["ecc:uce"]
    assert [s.kind for s in parse_line("EDAC MC0: 3 CE on any memory (page:0x0 offset:0x0 grain:1)")] == ["ecc:ce"]


@pytest.mark.parametrize("line", [
    # vllm-ascend#1033 and #2873: printed at every start, before anything fails
    "WARNING 09-11 21:56:54 [_custom_ops.py:20] Failed to import from vllm._C with ModuleNotFoundError(\"No module "
    "named 'vllm._C'\")",
    # vllm-ascend#19 (vLLM 0.7.3's engine arguments)
    "WARNING 03-06 01:16:50 arg_utils.py:1129] The model has a long context length (131072). This may cause OOM "
    "errors during the initial memory profiling phase, or result in low performance due to small KV cache space. "
    "Consider setting --max-model-len to a smaller value.",
    # torch_npu's caching allocator before it retries (Ascend/pytorch#108's healthy run)
    "torch_npu.memory: [ERROR] [269128] Get a block from the existing pool failed. Try to free cached blocks and "
    "reallocate. This error log can be ignored.",
    # HCCL's client once it reconnected (hcomm OpRetryConnection)
    "[ERROR] HCCL(4242,python3):2025-10-23-17:16:52.720.213 [op_retry_connection.cc:120] [4242][OpRetryConnection]"
    "[Init] Client reconnect 2 times to success, so the above or this error log can be ignored",
])
def test_documented_harmless_start_up_warnings_give_no_signal(line: str) -> None:
    from opsbrain.diagnosis.realtext import excerpt_view

    assert parse_line(line) == [] and excerpt_view(line) == ""
    # the same start with a real failure after it: the failure decides
    oom = "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)"
    assert {s.kind for s in ingest_text(line + "\n" + oom)[0]} >= {"mem:oom"}


def test_a_checkpoint_that_does_not_fit_the_model_is_the_jobs_configuration() -> None:
    # torch/nn/modules/module.py _load_from_state_dict; lm-sys/FastChat#575 (a vocab padded to 32,001)
    line = ("\tsize mismatch for model.embed_tokens.weight: copying a param with shape torch.Size([32001, 4096]) from "
            "checkpoint, the shape in current model is torch.Size([32000, 4096]).")
    assert "cfg:env" in {s.kind for s in parse_line(line)}
