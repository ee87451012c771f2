"""A build's CMake newer than the project's build files allow is the versions installed (cfg:version), not the
program (session 47, tester47k). CMake 4.0 removed compatibility with ``cmake_minimum_required`` below 3.5
(https://cmake.org/cmake/help/v4.0/release/4.0.html); Ascend/pytorch's build FAQ quotes the failure a torch_npu build
hits in a container with a newer CMake (docs/zh/installation_guide/faq.md @9e73e708ab93, 问题4) and the lines below
are its text, verbatim. Before this change the excerpt read no signal (unknown; blind b47k-04)."""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.parsers import parse_line

FAQ = """CMake Error at third_party/Tensorpipe/third_party/libuv/CMakeLists.txt:1 (cmake_minimum_required):
  Compatibility with CMake < 3.5 has been removed from CMake.
"""


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_the_removed_compatibility_is_the_installed_versions() -> None:
    assert "cfg:version" in kinds("  Compatibility with CMake < 3.5 has been removed from CMake.")


def test_the_deprecation_warning_before_the_removal_is_no_reading() -> None:
    # CMake 3.27-3.31 warn first (cmPolicies: "Compatibility with CMake < 3.10 will be removed from a future version
    # of CMake."): the configure step goes on
    assert "cfg:version" not in kinds(
        "  Compatibility with CMake < 3.10 will be removed from a future version of CMake.")


def test_the_faq_excerpt_reads_config_error(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(FAQ.encode()))["diagnosis"]
    assert d["fault_class"] == "config_error", (d["fault_class"], d["confidence"], d.get("evidence_lines"))
