"""Storage failures around checkpoints and datasets read as the job's environment (session 46, tester46d).

``torch.load`` of a file that is not a whole archive ("PytorchStreamReader failed reading zip archive: failed finding
central directory", caffe2/serialize/inline_container.cc with miniz's error string) is a truncated or wrong file on
disk. Hugging Face ``datasets``' "Not enough disk space. Needed: ..." (src/datasets/builder.py) is the cache
directory's free space. EOPNOTSUPP on a file ("Operation not supported (os error 95)", Rust's io::Error as
safetensors prints it) is the mount refusing the write, not an operator that is not supported; the wrapper's
"I/O error:" before it is not EIO. All read ``cfg:env``.
"""

from __future__ import annotations

from opsbrain.ingest.parsers import parse_line

# https://github.com/CompVis/stable-diffusion/issues/93
NOT_ZIP = "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory"
# https://github.com/zai-org/ChatGLM-6B/issues/1305 (the console cut the line after the size)
DATASETS = "OSError: Not enough disk space. Needed: Unknown size ("
# https://github.com/huggingface/datasets/issues/2972
DATASETS_SIZED = ("OSError: Not enough disk space. Needed: 134.92 GiB (download: 41.97 GiB, generated: 92.95 GiB, "
                  "post-processed: Unknown size)")
# https://github.com/safetensors/safetensors/issues/842 (printed over three lines there; one line as the library
# formats it: "Error while serializing: I/O error: " + the io::Error)
EOPNOTSUPP = ("safetensors._safetensors_rust.SafetensorError: Error while serializing: I/O error: Operation not "
              "supported (os error 95)")
EOPNOTSUPP_LINES = ("Error while serializing: I/O error:", "Operation not supported (os error 95)")
# https://github.com/torvalds/linux/blob/v5.15/block/blk-core.c (print_req_error) -- the kernel's EIO keeps its reading
KERNEL_EIO = "blk_update_request: I/O error, dev sda, sector 2048 op 0x1:(WRITE) flags 0x800 phys_seg 1 prio class 0"


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_checkpoint_and_dataset_storage_texts_read_as_the_environment() -> None:
    for line in (NOT_ZIP, DATASETS, DATASETS_SIZED, EOPNOTSUPP, EOPNOTSUPP_LINES[1]):
        assert "cfg:env" in kinds(line), line


def test_errno_95_is_not_an_unsupported_operator_nor_failed_storage() -> None:
    for line in (EOPNOTSUPP, *EOPNOTSUPP_LINES):
        assert "op:unsupported" not in kinds(line), line
        assert "os:storage" not in kinds(line), line
    # an operator that is not supported still reads so, and "Operation not supported" with no errno (constructed)
    assert "op:unsupported" in kinds("RuntimeError: Operator Cast is not supported for dtype DT_BF16")
    assert "op:unsupported" in kinds("RuntimeError: Operation not supported on this stream")


def test_eio_keeps_its_storage_reading() -> None:
    assert "os:storage" in kinds(KERNEL_EIO)
    assert "os:storage" in kinds("OSError: [Errno 5] Input/output error: '/mnt/obs/ckpt/iter_0001000'")
    # Rust's wrapper with EIO itself (constructed from io::Error's "(os error N)" form)
    assert "os:storage" in kinds("Error while serializing: I/O error: Input/output error (os error 5)")
