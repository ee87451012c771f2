"""Host-process failures of NPU jobs on ARM servers (session 49, tester49d): a process killed by SIGILL, and the
DataLoader's shared-memory verdict printed on a line of its own.

The CPU refused an instruction of the program: on the hosts of NPU jobs that is a binary built for an instruction set
the host CPU lacks (torch 2.10's aarch64 wheel, built with ARMv8.1 atomics, on an ARMv8.0 Phytium D2000 or
Cortex-A57), a build that does not match the host (read as ``cfg:version``) -- not the generic program crash
``os:segfault`` stands for, and never the device's AI Core "Illegal instruction" exception (a kernel on the NPU).
Every log line is copied from the source its comment names."""

from __future__ import annotations

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# vllm-project/vllm-ascend#13936 (Phytium D2000 + 310P: ``import torch`` of torch 2.10 dies; pytorch/pytorch#174344)
D2000 = ("进入容器后执行vllm就出现Illegal instruction (core dumped),排查到原因是由于import torch就出现这个问题，"
         "torch版本是2.10.post2，2.9的torch可以正常import，但运行vllm有其他的问题")
# pytorch/pytorch#100156 (``import torch`` of 2.0.0 on an AWS a1 Graviton; 1.13.1 imports)
BARE = "Illegal instruction"
# vectorize-io/hindsight#4201 (the shell's job report of the same torch 2.10 import on a Cortex-A57)
SHELL = "/app/start-all.sh: line 295:   10 Illegal instruction     hindsight-api"
# vectorize-io/hindsight#4201 (gdb on the fault: the mimalloc constructor's ARMv8.1 ``ldaddal`` in libc10.so)
GDB = "Program received signal SIGILL, Illegal instruction."
# hw-native-sys/PTOAS#937 (the device's AI Core exception: a kernel bug on the NPU, read by the CANN parser)
DEVICE = ("       The extend info: errcode:(0x10, 0, 0) errorStr: Illegal instruction, which is usually caused by "
          "unaligned UUB addresses. fixp_error0 info: 0x600009a, fixp_error1 info: 0x6d, fsmId:0, tslot:3, thread:0, "
          "ctxid:0, blk:0, sublk:0, subErrType:4.[FUNC:PrintCoreInfo][FILE:device_error_core_proc.cc][LINE:658]")


def test_a_host_process_killed_by_sigill_is_a_build_that_does_not_match_the_host() -> None:
    for line in (D2000, BARE, SHELL, GDB):
        assert kinds(line) == ["cfg:version"], (line, kinds(line))


def test_the_devices_illegal_instruction_and_a_segfault_read_as_before() -> None:
    assert "cfg:version" not in kinds(DEVICE)
    assert kinds("Segmentation fault (core dumped)") == ["os:segfault"]
    assert kinds("Aborted (core dumped)") == ["os:segfault"]


# gongjiyun.com's shared-memory guide (FluxMusic training, Docker's 64 MB /dev/shm): torch's report of the worker's
# SIGBUS as the page prints it, its sentences on lines of their own
SHM_WRAPPED = ("RuntimeError: DataLoader worker (pid 12902) is killed by signal: Bus error.",
               "It is possible that dataloader's workers are out of shared memory.",
               "Please try to raise your shared memory limit.")


def test_the_dataloaders_shared_memory_verdict_on_a_line_of_its_own_is_the_containers_setting() -> None:
    assert kinds(SHM_WRAPPED[1]) == ["cfg:env"]
    assert kinds(SHM_WRAPPED[2]) == []
