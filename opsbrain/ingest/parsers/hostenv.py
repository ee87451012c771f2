"""The job's host resources and storage as the framework reports them (split from :mod:`.framework`, session 48, when
it passed 500 lines): a container's shared memory, the per-process open-file limit, a full or unwritable volume, a
truncated checkpoint, a file system that refuses an operation. Each is the environment the job was given
(``cfg:env``, read through :data:`opsbrain.ingest.parsers.framework.TEXTS`), not the program or a device."""

from __future__ import annotations

from opsbrain.ingest.screen import screened

RE_SHM_TOO_SMALL = screened(r"memory available in /dev/shm|insufficient shared memory \(shm\)|"
                            r"pass an argument with the flag '--shm-size'|"
                            r"dataloader's workers are out of shared memory|"
                            r"\bunable to write to file </torch_\d+_\d+(?:_\d+)?>")
"""A container whose shared memory (/dev/shm, Docker's 64 MB default) is too small for the job: Ray's object store
(src/ray/object_manager/plasma/store_runner.cc: "System memory request exceeds memory available in /dev/shm ... If
you are inside a Docker container, you may need to pass an argument with the flag '--shm-size' to 'docker run'") and
PyTorch's DataLoader worker (torch/utils/data/_utils/signal_handling.py: "... This might be caused by insufficient
shared memory (shm)"; the main process' report of the worker's SIGBUS, torch/csrc/DataLoader.cpp: "DataLoader worker
(pid N) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try
to raise your shared memory limit.", session 45, tester45g: codalab-worksheets#3742, read framework_error 0.50 from
the bare RuntimeError). The container's set-up, not the device or the program. Its sentence on a line of its own
(a guide that prints the report one sentence a line: gongjiyun.com's shared-memory page) passes the parsers' gate by
"out of shared memory" (session 49, tester49d: read framework_error 0.50 from the RuntimeError line alone). Torch's
shared-memory allocator failing its write check on a segment it just sized (aten/src/ATen/MapAllocator.cpp, older
TH/THAllocator.c: ``unable to write to file <name>`` after ftruncate on the shm object ``/torch_<pid>_<n>``, the name
torch/csrc/StorageSharing.cpp gives it; the write check is there for a full /dev/shm, pytorch/pytorch#5247): /dev/shm
exhausted (zylo117/Yet-Another-EfficientDet-Pytorch#147: "You probably ran out of shared memory", solved;
NVIDIA/flownet2-pytorch#43 and Duankaiwen/CenterNet#56: fixed by docker ``--ipc=host``; idiap/ESLAM#20: ``... : No
space left on device (28)``, fixed by ``--shm-size``; session 52, tester52g: read framework_error 0.50 from the
RuntimeError, or by the text model). Only the ``/torch_`` segment: a write to another file is not /dev/shm, and
"unable to open shared memory object" is as often the open-file limit of the file-descriptor sharing strategy."""
RE_FD_LIMIT = screened(r"\bToo many open files\. Communication with the workers is no longer possible\b")
"""PyTorch's DataLoader, whose workers pass tensors by file descriptor, past the per-process limit on open files
(RLIMIT_NOFILE, errno 24 EMFILE): torch/utils/data/dataloader.py raises "Too many open files. Communication with the
workers is no longer possible. Please increase the limit using `ulimit -n` in the shell or change the sharing strategy
by calling `torch.multiprocessing.set_sharing_strategy('file_system')` ...": its own verdict, the host's limit or the
sharing setting, a set-up of the job's environment (``cfg:env``; session 45, tester45g: zju3dv/NeuralRecon#91 read
framework_error 0.50 from the bare RuntimeError). Not the bare errno text: "[Errno 24] Too many open files" is as often
a program that leaks descriptors (a MindSpore dataset iterator created again and again, a dev-split case labelled
framework_error, turned config_error by the bare text) as a limit set too low."""
RE_FILE_WRITE_FAILED = screened(r"\bPytorchStreamWriter failed writing file \S+: file write failed")
"""``torch.save`` could not write the checkpoint: caffe2/serialize/inline_container.cc (PyTorchStreamWriter's
writeRecord) throws "PytorchStreamWriter failed writing file <name>: file write failed" when the file system takes
fewer bytes than written -- the volume full, a quota reached, or the mount gone (h2oai/h2o-llmstudio#214: the output
volume was full; session 45, tester45g). The storage of the host the job writes to (``cfg:env``), read like "No space
left on device" (knowledge_base/codes.yaml, ENOSPC), not the program or a device."""
RE_CKPT_NOT_ZIP = screened(r"\bPytorchStreamReader failed reading zip archive: (?:failed finding central directory|"
                           r"not a ZIP archive)")
