"""Host-side failures of a job read as its environment, and npu-smi's vNPU legend as no fault (session 45, tester45g).

PyTorch's DataLoader reports a worker's SIGBUS as "... It is possible that dataloader's workers are out of shared
memory. Please try to raise your shared memory limit." (torch/csrc/DataLoader.cpp): the container's /dev/shm. Torch's
DataLoader "Too many open files. Communication with the workers is no longer possible. Please increase the limit using
`ulimit -n` ..." is the host's open-file limit (the bare errno 24 text is not read: a program leaking descriptors
prints it too). ``torch.save``'s "PytorchStreamWriter failed writing file <name>: file write failed"
(caffe2/serialize/inline_container.cc) is a write the file system refused. All three read ``cfg:env`` (each had read
framework_error 0.50 from the bare RuntimeError). ``npu-smi info -t info-vnpu``'s legend "NA: Currently, query is not
supported." explains the table's NA cells (it had read ``op:unsupported``).
"""

from __future__ import annotations

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line

# https://github.com/codalab/codalab-worksheets/issues/3742
SHM = ("RuntimeError: DataLoader worker (pid 52) is killed by signal: Bus error. It is possible that dataloader's "
       "workers are out of shared memory. Please try to raise your shared memory limit.")
# https://github.com/zju3dv/NeuralRecon/issues/91
FD_TORCH = ("RuntimeError: Too many open files. Communication with the workers is no longer possible. Please increase "
            "the limit using `ulimit -n` in the shell or change the sharing strategy by calling "
            "`torch.multiprocessing.set_sharing_strategy('file_system')` at the beginning of your code")
# https://github.com/amdegroot/ssd.pytorch/issues/91
FD_ERRNO = "OSError: [Errno 24] Too many open files"
# https://github.com/h2oai/h2o-llmstudio/issues/214
WRITE = ("RuntimeError: [enforce fail at inline_container.cc:471] . PytorchStreamWriter failed writing file data/228: "
         "file write failed")
# https://www.hiascend.com/document/detail/en/mindcluster/730/toolbox/toolboxug/toolboxug_0104.html
LEGEND = "| Format:Free/Total                   NA: Currently, query is not supported.    |"


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_host_side_failures_read_as_the_environment() -> None:
    for line in (SHM, FD_TORCH, WRITE):
        assert "cfg:env" in kinds(line), line


def test_bare_errno_24_is_not_read_as_the_environment() -> None:
    assert "cfg:env" not in kinds(FD_ERRNO)


def test_other_dataloader_worker_deaths_keep_their_reading() -> None:
    # a worker killed by SIGKILL or SIGSEGV names no shared memory (constructed from torch's template)
    for sig in ("Killed", "Segmentation fault"):
        line = f"RuntimeError: DataLoader worker (pid 2605) is killed by signal: {sig}."
        assert "cfg:env" not in kinds(line)


def test_npu_smi_vnpu_legend_gives_no_signal() -> None:
    assert BENIGN.search(LEGEND)
    assert kinds(LEGEND) == []
    # an npu-smi query that did fail still reads (constructed)
    assert kinds("Error: query is not supported on this device") != []
