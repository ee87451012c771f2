"""Two lines ggml prints on a healthy Ascend (CANN) host read as faults (session 47, tester47a).

ggml's ``load_backend`` (ggml/src/ggml-backend-reg.cpp) logs ``load_backend: failed to find ggml_backend_init in
PATH`` for each backend library in its search directory that was built without dynamic loading
(``GGML_BACKEND_DL`` off); the backends are linked in and registered already, as the lines above it show. The
maintainer: "These messages just indicate that the backend was not built with dynamic loading support"
(ggml-org/llama.cpp#11700). test-backend-ops (tests/test-backend-ops.cpp ``print_test_console``) prints ``  OP(params):
not supported [BACKEND] `` for a case the backend does not implement and skips it; the case is no failure (a failed
one prints ``FAIL``). Sources beside :data:`opsbrain.ingest.benign.BENIGN`.
"""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# https://github.com/ggml-org/llama.cpp/issues/14160 (its "llama-server --version" output, a CPU build)
LOAD_CPU = "load_backend: failed to find ggml_backend_init in /home/ubutnu/llama.cpp-master/build/bin/libggml-cpu.so"
REGISTER = "\n".join([
    "register_backend: registered backend CPU (1 devices)",
    "register_device: registered device CPU (AMD Ryzen 9 9950X3D 16-Core Processor)",
    LOAD_CPU,
    "version: 0 (unknown)",
    "built with cc (Ubuntu 13.3.0-6ubuntu2~24.04) 13.3.0 for x86_64-linux-gnu",
]) + "\n"

# https://github.com/ggml-org/llama.cpp/pull/12865 (test-backend-ops on the CANN backend, CANN0)
ROPE = ("  ROPE(type=f32,ne_a=[64,128,2,1],n_dims=64,mode=2,n_ctx=512,fs=1.424500,ef=0.746500,af=1.000000,ff=1,v=0): "
        "not supported [CANN0] ")
ROPES = "\n".join([
    ROPE,
    "  ROPE(type=f16,ne_a=[128,32,2,1],n_dims=128,mode=0,n_ctx=512,fs=1.424500,ef=0.746500,af=1.000000,ff=0,v=0): "
    "not supported [CANN0] ",
    "  ROPE(type=f16,ne_a=[64,128,2,1],n_dims=64,mode=2,n_ctx=512,fs=1.424500,ef=0.746500,af=1.000000,ff=0,v=0): "
    "not supported [CANN0] ",
    "  ROPE(type=f32,ne_a=[128,32,2,1],n_dims=128,mode=0,n_ctx=512,fs=1.424500,ef=0.746500,af=1.424500,ff=0,v=0): "
    "not supported [CANN0] ",
]) + "\n"


@pytest.mark.parametrize("line", [LOAD_CPU, ROPE])
def test_harness_lines_give_no_signal(line: str) -> None:
    assert BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] == []
    assert view_of(line).failing == 0


@pytest.mark.parametrize("text", [REGISTER, ROPES])
def test_the_outputs_read_no_fault(engine: Any, text: str) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", [
    # ggml-backend-reg.cpp's other load_backend errors: a library that would not load or initialise
    "load_backend: failed to initialize backend from /opt/llama/libggml-cann.so: ggml_backend_init returned NULL",
    # a case the backend ran and got wrong (test-backend-ops prints FAIL), and a raised "not supported" error
    "  ROPE(type=f32,ne_a=[64,128,2,1],n_dims=64,mode=2,n_ctx=512,fs=1.424500,ef=0.746500,af=1.000000,ff=1,v=0): "
    "not supported [CANN0] then aborted",
    "RuntimeError: ROPE(type=f32): not supported [CANN0]",
])
def test_other_lines_are_not_harness_lines(line: str) -> None:
    assert not BENIGN.search(line)
