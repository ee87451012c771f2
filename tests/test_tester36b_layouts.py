"""Tester 36b: layouts a real cluster leaves that the readers placed wrongly or skipped.

1. MindCluster's training-script samples tee the launcher's console to ``TRAIN_LOG_PATH=/job/code/alllogs/
   $MINDX_TASK_ID/trainlogs/$XDL_IP-$RANK`` (MindCluster docs, "Using Resumable Training on the CLI": "Set the training
   log save path"; its samples end ``torchrun ... | tee ${TRAIN_LOG_PATH}``): a file named ``<address>-<rank>`` with no
   extension. Before, the bundle skipped it as "unknown file" (so its traceback was lost, while ``--logs`` read it),
   and ``--logs`` placed it on the folder ``trainlogs``, not on its node.
2. msnpureport's export puts the device side's syslog in ``message/`` beside ``slog/`` and ``hisi_logs/`` under its
   time-stamped folder (CANN log reference, msnpureport): ``--logs`` named the host ``node-b/<stamp>/message``
   where the bundle names it ``node-b``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_layout_documented35 import _both

W = Path(__file__).parent / "fixtures" / "bundles" / "hbm-uce-real" / "worker-0"
UID = "7c1f0e3a-2b4d-4e5f-9a6b-0c1d2e3f4a5b"
A, B = "10.20.8.250", "10.20.8.111"


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _job(root: Path, name: str) -> Path:
    """``root/alllogs/<uid>/``: node A's plog folder is there but empty of faults (a healthy node's init line), node
    B's console (hbm-uce-real's traceback: an HBM UCE on device 3) is the tee'd file ``trainlogs/<B>-3`` + ``name``."""
    job = root / "alllogs" / UID
    (job / "plogs" / A / "run" / "plog").mkdir(parents=True)
    (job / "plogs" / A / "run" / "plog" / "plog-100_20250301095900000.log").write_text(
        "[INFO] HCCL(100,python3):2025-03-01-09:59:00.000.001 [hcom.cc:100][100]hcom init success\n")
    (job / "trainlogs").mkdir(parents=True)
    (job / "trainlogs" / f"{B}-3{name}").write_bytes((W / "rank-3.log").read_bytes())
    return job


@pytest.mark.parametrize("name", ["", "-20250301100000", ".log"], ids=["tee'd file", "with its time", ".log"])
def test_a_tee_d_train_log_file_is_read_and_placed_on_its_node(tmp_path: Path, engine: Any, name: str) -> None:
    job = _job(tmp_path, name)
    bundle, logs = _both(job.parent.parent, engine)
    assert not [s for s in bundle["skipped"] if "trainlogs" in s["path"]], bundle["skipped"]
    for rep in (bundle, logs):
        d = rep["diagnosis"]
        assert d["fault_class"] == "hbm_uce", d["evidence"]
        assert d["root"]["host"] == B, d["root"]
    assert {w["name"] for w in bundle["workers"]} == {A, B}, bundle["workers"]


DATED = "20250301100600"
HB = ("Mar  1 10:05:00 localhost kernel: [83213.584409] [ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] "
      "<kworker/5:1H:39365> Heartbeat lost! (device=1; old_count=1104; new_count=1104; lost_count=4; "
      "total_lost_count=4; total_10s_count=0; total_15s_count 0).\n")


def test_msnpureport_s_message_folder_is_its_node_s_in_both_modes(tmp_path: Path, engine: Any) -> None:
    msg = tmp_path / "logs" / "node-b" / DATED / "message" / "messages"
    msg.parent.mkdir(parents=True)
    msg.write_text(HB)
    bundle, logs = _both(tmp_path / "logs", engine)
    for rep in (bundle, logs):
        d = rep["diagnosis"]
        assert d["fault_class"] == "npu_off_bus", d["evidence"]
        assert (d["root"]["host"], d["root"]["device"]) == ("node-b", 1), d["root"]
    assert all(f"{DATED}/message" not in ev for ev in logs["diagnosis"]["evidence"][:3]), logs["diagnosis"]["evidence"]


def test_the_rules_behind_them() -> None:
    from opsbrain.bundle import layout as L
    from opsbrain.ingest.workers import host_root

    tee = f"alllogs/{UID}/trainlogs/{B}-3"
    assert host_root(tee)[0] == tee  # the file names its node, as the folder form does
    kind = L.classify(tee)
    assert kind is not None and kind.kind == L.TRAIN and kind.worker == tee
    assert host_root(f"node-b/{DATED}/message/messages")[0] == "node-b"
    assert host_root(f"node-b/{DATED}/stackcore/x.txt")[0] == "node-b"
    assert L.classify(f"alllogs/{UID}/trainlogs/notes") is None  # (no address-rank name: not such a file)


def test_a_syslog_of_a_host_with_no_name_is_placed_by_its_folder_in_both_modes(tmp_path: Path, engine: Any) -> None:
    """``localhost`` in a syslog head names no host (a machine without a host name of its own): given one node's
    folder, ``--logs`` said ``host localhost`` where the bundle said the folder's ``node-7``."""
    node = tmp_path / "node-7"
    node.mkdir()
    (node / "messages").write_text(HB)
    for rep in _both(node, engine):
        d = rep["diagnosis"]
        assert (d["root"]["host"], d["root"]["device"]) == ("node-7", 1), d["root"]
    from opsbrain.ingest.where import head_host, host_in

    assert host_in(HB) is None and head_host("Mar  1 10:05:00 localhost.localdomain kernel:") is None
    assert host_in(HB.replace("localhost", "node-a12")) == "node-a12"


def test_random_bytes_in_a_bundle_are_binary_content_as_in_logs(tmp_path: Path, engine: Any) -> None:
    """A file of random bytes (a dump or an encrypted file named ``.log``) has few C0 control bytes (~12%) but is no
    UTF-8 text: ``--logs`` said "binary content (not text)", while the bundle read it as a console of "0 lines (20
    malformed)" and answered no fault found without a word on it. Now the bundle refuses it as binary content, as it
    refuses a file of control bytes, judged on the characters ``--logs`` judges a line by."""
    import random

    node = tmp_path / "node-7"
    node.mkdir()
    (node / "x.log").write_bytes(random.Random(36).randbytes(3000))
    bundle, logs = _both(node, engine)
    assert [r["path"] for r in bundle["refused"]] == ["x.log"], bundle["refused"]
    assert "binary content" in bundle["refused"][0]["reason"]
    assert any("binary content" in n for n in logs["input"]["not_read"]), logs["input"]
