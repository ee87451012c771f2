"""Host kernel and OS logs: ``messages`` / syslog, ``dmesg`` (``-T`` or uptime stamps), ``vmcore-dmesg.txt``, the
device's kbox/``kernel.log``, and the Ascend driver's own lines (``[ascend] [ERROR] [drv_soft_fault] ...
Heartbeat lost! (device=1; ...)``). Texts are the kernel's and the driver's own (panic, lockups, hung tasks,
PCIe AER, machine-check / EDAC / RAS memory errors, the OOM killer, file-system and NFS errors)."""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.rankrecords import OOM_VICTIM_TAIL
from opsbrain.ingest.screen import Group, Screened, screened
from opsbrain.lazyre import lazy_compile

RE_DRV = screened(r"\[ascend\]\s*\[(?:ERROR|WARNING|WARN|ERR)\]\s*\[(drv_\w+|devdrv\w*|\w*drv\w*)\]", re.I)
RE_APP_HEAD = lazy_compile(r"\[ascend\]\[(?:ERROR|WARNING|WARN|ERR)\]\[([A-Za-z]\w*)\]", re.I)
"""The driver's log head written by a user-space program of its own (``[ascend][ERROR][AML][tid:...] >>> Run testcase
preprocess failed, device[0], ... error code:110000``: Ascend DMI's test library in the MindCluster ToolBox FAQ,
hiascend.com mindcluster/730 toolboxug_0198): the module named is the program's, not the driver's. The driver's own
user-space lines name a driver module or a time stamp first (``[ascend][ERROR][2021-06-26-17:53:15:689064][curpid:
...][devdrv][drvDeviceOpen 79]``, CANN troubleshooting_0117)."""
DRIVER_MODULE = lazy_compile(r"drv|devmm|hdc|svm|hal|dms|tsch|pcie|ascend", re.I)
"""Names a driver module: the driver's logs name ``devdrv``, ``devmm``, ``tsdrv``, ``drv_soft_fault``, ``hdc`` ..."""
# The device black box's driver record (hisi_logs/device-N/<time>/bbox/driver.txt) names an HBM multi-bit error
# "device_id = 2, fail info: device_id-2 appeared multi ecc err, the physical address is 0x400cd8d202e0" (the
# ascend-fd test fixture of that file, Ascend/mind-cluster component/ascend-faultdiag/test/st_testcase/
# modelarts-job-testdt/ascend/device_log/hisi_logs/.../bbox/driver.txt @22bb3d98): read as the other multi-bit ECC
# texts are.
EDAC_REPORT = r"EDAC MC\d+: \d+ "
"""EDAC's error reports, ``EDAC MC<N>: <count> CE|UE <msg> on <label> (...)`` (drivers/edac/edac_mc.c, edac_ce_error /
edac_ue_error through edac_mc_printk): a corrected or an uncorrected memory error. EDAC's other lines are no error:
every boot prints ``EDAC MC: Ver: 3.0.0`` and the memory controllers' registration (a healthy dmesg was answered
driver_firmware_error before, from the word EDAC)."""
CPER_SINGLE_BIT = "error_type: 2, "
"""The head of the single-bit memory error type of a kernel CPER record (``{37}[Hardware Error]: error_type: 2,
single-bit ECC``, then ``DIMM location: CPU 2 DIMM 30``; linux drivers/firmware/efi/cper.c ``cper_print_mem`` and
``mem_err_type_strs``, https://github.com/torvalds/linux/blob/v5.15/drivers/firmware/efi/cper.c): a corrected
single-bit error of the platform's (host's) DIMMs, which the firmware reports through APEI, not the NPU's HBM that
``ecc:ce`` names; the line keeps its ``os:hw_error`` (session 45, tester45h: node-problem-detector#846's corrected
record read hbm_ce_storm 0.65). Its multi-bit type (``error_type: 3, multi-bit ECC``) still reads ``ecc:uce``: not
measured on a real record here."""
HARD_LOCKUP = "os:hard_lockup"
"""The NMI watchdog's hard lockup (``NMI watchdog: Watchdog detected hard LOCKUP on cpu 34``, kernel/watchdog_hld.c;
``Kernel panic - not syncing: Hard LOCKUP`` when ``kernel.hardlockup_panic`` is set): a CPU looping in kernel mode
with interrupts off for longer than the watchdog threshold. It is not the soft lockup (``BUG: soft lockup - CPU#N
stuck``, kernel/watchdog.c: interrupts still run, other tasks starved) that ``os:lockup`` reads: by default the kernel
only warns and the host hangs, with ``hardlockup_panic`` it panics and the host is down (Linux
Documentation/admin-guide/lockup-watchdogs.rst). A panic line of its own, read first, says which."""
OOM_VICTIM = r"Killed process \d+ " + OOM_VICTIM_TAIL + r"|oom_reaper: reaped process \d+ \("
"""The OOM killer's victim without the ``Out of memory:`` prefix (session 46): Linux 4.x ``__oom_kill_process``
printed ``Killed process %d (%s) total-vm:%lukB, anon-rss:...`` on a line of its own, after ``Out of memory: Kill
process ... or sacrifice child`` (v4.19 mm/oom_kill.c; the ``%s: Killed process`` form with the prefix came in 5.x), a
RHEL kernel with ``, UID 0,`` before total-vm (linux-test-project/ltp#1080); and the OOM reaper's ``oom_reaper: reaped
process %d (%s), now anon-rss:...`` (oom_reap_task_mm). Both are printed for the OOM killer's victims only:
``__oom_kill_process`` is called by ``oom_kill_process`` and ``oom_kill_memcg_member`` (the memory cgroup's group
kill), the reaper reaps only tasks ``wake_oom_reaper`` queued from those paths. A log that kept the victim's line and
not the one before it (a grep for ``Killed``, a rate-limited header) reads as the OOM killer too."""
MODULE_REFUSED = (r"\bcould not insert (?:module \S+|'[^']+'): (?:Invalid module format|Exec format error|"
                  r"Unknown symbol in module)|: version magic '[^']*' should be '|"
                  r": disagrees about version of symbol \w|: Unknown symbol \w+ \(err -?\d+\)")
