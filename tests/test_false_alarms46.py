"""Session 46 (fa46): four false alarms session 45's blind testers left on runs that went well
(tests/data/blind/blind45_healthy.yaml b45d-04, b45h-02, b45j-09, b45k-01). Each line is copied from the public source
its comment names; each reading is taken off only where the source of the program that prints it says it is an
optional path, a hint or a recovered fallback, and the same program's failure keeps its reading."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.realtext import excerpt_view
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.text import ingest_text

# https://github.com/meta-pytorch/torchtune/pull/2646 (a LoRA DPO run on 2 NPUs, shown as working). The print is
# torchao's (torchao/kernel/intmm.py, v0.8.0 and v0.9.0: ``except ImportError as e: print("import error:", e)``,
# "On cpu-only builds might not be available", then ``intmm_triton = None``), once per process that imports it.
TORCHTUNE = """\
(torchtune_npu) [root@localhost torchtune]# tune run --nnodes 1 --nproc_per_node 2 lora_dpo_distributed --config llama3_1/8B_lora_dpo
import error: No module named 'triton'
Running with torchrun...
W0429 10:00:27.103000 1526603 site-packages/torch/distributed/run.py:792]
W0429 10:00:27.103000 1526603 site-packages/torch/distributed/run.py:792] *****************************************
W0429 10:00:27.103000 1526603 site-packages/torch/distributed/run.py:792] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
W0429 10:00:27.103000 1526603 site-packages/torch/distributed/run.py:792] *****************************************
import error: No module named 'triton'
import error: No module named 'triton'
INFO:torchtune.utils._logging:Running LoRADPORecipeDistributed with resolved config:
"""  # noqa: E501

# https://github.com/NixOS/infra/pull/523 (rasdaemon's database on a host in service: every table empty, three MCE
# records the hardware corrected)
RAS_RECORD = ("{} 2024-12-19 03:52:38 +0000 error: Corrected error, no action required., CPU 2, bank Unified Memory "
              "Controller (bank=17), mcg mcgstatus=0, mci CECC, memory_channel=0,csrow=1, mcgcap=0x0000011c, "
              "status=0x9c2040000000011b, addr=0x319deb440, misc=0xd01b0fff01000000, walltime=0x67639886, "
              "cpuid=0x00870f10, bank=0x00000011")
RAS = "\n".join(["[root@haumea:~]# ras-mc-ctl --errors", "No Memory errors.", "", "No PCIe AER errors.", "",
                 "No ARM processor errors.", "", "No Extlog errors.", "", "No devlink errors.", "", "No disk errors.",
                 "", "No Memory failure errors.", "", "MCE events:", *(RAS_RECORD.format(i) for i in (1, 2, 3))]) + "\n"

# https://github.com/mindspore-ai/docs/blob/9e844dc65dc5ef4381574e8b6ec2f93f9681f720/tutorials/source_en/debug/
# error_analysis/minddata_debug.md ("the training is actually going on, just slower"), the record as the blind
# excerpt holds it (its three parts on three lines) and whole (as the tutorial prints it).
MINDDATA = """\
[WARNING] MD(90635,fffdf0ff91e0,python):2023-03-25-15:29:14.801.601 [mindspore/ccsrc/minddata/dataset/engine/datasetops/source/generator_op.cc:220] operator()] Bad performance attention,
it takes more than 25 seconds to generator.__next__ new row, which might cause `GetNext` timeout problem when sink_mode=True.
You can increase the parameter num_parallel_workers in GeneratorDataset / optimize the efficiency of obtaining samples in the user-defined generator function.
"""  # noqa: E501
MINDDATA_LINE = " ".join(MINDDATA.splitlines())
# MindSpore's GetNext kernel when the queue stays empty (MS_LOG(EXCEPTION) << "For '" << kernel_name_ << "', get data
# timeout. Queue name: " << queue_name_, mindspore/ccsrc dataset iterator kernel), as a public ms-deit README shows it
GETNEXT_TIMEOUT = "RuntimeError: For 'GetNext', get data timeout. Queue name: 4c8d0410-8075-11ed-ac18-0242ac110006"

# https://github.com/gpustack/runtime/pull/20 (merged: DCMI V2 support; the author's ``gpustack-runtime detect`` run
# with GPUSTACK_RUNTIME_LOG_EXCEPTION=1 on a V2-only host, which then lists its devices)
GPUSTACK = """\
2026-08-27 15:14:40,121 - 1401 - gpustack_runtime.detector.amd - DEBUG - No AMD PCI devices found
2026-08-27 15:14:40,139 - 1401 - gpustack_runtime.detector.ascend - ERROR - Failed to initialize DCMI, loaded from libdcmi.so
Traceback (most recent call last):
  File "/usr/local/lib/python3.11/dist-packages/gpustack_runtime/detector/ascend.py", line 77, in is_supported
    pydcmi.dcmi_init()
  File "/usr/local/lib/python3.11/dist-packages/gpustack_runtime/detector/pydcmi/__init__.py", line 835, in dcmi_init
    _dcmiCheckReturn(ret)
  File "/usr/local/lib/python3.11/dist-packages/gpustack_runtime/detector/pydcmi/__init__.py", line 280, in _dcmiCheckReturn
    raise DCMIError(ret)
