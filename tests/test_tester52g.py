"""Data and storage side of jobs (session 52, tester52g): three readings of documented texts.

1. huggingface/tokenizers' fork notice (bindings/python/src/lib.rs, ``child_after_fork``: printed with ``println!``
   when a process forks after the Rust thread pool was used, then ``set_parallelism(false)``: the tokenizer goes on
   serially) is no fault. Its last bullet, "Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true |
   false)", read ``cfg:env`` (a variable the job lacks): config_error 0.71 on two runs that went well.
2. torch's shared-memory allocator failing its write check on a ``/torch_*`` segment (aten/src/ATen/MapAllocator.cpp,
   older TH/THAllocator.c: ``unable to write to file <name>``, after ftruncate on the shm object) is /dev/shm
   exhausted: the container's set-up (``cfg:env``), as RE_SHM_TOO_SMALL reads the DataLoader's bus-error report.
3. safetensors refusing a file whose header does not fit the file (safetensors/src/tensor.rs ``read_metadata``:
   MetadataIncompleteBuffer, HeaderTooLarge, HeaderTooSmall, InvalidHeaderLength; the Python binding prints
   "Error while deserializing header: <err>") is a truncated or foreign weights file: the job's files (``cfg:env``),
   as RE_CKPT_NOT_ZIP reads torch.load's "failed finding central directory".
"""

from __future__ import annotations

import io
import time
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# huggingface/lerobot#1444 (the run goes on; the reporter asks whether the warning needs fixing)
FORK = [
    "huggingface/tokenizers: The current process just got forked, after parallelism has already been used. "
    "Disabling parallelism to avoid deadlocks...",
    "To disable this warning, you can either:",
    "        - Avoid using `tokenizers` before the fork if possible",
    "        - Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)",
]
# the source prints the bullets after a tab; a Ray worker prefixes its lines
FORK_TAB = ["\t- Avoid using `tokenizers` before the fork if possible",
            "\t- Explicitly set the environment variable TOKENIZERS_PARALLELISM=(true | false)",
            "(pid=4242) huggingface/tokenizers: The current process just got forked, after parallelism has already "
            "been used. Disabling parallelism to avoid deadlocks..."]
START = "INFO 2025-07-03 14:52:38 ts/train.py:226 Start offline training on a fixed dataset"
LEROBOT = "\n".join([START, *FORK]) + "\n"

# zylo117/Yet-Another-EfficientDet-Pytorch#147 ("You probably ran out of shared memory" -- "Solved")
SHM_WRITE = "RuntimeError: unable to write to file </torch_74396_2983595444>"
# the newer form with strerror (idiap/ESLAM#20: fixed by docker --shm-size) and the TH form (huaweicloud/dls-example#26)
SHM_WRITE_28 = "RuntimeError: unable to write to file </torch_31911_952036340_6686>: No space left on device (28)"
SHM_WRITE_TH = "RuntimeError: unable to write to file </torch_76_3625483894> at /pytorch/aten/src/TH/THAllocator.c:383"

# QwenLM/Qwen3-VL#264 (the shard "got corrupted during the uploading", fixed by re-uploading it)
ST_INCOMPLETE = "safetensors_rust.SafetensorError: Error while deserializing header: MetadataIncompleteBuffer"
# eosphoros-ai/DB-GPT#314, huggingface/transformers#27923 (Debug form); MiniMax-M2.5#37, jingyaogong/minimind-v#117
# (the Display form of later releases)
ST_OTHERS = [
    "SafetensorError: Error while deserializing header: HeaderTooLarge",
    "safetensors_rust.SafetensorError: Error while deserializing header: incomplete metadata, file not fully covered",
    "safetensors_rust.SafetensorError: Error while deserializing header: header too large",
]


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


@pytest.mark.parametrize("line", [*FORK, *FORK_TAB])
def test_the_tokenizers_fork_notice_gives_no_signal(line: str) -> None:
    assert BENIGN.search(line)
    assert kinds(line) == []
    assert view_of(line).failing == 0


def test_the_fork_notice_alone_reads_no_fault(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(LEROBOT.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", [
    # a variable the job does lack keeps its reading
    "KeyError: 'environment variable TOKENIZERS_PARALLELISM is not set'",
    "RuntimeError: The environment variable HCCL_BUFFSIZE must be set",
    # another program's advice bullet is not the notice
    "        - Explicitly set the environment variable ASCEND_HOME_PATH to the toolkit",
])
def test_other_environment_lines_are_not_the_notice(line: str) -> None:
    assert not BENIGN.search(line)
    assert "cfg:env" in kinds(line)


@pytest.mark.parametrize("line", [SHM_WRITE, SHM_WRITE_28, SHM_WRITE_TH])
def test_the_shm_segment_write_reads_as_the_environment(line: str) -> None:
    assert "cfg:env" in kinds(line), kinds(line)


@pytest.mark.parametrize("line", [
    # a write to an ordinary file is not the shm segment
    "RuntimeError: unable to write to file </data/ckpt/model.pt>",
    "RuntimeError: unable to open shared memory object </torch_29919_1396182366> in read-write mode",
])
def test_other_allocator_lines_are_not_the_shm_write(line: str) -> None:
    assert kinds(line) == ["py:RuntimeError"]


@pytest.mark.parametrize("line", [ST_INCOMPLETE, *ST_OTHERS])
def test_a_truncated_weights_file_reads_as_the_job_files(line: str) -> None:
    assert "cfg:env" in kinds(line), kinds(line)


@pytest.mark.parametrize("line", [
    # a tensor missing from a whole file, and a serializer's own failure, are not a cut file
    "safetensors_rust.SafetensorError: File does not contain tensor model.embed_tokens.weight",
    "safetensors_rust.SafetensorError: Error while deserializing header: InvalidHeaderDeserialization",
])
def test_other_safetensors_errors_are_not_a_cut_file(line: str) -> None:
    assert kinds(line) == ["py:SafetensorError"]


def test_hostile_lines_stay_linear() -> None:
    lines = ["unable to write to file </torch_" + "1" * 65536, "Error while deserializing header: " * 1900,
             "- " * 32768 + "Avoid using `tokenizers`", "To disable this warning, you can either:" * 1600]
    t0 = time.perf_counter()
    for line in lines:
        parse_line(line)
        BENIGN.search(line)
    assert time.perf_counter() - t0 < 2.0