"""The kernel refusing a module built for another kernel, as it refuses the Ascend driver's modules when DKMS did not
rebuild them (session 46, tester46c): ``%s: version magic '%s' should be '%s'`` (kernel/module/main.c check_modinfo,
-ENOEXEC), ``%s: disagrees about version of symbol %s`` (kernel/module/version.c check_version), ``%s: Unknown symbol
%s (err %d)`` (kernel/module/main.c simplify_symbols: a symbol no loaded module exports), and the loader's report of
the refusal (kmod: ``insmod: ERROR: could not insert module xdma.ko: Invalid module format``, ``... Unknown symbol in
module``; modprobe's ``could not insert '8723bu': Exec format error``, strerror(ENOEXEC);
https://github.com/torvalds/linux/blob/v6.6/kernel/module/main.c). The module and the running kernel do not match:
a setting of the host (``cfg:env``, as the Ascend installer's own vermagic check, :mod:`.installer`), fixed by
rebuilding the module against the running kernel's headers (lwfinger/rtl8723bu#153, Xilinx/dma_ip_drivers#47).
insmod's other refusals (``File exists``: the module is loaded already) are no such mismatch."""
IO_ERROR = r"I/O error(?!:\s*$)(?!: .{0,200}\(os error (?!5\))\d+\))"
"""An I/O error a device or its file system reported (``Buffer I/O error on dev sda1``, ``blk_update_request: I/O
error, dev sda``), not a wrapper's ``I/O error:`` whose detail names another errno: Rust's io::Error ``I/O error:
<strerror> (os error N)`` (safetensors) with N not 5 (EIO; 95 EOPNOTSUPP, 28 ENOSPC are read by their own texts), or
the wrapper ending its line before the detail (kernel lines go on: ``, dev sda``, `` on dev``; session 46, tester46d).
The documented message ``I/O error`` (codes.yaml, a block-device I/O error) is read only where this reads (session
46, polish46: :mod:`.messages`)."""
ABORTED = (r"(?:terminated with|received) signal SIGABRT\b|Fatal Python error: Aborted\b|"
           r"\bSignal (?:6 \(SIGABRT\)|11 \(SIGSEGV\)) received by PID\b|#\d+\s+(?:\S+ in )?(?:__GI_)?abort \(|"
           r"\bfree\(\): invalid pointer|double free or corruption \((?:!prev|out|fasttop|top)\)|"
           r"corrupted size vs\. prev_size")
