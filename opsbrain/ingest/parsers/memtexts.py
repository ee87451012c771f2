"""The texts of running out of memory (``mem:oom``) and of advice that memory may run out (split from
:mod:`.framework`, session 57, when it passed 500 lines)."""

from __future__ import annotations

import re

from opsbrain.ingest.screen import screened
from opsbrain.lazyre import lazy_compile

OOM_TEXT = screened(r"out of memory|OutOfMemory|\bOOM\b|memory (?:allocation|alloc) fail|fail(?:ed)? to (?:allocate|"
                    r"malloc)|alloc(?:ate)? memory fail|(?:acl)?rtMalloc\w* fail|Tried to allocate|"
                    r"memory is not enough|insufficient (?:device )?memory|not enough memory|EL0004|"
                    r"memory pool.*(?:full|exhaust)|"
                    r"is more than total mem size|greater than memory manager malloc max size|"
                    r"Available KV cache memory: -\d|No available memory for the cache blocks|"
                    r"KV cache is needed, which is larger than the available KV cache memory|"
                    r"Free memory on device \([\d.]+/[\d.]+ GiB\) on startup is less than desired|"
                    r"can be stored in KV cache \(\d|\bMemory not enough:|"
                    r"Available memory of \d+ is smaller than requested bytes of \d",
                    re.I)
"""A device or host memory allocation that failed, or an out-of-memory report (``mem:oom``). ONNX Runtime's arena
allocator (``BFCArena::AllocateRawInternal``, onnxruntime/core/framework/bfc_arena.cc; the arena it builds over an
execution provider's device allocator) reports a request past what it may still take from the device as ``Available
memory of 11416064 is smaller than requested bytes of 134217728`` (session 59, tester59a's b59a-05, an ONNX Runtime CI
run that failed on it: framework_error 0.45 from the text fallback before)."""
RE_OOM_ADVICE = lazy_compile(r"\b(?:may|might|could|can) (?:cause|lead to|result in|trigger) (?:an? )?"
                             r"(?:OOM|out[ -]of[ -]memory)\b", re.I)
"""A program's advice that a setting or a state *may* run the memory out, not a report that it did: MindData's batch
operator at WARNING, ``Memory consumption is more than 81.9409%, which may cause OOM. Please reduce
num_parallel_workers size / ...`` (mindspore/ccsrc/minddata/dataset/engine/datasetops/batch_op.cc, the file the line
names; a MindSpore quick-start notebook that trained to 93.6% accuracy read npu_oom 0.61 from six of them, session 57,
tester57j's b57j-02), vLLM's ``This may cause OOM errors during the initial memory profiling phase`` and ``capturing
too many batch sizes can lead to OOM``. Such a line gives no ``mem:oom`` (:data:`OOM_TEXT`) unless its other words
report one; an out-of-memory that follows prints its own failure."""


__all__ = ["OOM_TEXT", "RE_OOM_ADVICE"]
