"""Platform-layer lines from session 39's blind look (tester39b): kubelet's note that its static-pod directory is
missing is no missing file of the job, and the Ascend Volcano plugin's node-label check is the job's or the node's
set-up."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


# https://github.com/Project-HAMi/HAMi/issues/1941 (kubelet journal of an Ascend 910B4 node): kubelet's watch of a
# static-pod path the node does not have (kubernetes/kubernetes pkg/kubelet/config/file_linux.go, doWatch: "path does
# not exist, ignoring", an empty pod list).
STATIC_POD_PATH = ('Jun 10 11:49:51 DevServer-BMS-71e0dc7a kubelet[306589]: E0610 11:49:51.198363  306589 '
                   'file_linux.go:61] "Unable to read config path" err="path does not exist, ignoring" '
                   'path="/etc/kubernetes/manifests"')


def test_a_path_the_program_ignores_is_no_missing_file() -> None:
    assert "cfg:env" not in kinds(STATIC_POD_PATH)


@pytest.mark.parametrize("line", [
    # CANN EK0001 as MindSpore's profiler relays it (MindSpore error-code doc; tests/test_ingest_setup_texts.py)
    "EK0001: Path [/data/profiler_中文/profiler] for [profilerResultPath] is invalid or does not exist. The Path name "
    "can only contain A-Za-z0-9-_.",
    # CANN E20002 (hicann/runtime docs/zh/error_code_ref/FE-Errors; tests/test_ingest_real7.py)
    "Value /usr/local/Ascend/cann/opp for environment variable ASCEND_OPP_PATH is invalid. Reason: ASCEND_OPP_PATH "
    "does not exist or access permission is denied during FE initialization.",
])
def test_a_missing_path_the_program_does_not_ignore_is_still_read(line: str) -> None:
    assert "cfg:env" in kinds(line)


# https://github.com/volcano-sh/volcano/issues/4446 (the scheduler's log keyword quoted in the title);
# Ascend/mind-cluster component/ascend-for-volcano/.../module910x8/node.go checkNodeLabelOK.
NODE_LABEL = "checkNodeNPUByTask : check Node controller01 label [accelerator-type] Failed, value is module-910b-8"


def test_the_volcano_plugin_node_label_check_is_the_set_up() -> None:
    assert "cfg:device" in kinds(NODE_LABEL)


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_the_node_label_check_answers_a_configuration_error(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "volcano-scheduler.log"
    log.write_text(NODE_LABEL + "\n")
    d = diagnose_logs(str(log), engine)["diagnosis"]
    assert d["fault_class"] == "config_error"
    assert d["decided_by"] == "signals"


def test_the_static_pod_path_alone_is_no_fault(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "kubelet.log"
    log.write_text(STATIC_POD_PATH + "\n")
    d = diagnose_logs(str(log), engine)["diagnosis"]
    assert d["decided_by"] != "signals" or d["fault_class"] != "config_error"
