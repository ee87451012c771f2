"""Readings revised after session 46's tester46c (the host kernel under Ascend servers, unseen public text): the
kernel's refusals to load a module built for another kernel, the workqueue watchdog's lockup, corrected PCIe AER
reports and chronyd's slewing notice. Every log line is copied from the source its comment names."""

from __future__ import annotations

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# Xilinx/dma_ip_drivers#47 (insmod of a module built for 4.15.0-74 on 4.15.0-76; kernel/module/main.c check_modinfo)
INSMOD_FORMAT = "insmod: ERROR: could not insert module xdma.ko: Invalid module format"
VERMAGIC = "xdma: version magic '4.15.0-74-generic SMP mod_unload ' should be '4.15.0-76-generic SMP mod_unload '"
# lwfinger/rtl8723bu#153 (modprobe's strerror(ENOEXEC) for the same refusal)
MODPROBE_EXEC = "modprobe: ERROR: could not insert '8723bu': Exec format error"
# dm-vdo/kvdo#27 (kernel/module/main.c simplify_symbols: a symbol no loaded module exports)
UNKNOWN_SYMBOL = "[16324.089963] kvdo: Unknown symbol getByte (err 0)"
INSMOD_SYMBOL = "insmod: ERROR: could not insert module kvdo.ko: Unknown symbol in module"
# neggles/cm4io-fan#7 (kernel/module/version.c check_version: a symbol CRC of another kernel build)
DISAGREES = "[   10.584880] emc2301: disagrees about version of symbol module_layout"


def test_a_module_built_for_another_kernel_is_a_setting_of_the_host() -> None:
    for line in (INSMOD_FORMAT, VERMAGIC, MODPROBE_EXEC, UNKNOWN_SYMBOL, INSMOD_SYMBOL, DISAGREES):
        assert kinds(line) == ["cfg:env"], (line, kinds(line))
    # insmod's other refusals are no kernel mismatch (a module already loaded: kmod's "File exists")
    assert "cfg:env" not in kinds("insmod: ERROR: could not insert module ./mt76xx.ko: File exists")


# AmpereComputing/ampere-lts-kernel---DEPRECATED#71 (openEuler 21.09 kernel hung at boot; kernel/workqueue.c
# wq_watchdog_timer_fn: pr_emerg("BUG: workqueue lockup - pool"))
WQ_LOCKUP = "[  244.780025][    C0] BUG: workqueue lockup - pool cpus=2 node=0 flags=0x1 nice=0 stuck for 171s!"


def test_the_workqueue_watchdogs_lockup_is_a_host_lockup() -> None:
    assert kinds(WQ_LOCKUP) == ["os:lockup"]
    # its follow-on dump of the pools is no second signal
    assert kinds("[  244.850433][    C0] Showing busy workqueues and worker pools:") == []


# the RHEL 7 kernel administration guide's AER example (corrected Data Link Layer errors)
AER_CE = ("Feb  5 15:41:33 hostname kernel: pcieport 10003:00:00.0: PCIe Bus Error: severity=Corrected, "
          "type=Data Link Layer, id=0000(Receiver ID)")
# the same report since Linux 6.8 ("PCI/AER: Use 'Correctable' and 'Uncorrectable' spec terms for errors",
# lore.kernel.org 20231206224231.732765-2-helgaas@kernel.org: "AER: Correctable error received: 0000:00:1c.5")
AER_CE_NEW = "pcieport 0000:00:1c.5: AER: Correctable error received: 0000:00:1c.5"
# rwth-i6/returnn#1500 (an uncorrected fatal report on the port above a card that was lost)
AER_FATAL = ("[  +0.000004] pcieport 0000:00:03.0: PCIe Bus Error: severity=Uncorrected (Fatal), "
             "type=Transaction Layer, (Requester ID)")


def test_a_corrected_aer_report_is_no_driver_message() -> None:
    assert kinds(AER_CE) == ["os:pcie_ce"]
    assert kinds(AER_CE_NEW) == ["os:pcie_ce"]
    assert kinds(AER_FATAL) == ["msg:driver", "os:pcie_fatal"]
    assert kinds(AER_FATAL.replace("Uncorrected (Fatal)", "Uncorrectable (Fatal)")) == ["msg:driver", "os:pcie_fatal"]


# NethServer/dev#5062 (chronyd correcting the clock after a manual change; the maintainer: "the expected behavior")
CHRONY_SLEW = "Jul 17 04:19:28 intranet chronyd[17789]: System clock wrong by 1721.913772 seconds, adjustment started"
CHRONY_SOURCE = "Jul 17 04:19:28 intranet chronyd[17789]: Selected source 81.19.96.148"


def test_chronyd_slewing_the_clock_is_no_fault() -> None:
    for line in (CHRONY_SLEW, CHRONY_SOURCE):
        assert BENIGN.search(line), line
        assert kinds(line) == [], line
    # chrony failing to pick a time source is no such notice
    assert not BENIGN.search("Jul 17 04:21:41 intranet chronyd[17789]: Can't synchronise: no majority")


# sonic-net/sonic-buildimage#4822 (kernel/hung_task.c check_hung_task: the report and its advice line)
HUNG = "[26825.873379] INFO: task ntpd:11794 blocked for more than 120 seconds."
HUNG_ADVICE = '[26825.882849] "echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.'


def test_the_hung_task_reports_advice_line_is_no_second_report() -> None:
    assert kinds(HUNG) == ["msg:host_hang", "os:hung_task"]
    assert "os:hung_task" not in kinds(HUNG_ADVICE)
