"""Session 52, tester52e (Omni-Infer, xLLM, MindIE-Motor/Turbo, MindSpeed-MM/RL, vllm-mindspore, ATB): xllm-service's
first-start master election. ``Scheduler::Scheduler`` asks etcd for ``XLLM:SERVICE:MASTER`` and, when the key is not
there (no master yet), takes the role and logs ``Set current service as master!``; ``EtcdClient::get`` logs every
failed get at ERROR, so the first service of a deployment prints ``etcd get XLLM:SERVICE:MASTER failed:
etcd-cpp-apiv3: key not found`` on a start that goes on (jd-opensource/xllm-service
xllm_service/scheduler/scheduler.cpp and scheduler/etcd_client/etcd_client.cpp). Read only for that key and the
etcd client's "key not found"; any other key, or any other failure of the get, keeps its reading.
Source of the run: https://github.com/xLLM-AI/xllm/issues/376 (the service started and served requests)."""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

LINE = ("E20251114 15:03:20.951929 57571 etcd_client.cpp:104] etcd get XLLM:SERVICE:MASTER failed: "
        "etcd-cpp-apiv3: key not found")

RUN = "\n".join([
    "I20251114 15:03:20.262110 57571 master.cpp:157] Starting xllm master service.",
    "I20251114 15:03:20.273453 57571 tokenizer_factory.cpp:18] Create fast tokenizer.",
    "I20251114 15:03:20.944039 57571 jinja_chat_template.cpp:30] Jinja chat template init succeed.",
    "I20251114 15:03:20.948014 57571 etcd_client.cpp:26] EtcdClient init put start!",
    "I20251114 15:03:20.951361 57571 etcd_client.cpp:28] EtcdClient init put end!",
    LINE,
    "I20251114 15:03:20.953759 57571 scheduler.cpp:38] Set current service as master!",
    "I20251114 15:03:20.956375 57571 instance_mgr.cpp:83] Load instance info from etcd:0",
    "I20251114 15:03:20.968559 57785 server.cpp:1200] Server[xllm_service::XllmRpcService] is serving on port=28889.",
    "I20251114 15:03:20.968561 57784 server.cpp:1200] Server[xllm_service::XllmHttpServiceImpl] is serving on "
    "port=28888.",
]) + "\n"


def test_the_master_lookup_is_a_notice() -> None:
    assert BENIGN.search(LINE)
    assert [s.kind for s in parse_line(LINE)] == []
    assert view_of(LINE).failing == 0


def test_a_first_start_reads_no_fault(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(RUN.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", [
    # another key, or another failure of the same get (etcd down, refused, timed out), is not the election's notice
    "E20251114 15:03:20.951929 57571 etcd_client.cpp:104] etcd get XLLM:INSTANCE:p0 failed: etcd-cpp-apiv3: "
    "key not found",
    "E20251114 15:03:20.951929 57571 etcd_client.cpp:104] etcd get XLLM:SERVICE:MASTER failed: "
    "etcd-cpp-apiv3: failed to connect to all addresses",
    "F20251114 15:03:20.948014 57571 etcd_client.cpp:30] etcd connect to etcd server failed: Connection refused",
    "E20251114 15:03:20.951929 57571 etcd_client.cpp:95] etcd rm XLLM:SERVICE:MASTER failed: key not found",
])
def test_other_etcd_failures_are_not_the_notice(line: str) -> None:
    assert not BENIGN.search(line)


def test_a_hostile_line_is_read_in_linear_time() -> None:
    line = "etcd get " + "XLLM:SERVICE:MASTER " * 3000 + "failed: " + "x" * 4000
    assert not BENIGN.search(line)