"""A process ended by SIGABRT (or SIGSEGV) as the tools that watch it report the death, read as the generic crash
(``os:segfault``: a fatal signal, a segmentation fault or an abort) where no line says "Segmentation fault" or "core
dumped" (session 51, tester51r: Mooncake#1008's gdb backtrace and six other texts read nothing). gdb's
``Program terminated with signal SIGABRT, Aborted.`` (a core file, alibaba/BladeDISC#952) and ``Program received
signal SIGABRT, Aborted.`` (microsoft/onnxruntime#2804); abseil's failure-signal handler (loaded by Ray's workers)
``*** SIGABRT received at time=1739956853 on cpu 100 ***`` (absl/debugging/failure_signal_handler.cc; verl#316,
vllm#5458), as its SIGSEGV line was read already; CPython faulthandler's ``Fatal Python error: Aborted``
(Modules/faulthandler.c names SIGABRT "Aborted"; vllm#5458, intel/torch-xpu-ops#3314); torchrun's ``ChildFailedError``
table ``traceback : Signal 6 (SIGABRT) received by PID 2385923`` and ``Signal 11 (SIGSEGV) received by PID 3304209``
(torch/distributed/elastic/multiprocessing/errors/__init__.py ``ProcessFailure``; open-mmlab/mmsegmentation#3106,
NVIDIA/Megatron-LM#1880: the launcher itself only sends SIGTERM and SIGKILL, so either is the rank's own crash); a gdb
backtrace frame in libc's ``abort`` (``#2  0x0000ffffb8cc6d70 in abort () from /usr/lib64/libc.so.6``,
kvcache-ai/Mooncake#1008); and glibc's heap checks, which print their message and call ``abort``
(malloc/malloc.c ``malloc_printerr``): ``free(): invalid pointer`` (microsoft/nni#5286), ``double free or corruption
(!prev)`` / ``(out)`` / ``(fasttop)`` (Alpine-DAV/ascent#1618, NVIDIA/nvidia-container-runtime#100,
nanoporetech/dorado#824), ``corrupted size vs. prev_size`` (kvcache-ai/Mooncake#1338). Each says the process died on
the signal, not why: a program's bug, a library mismatch or a build that does not fit, never the device by itself."""
KINDS: tuple[tuple[Screened, str, int], ...] = (
    (screened(r"Kernel panic|Fatal machine check|kernel BUG at|Oops:", re.I), "os:panic", 2),
    # a BMC's SEL as ipmitool lists it, the OS Stop/Shutdown sensor's (20h) offset 01h asserted: the OS's own crash
    # stop, which Linux writes from its panic path (ipmi_msghandler.c send_panic_events; IPMI v2.0 Table 42-3 "Run-time
    # Critical Stop (a.k.a. 'core dump', 'blue screen')"; ipmitool include/ipmitool/ipmi_sel.h prints "Run-time
    # critical stop"). Session 52, tester52c: philip-bee-h/vault_backup's dead-node SEL read hbm_uce from its memory
    # UE alone. The graceful offsets and a Deasserted record are not read.
    (screened(r"\|\s*Run-time critical stop\b[^|\n]*\|\s*Asserted\b", re.I), "os:panic", 2),
    (screened(r"hard LOCKUP", re.I), HARD_LOCKUP, 2),
    # the workqueue watchdog (kernel/workqueue.c wq_watchdog_timer_fn, ``BUG: workqueue lockup - pool cpus=2 node=0
    # flags=0x1 nice=0 stuck for 171s!``): a worker pool made no progress past workqueue.watchdog_thresh, the host
    # stopping as under a soft lockup (openEuler 21.09 hung at boot with it, AmpereComputing ampere-lts-kernel#71)
    (screened(r"soft lockup|Watchdog detected (?:soft|core) LOCKUP|rcu_sched detected stall|"
                r"rcu.*self-detected stall|BUG: workqueue lockup - pool", re.I), "os:lockup", 2),
    # not the report's advice line, ``"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.``
    # (kernel/hung_task.c check_hung_task, printed under each report): read, it counted every hung task twice and
    # stood as evidence of one (session 46, tester46c: sonic-net/sonic-buildimage#4822's four reports read seven)
    (screened(r"hung_task(?!_timeout_secs)|blocked for more than \d+ seconds", re.I), "os:hung_task", 2),
    (screened(r"PCIe Bus Error.*(?:Fatal|Uncorrected)|AER:.*(?:Uncorrected|Fatal)|pcie.*link down|"
                r"Surprise Down|pciehp.*Link Down", re.I), "os:pcie_fatal", 2),
    # Linux 6.8 prints the spec's "Correctable" for "Corrected" (and "Uncorrectable" for "Uncorrected", which the row
    # above reads by its "Fatal"): "PCI/AER: Use 'Correctable' and 'Uncorrectable' spec terms for errors",
    # https://lore.kernel.org/linux-pci/20231206224231.732765-2-helgaas@kernel.org/
    (screened(r"PCIe Bus Error.*Correct(?:ed|able)\b|AER:.*Correct(?:ed|able)\b", re.I), "os:pcie_ce", 1),
    (screened(r"multi[- ]?bit ecc|multi ecc err|uncorrect\w* (?:ecc|memory|error)|\bUCE\b|UE memory|SEA exception|"
                r"memory_failure|Memory failure|" + EDAC_REPORT + r"UE\b", re.I), "ecc:uce", 2),
    (screened(r"(?<!" + CPER_SINGLE_BIT + r")single[- ]?bit ecc|(?<!un)correctable (?:ecc|memory)|\bCE memory|"
              + EDAC_REPORT + r"CE\b", re.I), "ecc:ce", 1),
    (screened(r"\[Hardware Error\]|Machine check events logged", re.I), "os:hw_error", 1),
    (screened(r"Out of memory: Kill|invoked oom-killer|oom-kill|Memory cgroup out of memory|"
                r"page allocation failure|" + OOM_VICTIM, re.I), "os:oom_killer", 2),
    (screened(r"nfs: server .* not responding|storage .* timed out|EXT4-fs error|"
                + IO_ERROR + r"|\[Errno 5\] Input/output error", re.I),
     "os:storage", 2),  # EIO's strerror as Python raises it (OSError errno 5): the storage under the path failed;
    # not a wrapper's "I/O error:" whose detail names another errno (IO_ERROR; session 46, tester46d)
    # tvm-ffi's SIGSEGV handler (loaded into vLLM processes through xgrammar) prints ``!!!!!!! Segfault encountered
    # !!!!!!!`` and re-raises the signal: apache/tvm-ffi@4ca86a21 src/ffi/backtrace.cc, TVMFFISegFaultHandler (session
    # 48, tester48j: vllm-ascend#14860, #16642, #16577 and vllm-omni#6969, the profiler's stop segfaulting, read none)
    # a host process killed by SIGILL: the shell's ``Illegal instruction (core dumped)`` (glibc strsignal(SIGILL)),
    # its job report ``line 295:   10 Illegal instruction     cmd``, gdb's ``signal SIGILL``. On the hosts of NPU
    # jobs the CPU refused an instruction of a build for an instruction set it lacks (torch 2.10's aarch64 wheel with
    # ARMv8.1 atomics on ARMv8.0 CPUs: vllm-ascend#13936, pytorch/pytorch#174344, vectorize-io/hindsight#4201;
    # TensorFlow 1.6+ AVX builds on CPUs without AVX, tensorflow#17411, #47146): a build that does not match the
    # host, read as a version mismatch (``cfg:version``, as a kernel module built for another kernel is ``cfg:env``),
    # before the generic crash below. Never the device's AI Core ``errorStr: Illegal instruction, which is usually
    # caused by ...`` (a kernel on the NPU; the CANN parser reads it): case-sensitive, never after ``errorStr: ``,
    # and the message must end there or name the core dump (session 49, tester49d).
    (screened(r"(?<!errorStr: )Illegal instruction(?: \(core dumped\)|\s*$)|\d Illegal instruction\s|"
              r"\bSIGILL\b"), "cfg:version", 2),
    (screened(r"Segmentation fault|segfault at|core dumped|\*\*\* SIG(?:SEGV|ABRT) received|"
              r"!!!!!!! Segfault encountered !!!!!!!|" + ABORTED, re.I), "os:segfault", 2),
    (screened(MODULE_REFUSED, re.I), "cfg:env", 2),
)
DRV_KINDS: tuple[tuple[Screened, str], ...] = (
    (screened(r"Heartbeat lost|heart beat lost|device .*(?:is )?dead|device.*abnormal", re.I), "drv:heartbeat_lost"),
    (screened(r"Dma copy failed|DMA timeout|dma.*fail", re.I), "drv:dma_failed"),
    (screened(r"link down|pcie.*(?:not ready|down)|hot ?reset|surprise", re.I), "drv:pcie_down"),
    (screened(r"\[devmm\].*\bout of memory\b", re.I), "mem:oom"),
)
"""The driver's own kinds. The memory manager's ``out of memory`` (``[drv][devmm][devmm_alloc_managed 182]<errno:12,
6> Heap_alloc_managed out of memory. (temp_ptr=0x1; bytesize=8592031776)``) is device memory exhausted: CANN 8.0.0
troubleshooting guide, "OOM Error Due to Memory Allocation Failure" (session 41); the driver reports it, the fault is
the memory's use, so it reads as the allocation failure the runtime's and torch_npu's texts give (``mem:oom``)."""
RE_BBOX_RECORD = screened(r"system exception code \[0x[0-9A-Fa-f]{8}\]: ModuleName \[(\w+)\],\s*"
                          r"ExceptionReason\s*\[([^\]]+)\]", re.I)
