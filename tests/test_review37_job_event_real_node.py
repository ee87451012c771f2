"""A job event of a real host that a bundle numbered onto a twin-shaped node id (``pod0/node0`` for ``worker-1``)
names the device as written, as that host's log lines do (review 37): the A3 die mapping is the twin's only."""

from __future__ import annotations

from opsbrain.bundle.reader import signals_of
from opsbrain.bundle.records import BundleLine
from opsbrain.ingest import parse_job_event


def _line(detail: dict[str, object]) -> BundleLine:
    return BundleLine(0.0, None, "clusterd", None, "job event", "clusterd.log", 1, ("job-1", "crash", detail))


def test_a_real_hosts_job_event_keeps_its_device_as_written() -> None:
    detail = {"node": "pod0/node0", "device": 3, "reason": "RuntimeError: ACL stream synchronize failed, device_id=3"}
    sigs, _ = signals_of([_line(detail)], {}, real=frozenset({"pod0/node0"}))
    assert {s.component for s in sigs} == {"pod0/node0/npu3"}


def test_the_twins_job_event_still_names_the_die() -> None:
    sigs, _ = signals_of([_line({"node": "pod0/node0", "device": 3})], {})
    assert [s.component for s in sigs] == ["pod0/node0/npu1/die1"]
    assert parse_job_event("j", "crash", {"node": "pod0/node0", "device": 3}, 0.0, {}, twin=False)[0].component == \
        "pod0/node0/npu3"
