"""Readings written in session 56 from blind55's late wave (tester55j), measured once on the late tree before any
reading: each on its real lines.

- TBE's ``[errCode:EB0500]message:dir path is invalid`` under an operator compile failure is the host's temporary
  directory, fixed by an absolute ``TMPDIR`` that exists (stephenfuyuxin/npuAdapter GPT-SoVITSNPUMig/README.md;
  b55j-01 read framework_error 0.86).
- text-embeddings-inference's ``Could not import Flash Attention enabled models: No module named ...`` is a start-up
  notice (the Python back-end's ``except ImportError`` warning; b55j-07, a rerank container that reached ``Ready``,
  read config_error 0.71).
"""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from tests.textviews import line_kinds as kinds

TBE_DIR = ("tvm.error.mgr.the_python_error_mgr.TBEPythonError: [EB9999] [errClass:NA][errCode:EB0500]message:dir path "
           "is invalid[errSolution:N/A]During handling of the above exception, another exception occurred:")
TEI_WARN = ("2024-12-24T10:28:12.727282Z WARN python-backend: text_embeddings_backend_python::logging: "
            "backends/python/src/logging.rs:39: Could not import Flash Attention enabled models: "
            "No module named 'dropout_layer_norm'")
TEI_READY = ("2024-12-24T10:28:10.064294Z INFO text_embeddings_router::http::server: router/src/http/server.rs:1556: "
             "Ready")


def _diagnose(engine: Any, lines: list[str]) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO("\n".join(lines).encode()))["diagnosis"]


def test_tbes_invalid_compile_dir_is_the_hosts_environment() -> None:
    got = kinds(TBE_DIR)
    assert "cfg:env" in got and "err:EB0500" in got
    assert "cfg:env" in kinds("[errCode:EB0500]message:dir path is invalid")
    assert "cfg:env" not in kinds("ERROR: --replay-dir path is invalid")  # another program's words: no CANN code
    assert "cfg:env" not in kinds("tvm.error.mgr.TBEPythonError: [EB9999] [errClass:NA][errCode:EB0500]message:"
                                  "compile cce error")


def test_teis_optional_flash_attention_import_is_a_notice(engine: Any) -> None:
    assert BENIGN.search(TEI_WARN) and kinds(TEI_WARN) == []
    assert BENIGN.search("WARN shard-manager: text_generation_launcher: Could not import Flash Attention enabled "
                         "models")
    assert not BENIGN.search("ImportError: Could not import Flash Attention enabled models; Traceback follows")
    assert _diagnose(engine, [TEI_WARN, TEI_READY])["fault_class"] in ("unknown", None)
    assert "cfg:env" in kinds("ModuleNotFoundError: No module named 'dropout_layer_norm'")  # raised: still read