"""``torch.load`` given a file that is not a whole checkpoint archive: caffe2/serialize/inline_container.cc
(PyTorchStreamReader::init, ``valid("reading zip archive")``) prints "PytorchStreamReader failed reading zip archive: "
and miniz's error string, "failed finding central directory" (no end record: the file is cut short) or "not a ZIP
archive". The file on disk is truncated or another format -- a download or a save that stopped part-way, the wrong
file under the name (CompVis/stable-diffusion#93: fixed by downloading the model again; session 46, tester46d) -- the
job's files, not the framework's code nor a device (``cfg:env``)."""
RE_WEIGHTS_CUT = screened(r"\bError while deserializing header: (?:MetadataIncompleteBuffer|HeaderTooLarge|"
                          r"HeaderTooSmall|InvalidHeaderLength|incomplete metadata, file not fully covered|"
                          r"header too large|header too small|invalid header length)\b")
"""safetensors refusing a file whose header does not fit it: safetensors/src/tensor.rs (``SafeTensors::read_metadata``)
returns HeaderTooSmall (under 8 bytes), HeaderTooLarge (a declared header over 100 MB: not a safetensors file, e.g. a
Git LFS pointer or an HTML page saved under the name), InvalidHeaderLength (the file ends inside the header) and
MetadataIncompleteBuffer (the tensors' offsets do not end at the file's end: a file cut short); the Python binding
prints ``Error while deserializing header: <err>``, the variant's name in older releases, its text in later ones
("incomplete metadata, file not fully covered", "header too large", "invalid header length": huggingface/safetensors
@24b0b285 safetensors/src/tensor.rs ``impl Display for SafeTensorError``; review52 added the last, which was missed). A
download or upload that stopped part-way (QwenLM/Qwen3-VL#264: a shard "got corrupted during the uploading", fixed by
uploading it again; MiniMax-M2.5#37: "the model files weren't fully downloaded"): the job's files (``cfg:env``), as
:data:`RE_CKPT_NOT_ZIP` reads torch.load's cut archive (session 52, tester52g: read framework_error 0.60 through the
text fallback). Not InvalidHeaderDeserialization (a header that is not JSON: as likely a writer's bug) nor a tensor
missing from a whole file."""
RE_DATASETS_DISK = screened(r"\bNot enough disk space\. Needed: (?:Unknown size|\d+(?:\.\d+)? [KMGTPE]?i?B)\b")
"""Hugging Face ``datasets`` refusing to build a dataset's cache: src/datasets/builder.py (``download_and_prepare``:
``if not has_sufficient_disk_space(...): raise OSError(f"Not enough disk space. Needed: {size} (download: ...,
generated: ..., post-processed: ...)")``) when the file system of the cache directory has less free space than the
dataset needs, or reports none (datasets#1785: a cluster's shared disk). The host's storage set-up (``cfg:env``),
like "No space left on device" (session 46, tester46d: zai-org/ChatGLM-6B#1305 read framework_error 0.60 by text).
The size as ``size_str`` prints it ("Unknown size", "134.92 GiB"): a console may cut the line after it."""
RE_FS_UNSUPPORTED = screened(r"\[Errno 95\] Operation not supported|\bOperation not supported \(os error 95\)")
"""EOPNOTSUPP (errno 95, include/uapi/asm-generic/errno.h; strerror "Operation not supported") on a file: the file
system under the path does not do what the writer asks (a FUSE or object-store mount refusing a mmap or seek; the
form is Python's ``[Errno 95]`` or Rust std's io::Error ``... (os error 95)``, which safetensors prints:
safetensors#842, "Error while serializing: I/O error: Operation not supported (os error 95)" saving to a FUSE disk;
session 46, tester46d). The storage the job was given (``cfg:env``), not an operator that is not supported."""

RE_TLS_UNTRUSTED = screened(r"\bCERTIFICATE_VERIFY_FAILED\b|\bSSLCertVerificationError\b")
"""A TLS connection refused because the server's certificate chain is not trusted on this host: OpenSSL's reason
``[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate in certificate chain``, which
Python raises as ``ssl.SSLCertVerificationError`` ("A subclass of SSLError raised when certificate validation has
failed", the Python ssl module documentation) and requests wraps in ``requests.exceptions.SSLError``. The host's trust
store, proxy or clock, not the program: sglang's Ascend accuracy-evaluation guide gives the fix as a local dataset
path or the proxy's certificate (Ascend/sglang@bf186cf8 docs_new/docs/hardware-platforms/ascend-npus/
ascend_npu_accuracy_evaluation.mdx, "EvalScope SSL certificate verification failed"; session 57, tester57f's b57f-07,
where the engine leaned framework_error 0.50 and the text model decided). ``cfg:env``, on a failing line only."""


__all__ = ["RE_CKPT_NOT_ZIP", "RE_DATASETS_DISK", "RE_FD_LIMIT", "RE_FILE_WRITE_FAILED", "RE_FS_UNSUPPORTED",
           "RE_SHM_TOO_SMALL", "RE_TLS_UNTRUSTED", "RE_WEIGHTS_CUT"]