gpustack_runtime.detector.pydcmi.DCMIError_NotSupport: Not Supported
2026-08-27 15:14:40,265 - 1401 - gpustack_runtime.detector.ascend - INFO - Initialized DCMI through the V2 API, the V1 API being unavailable
2026-08-27 15:14:42,433 - 1401 - gpustack_runtime.detector.cambricon - DEBUG - No Cambricon PCI devices found
2026-08-27 15:14:42,435 - 1401 - gpustack_runtime.detector.hygon - DEBUG - No Hygon PCI devices found
"""  # noqa: E501
V2_LINE = GPUSTACK.splitlines()[10]


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def verdict(tmp_path: Path, engine: Any, text: str) -> dict[str, Any]:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "paste.log"
    f.write_text(text)
    return diagnose_logs(str(f), engine)["diagnosis"]


@pytest.mark.parametrize("text", [TORCHTUNE, RAS, MINDDATA, MINDDATA_LINE + "\n", GPUSTACK])
def test_the_four_healthy_excerpts_raise_no_alarm(tmp_path: Path, engine: Any, text: str) -> None:
    assert verdict(tmp_path, engine, text)["fault_class"] in ("unknown", None)


def test_torchaos_optional_triton_import_notice_is_no_missing_module() -> None:
    assert BENIGN.search("import error: No module named 'triton'")
    assert kinds("import error: No module named 'triton'") == []
    # a raised import of triton, and torchao's print for another module, still read
    assert "cfg:env" in kinds("ModuleNotFoundError: No module named 'triton'")
    assert "cfg:env" in kinds("import error: No module named 'vllm'")


def test_the_ras_mc_ctl_command_line_is_no_error() -> None:
    for line in ("[root@haumea:~]# ras-mc-ctl --errors", "ras-mc-ctl --summary", "$ sudo ras-mc-ctl --error-count",
                 "root@node-3:~# /usr/sbin/ras-mc-ctl --errors --since=2024-12-01"):
        assert BENIGN.search(line), line
    # the command's words on another line are not its command line
    assert not BENIGN.search("ras-mc-ctl --errors: failed to open the database")


def test_an_uncorrected_rasdaemon_record_still_reads_as_a_failure() -> None:
    # (the record's message replaced by rasdaemon mce-amd.c's for an uncorrected error)
    bad = RAS.replace("Corrected error, no action required.", "Uncorrected, software containable error.")
    assert "Uncorrected, software containable error." in excerpt_view(bad)


def test_minddatas_slow_generator_hint_is_no_failure() -> None:
    assert BENIGN.search(MINDDATA.splitlines()[1]) and BENIGN.search(MINDDATA_LINE)
    assert "GetNext" not in excerpt_view(MINDDATA)


def test_a_getnext_timeout_after_the_hint_still_reads(tmp_path: Path, engine: Any) -> None:
    assert "py:RuntimeError" in kinds(GETNEXT_TIMEOUT)
    d = verdict(tmp_path, engine, MINDDATA + GETNEXT_TIMEOUT + "\n")
    assert d["fault_class"] not in ("unknown", None)


def test_a_dcmi_v1_failure_recovered_through_v2_gives_no_signal() -> None:
    sigs, _ = ingest_text(GPUSTACK)
    assert [s.kind for s in sigs if s.severity >= 1] == []
    assert "DCMIError" not in excerpt_view(GPUSTACK) and "Failed to initialize" not in excerpt_view(GPUSTACK)


def test_a_dcmi_failure_with_no_v2_fallback_still_reads(tmp_path: Path, engine: Any) -> None:
    alone = GPUSTACK.replace(V2_LINE + "\n", "")
    sigs, _ = ingest_text(alone)
    assert {"drv:api_error", "op:unsupported"} <= {s.kind for s in sigs}
    assert verdict(tmp_path, engine, alone)["fault_class"] not in ("unknown", None)
    # the V2 success before the V1 failure (another detection) recovers nothing
    sigs, _ = ingest_text(V2_LINE + "\n" + alone)
    assert "drv:api_error" in {s.kind for s in sigs}
    # both APIs refused (the merged code's message): a failure
    both = ("2026-08-27 15:14:40,139 - 1401 - gpustack_runtime.detector.ascend - ERROR - Failed to initialize DCMI "
            "through either API, loaded from libdcmi.so, the V1 API having reported: Not Supported")
    assert not BENIGN.search(both)
    assert "Failed to initialize DCMI through either API" in excerpt_view(both + "\n" + V2_LINE)