"""The device black box's exception record (``hisi_logs/device-N/history.log``: ``[2020-02-27-19:18:46.142527] system
exception code [0x68020002]: ModuleName [DRIVER],ExceptionReason[DEVICE HBL EXCEPTION], TimeStamp [...]``; Atlas
200 DK "Black Box Instructions", support.huaweicloud.com, where 0x68020002 is the driver's device heartbeat loss).
Its reason names what happened: a heartbeat loss (``HBL``) is the driver's lost device heartbeat; another reason of
the driver module is a driver error; another module's reason is read by no rule here (its code list is the
product's black-box error code table, an xlsx the project has not read)."""
RE_BBOX_HEARTBEAT = lazy_compile(r"\bHBL\b|heart ?beat", re.I)


MEMORY_KINDS = tuple(row for row in KINDS if row[1] in ("ecc:uce", "ecc:ce"))
"""A driver line that states a multi- or single-bit ECC error reads as that memory error, as the same text does in
any other head (the bbox driver record above; the kernel's EDAC lines): the driver is the reporter, not the fault."""
RE_DRV_IN_USE = screened(r"used by other docker|\bdevice is in used\b", re.I)
"""The driver's container device manager refusing a device another container holds (``[devdrv_manager_container_
get_devlist_ns 1210] ... some devices are used by other docker, mnt_ns = ...``, ``... device is in used``): CANN's
troubleshooting guide, 'Device Call Failure' (canncommercial 800 maintenref troubleshooting_0118), kernel-log message
(2), gives the cause as the device occupied by another container. That is the allocation of devices, read as the
device-in-use texts of DCMI (-8020) and MindCluster ("npu is busy") are (``cfg:device``), not a driver fault."""
RE_VM_FAULT = screened(r"\[devmm\].*(?:Vm fault failed|don't allow fault by device|Device fault error|"
                       r"Check alloced va)", re.I)
