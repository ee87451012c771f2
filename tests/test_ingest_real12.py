"""Readings revised after session 32's testers (unseen public text): PCI fields that are no NPU, the kernel's OOM
killer switch at suspend, the device black box's exception record, and a knowledge match of a class the verdict did
not choose. Every line is copied from the source its comment names."""

from __future__ import annotations

import json
import subprocess
import sys

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.where import device_in


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_a_pci_address_or_hex_id_is_no_npu_index() -> None:
    # intel-wired-lan, "i40e: disable PCIe AER on system reboot": the APEI block of a fatal error on an Intel NIC
    assert device_in("{1}[Hardware Error]:   device_id: 0000:05:00.1") is None
    assert device_in("{1}[Hardware Error]:   vendor_id: 0x8086, device_id: 0x1572") is None
    # the fields as Ascend tools write them still name a device
    assert device_in("device_id: 3, fail info: multi ecc err") == 3
    assert device_in("[ERROR] DRV(123): dev_id:5.") == 5
    assert device_in("ASCEND_RT_VISIBLE_DEVICES device 3.") == 3


def test_the_oom_killer_switch_at_suspend_is_no_out_of_memory() -> None:
    # linux-mm, "PM/hibernate: touch NMI watchdog ...": a hibernation's freeze step
    for line in ("[ 1124.768721] OOM killer disabled.", "May  1 10:11:12 node-3 kernel: OOM killer enabled."):
        assert BENIGN.search(line)
        assert "mem:oom" not in kinds(line)
    assert "os:oom_killer" in kinds("[ 99.1] Out of memory: Killed process 4242 (python3) total-vm:1000kB")


def test_the_black_box_exception_record_names_a_heartbeat_loss() -> None:
    # Atlas 200 DK Black Box Instructions (support.huaweicloud.com): hisi_logs/device-N/history.log
    line = ("[2020-02-27-19:18:46.142527] system exception code [0x68020002]: ModuleName [DRIVER],ExceptionReason"
            "[DEVICE HBL EXCEPTION], TimeStamp [20200227191842-300803183].")
    assert kinds(line) == ["drv:heartbeat_lost"]
    other_module = line.replace("[DRIVER]", "[TS]").replace("DEVICE HBL EXCEPTION", "TS EXCEPTION")
    assert "drv:heartbeat_lost" not in kinds(other_module)
    assert "drv:error" in kinds(line.replace("DEVICE HBL EXCEPTION", "DEVICE EXCEPTION"))


def test_a_knowledge_match_of_another_class_says_so(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # a lost heartbeat (507010) that three hardware classes list, none of which the diagnosis chose
    text = "[ERROR] RUNTIME: rtStreamSynchronize failed, ret=507010\n"
    args = [sys.executable, "-m", "opsbrain", "diagnose", "--logs", "-", "--data-dir", str(tmp_path)]
    out = subprocess.run(args, input=text, capture_output=True, text=True, check=True).stdout
    res = json.loads(subprocess.run([*args, "--json"], input=text, capture_output=True, text=True,
                                    check=True).stdout)
    verdict = res["diagnosis"]["fault_class"]
    shown = [k for k in res["knowledge"] if k["source"] != "imported"][:3]
    kb_lines = [ln for ln in out.splitlines() if ln.startswith("  kb: ")]
    assert shown and len(kb_lines) == len(shown)
    for k, ln in zip(shown, kb_lines, strict=True):
        assert ln.endswith(f"(a match of {k['class']}, not the verdict's)") == bool(k.get("class") and
                                                                              k["class"] != verdict), ln
    assert any("not the verdict's" in ln for ln in kb_lines) == any(k.get("class") != verdict for k in shown)


def test_a_numbered_paste_and_a_nameless_python_logging_level() -> None:
    # a healthy Ray cluster's log pasted with `cat -n` (healthy set): NumExpr's INFO note is no missing setting
    from opsbrain.ingest.surface import plain

    line = ('2025-01-08 09:54:50,931 - INFO - Note: NumExpr detected 192 cores but "NUMEXPR_MAX_THREADS" not set, '
            "so enforcing safe limit of 8.")
    assert plain("   324\t" + line) == (line, "   324\t")
    assert plain("0\t910B\tOK") == ("0\t910B\tOK", "")  # a tab-separated row is no numbered line
    assert "cfg:env" not in kinds(line)
    assert "cfg:env" in kinds("2025-01-08 09:54:50,931 - ERROR - environment variable ASCEND_HOME_PATH not set")


def test_a_dcmi_function_this_driver_lacks_is_no_fault() -> None:
    # NodeD's pingmesh probe at start on a node whose driver lacks the call (healthy set); codes from MindCluster's
    # ascend-common/devmanager/dcmi/common.go
    line = ("[ERROR] 2025/05/25 15:24:19.994588 1 pingmesh/controller.go:68 new device manager failed, err: dcmi get "
            "hccs ping mesh state failed cardID(0) deviceID(0) error code: -99998")
    assert kinds(line) == []
    assert "drv:api_error" in kinds(line.replace("-99998", "-8005"))