"""The driver's shared-virtual-memory fault handler could not map the address a device task touched
(``[ascend] [ERROR] [devmm] [devmm_svm_device_fault 438] <...> Vm fault failed. (hostpid=...; devid=0; ...
fault_addr=0x1240f1fa0000; ...)``): CANN's troubleshooting case on AI Core errors (atomic add precision overflow,
canncommercial 80RC22 troubleshooting_0015) reads it as the operator's out-of-bounds memory access, a program
error -- the same kind as an AI Core error text that names an address out of range (``rt:aicore_sw``). The same
handler's other refusals of a device page fault say the same: ``[devmm_dev_page_fault_get_vaflgs 441] ... Va error
don't allow fault by device. (hostpid=...; va=...; devid=12; ...)``, its ``Check alloced va`` range print and
``[devmm_chan_query_vaflgs_d2h_process 130] ... Device fault error. (...; ret=-22)`` -- in vllm-ascend#9873 (triaged:
"HCCL vector core exception (AIV AllGather MTE out-of-range)" under DP=2/TP=8) they are an AIV collective kernel
addressing memory outside its buffers."""


def parse_driver(ctx: LineCtx) -> bool:
    """The Ascend driver's own kernel lines (``[ascend] [ERROR] [drv_...]``)."""
    text = ctx.text
    if rec := RE_BBOX_RECORD.search(text):
        kind = ("drv:heartbeat_lost" if RE_BBOX_HEARTBEAT.search(rec.group(2))
                else "drv:error" if rec.group(1).upper() == "DRIVER" else None)
        if kind:
            dev = ctx.device()
            ctx.add(kind, ctx.npu(dev) or ctx.node, 2, device=dev)
        return kind is not None
    if (drv := RE_DRV.search(text)) or ("[ascend]" in ctx.low and "[error]" in ctx.low):
        if not drv and (app := RE_APP_HEAD.search(text)) and not DRIVER_MODULE.search(app.group(1)):
            return False  # a program's line in the driver's head (Ascend DMI's AML): the other parsers read it
        dev = ctx.device()
        if RE_VM_FAULT.search(text):
            ctx.add("rt:aicore_sw", ctx.npu(dev) or ctx.node, 2, device=dev)
            return True
        if RE_DRV_IN_USE.search(text):
            ctx.add("cfg:device", ctx.npu(dev) or ctx.node, 2, device=dev)
            return True
        for rx, kind in DRV_KINDS:
            if rx.found(text):
                ctx.add(kind, ctx.npu(dev) or ctx.node, 2, device=dev)
                return True
        for rx, kind, sev in MEMORY_KINDS:  # the driver reporting a memory error: that error, not the driver's
            if rx.found(text):
                ctx.add(kind, ctx.npu(dev) or ctx.node, sev, device=dev)
                return True
        ctx.add("drv:error", ctx.npu(dev) or ctx.node, 2, device=dev)
        return True
    return False


_ANY = Group([row[0] for row in KINDS])


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):  # the line screen rules out every regex of this parser: no signal here
        return False
    text = ctx.text
    for rx, kind, sev in KINDS:
        if rx.found(text):
            dev = ctx.device() if kind in ("ecc:uce", "ecc:ce") else None
            ctx.add(kind, ctx.npu(dev) or ctx.node, sev, device=dev)
            return True
    return False
