"""Issue 17: one open incident per part. While a response on a part is under way (its runbook, its background
repair) or the part is still out of service, another incident naming that part joins it instead of starting a
second response (no repeat tickets, no overlapping replacements)."""

from __future__ import annotations

from typing import Any

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.topology import Topology
from opsbrain.controller import DUPLICATE_WINDOW_S, Controller
from opsbrain.detection import Incident
from opsbrain.ingest import Signal
from opsbrain.verdict import Diagnosis

LINK = "pod0/node40/l1sw4~pod0/l2plane4/sw09"


class Said:
    """A diagnoser that says what the test tells it."""

    def __init__(self) -> None:
        self.next: Diagnosis | None = None

    def diagnose(self, incident: Incident, now: float, history: Any, metric: Any) -> Diagnosis:
        assert self.next is not None
        return self.next


class Responder:
    policy = "auto"

    def __init__(self) -> None:
        self.handled: list[str] = []
        self.open: set[str] = set()

    def handle(self, incident_id: str, diagnosis: Diagnosis) -> None:
        self.handled.append(incident_id)
        self.open.add(incident_id)

    def actions_for(self, incident_id: str) -> list[dict[str, Any]]:
        return []

    def is_open(self, incident_id: str) -> bool:
        return incident_id in self.open


def _incident(ctl: Controller, iid: str, t: float) -> Incident:
    inc = Incident(iid, t, t, comps={LINK})
    ctl.detector.incidents.append(inc)
    return inc


def _first(topo: Topology, cls: str) -> tuple[Simulation, Said, Responder, Controller]:
    """A controller whose first incident (diagnosed ``cls`` on LINK) got a response."""
    sim = Simulation(seed=1, topology=topo)
    said, resp = Said(), Responder()
    ctl = Controller(sim, said, resp)
    said.next = Diagnosis(cls, LINK, 0.9)
    ctl._diagnose(_incident(ctl, "i1", 0.0))
    return sim, said, resp, ctl


def test_a_second_incident_on_a_part_under_response_joins_the_first(topo1: Topology) -> None:
    sim, said, resp, ctl = _first(topo1, "link_flap")
    sim.run(DUPLICATE_WINDOW_S * 3)  # past the duplicate window: only the open response can join them
    said.next = Diagnosis("optical_degradation", LINK, 0.9)  # another class on the same part
    ctl._diagnose(_incident(ctl, "i2", sim.now))
    assert resp.handled == ["i1"] and ctl.duplicates == {"i2": "i1"}


def test_an_isolated_part_keeps_its_incident_after_the_response_ended(topo1: Topology) -> None:
    sim, _said, resp, ctl = _first(topo1, "link_down")
    sim.state.set_health(LINK, Health.ISOLATED, cause="isolate_link")
    resp.open.clear()  # the runbook finished; the link waits for its replacement
    sim.run(DUPLICATE_WINDOW_S * 3)
    ctl._diagnose(_incident(ctl, "i2", sim.now))
    assert resp.handled == ["i1"] and ctl.duplicates == {"i2": "i1"}
    sim.state.set_health(LINK, Health.HEALTHY, cause="replace_part")  # back in service: a new fault is new
    sim.run(sim.now + DUPLICATE_WINDOW_S * 3)
    ctl._diagnose(_incident(ctl, "i3", sim.now))
    assert resp.handled == ["i1", "i3"]


LINK_AMBIGUOUS = [("dirty_connector", 0.38), ("link_down", 0.26), ("optical_degradation", 0.21), ("link_flap", 0.06)]
"""A lone port down at the first diagnosis moment: no link class reaches the bar, together they hold 0.91."""


def test_the_same_part_response_owns_its_link_until_a_class_is_named(topo1: Topology) -> None:
    """Issue 16 b: an abstention on a link acted on (the same-part drain, rb-link-fault) holds the link: another
    incident's abstention on it joins the response under way (no second drain); another incident that names a class
    on the link still gets its own response (the cause-specific steps), which then holds the link."""
    sim = Simulation(seed=1, topology=topo1)
    said, resp = Said(), Responder()
    ctl = Controller(sim, said, resp)
    said.next = Diagnosis("unknown", LINK, 0.38, alternatives=LINK_AMBIGUOUS)
    ctl._diagnose(_incident(ctl, "i1", 0.0))
    sim.run(100)
    ctl._diagnose(_incident(ctl, "i2", sim.now))
    assert resp.handled == ["i1"] and ctl.duplicates == {"i2": "i1"}
    said.next = Diagnosis("link_flap", LINK, 0.9)
    ctl._diagnose(_incident(ctl, "i3", sim.now))
    assert resp.handled == ["i1", "i3"]
    said.next = Diagnosis("unknown", LINK, 0.38, alternatives=LINK_AMBIGUOUS)
    ctl._diagnose(_incident(ctl, "i4", sim.now))  # now the named response holds the link
    assert resp.handled == ["i1", "i3"] and ctl.duplicates["i4"] == "i3"


def test_a_baseline_acts_again_when_the_incidents_job_fails_after_its_response(topo1: Topology) -> None:
    """Issue 16 d: a baseline acts once per incident; a job crash that joins the incident after that response
    ended (a flap's later down the retry did not ride out) is seen by the scheduler and pages again. Before the
    crash joined the flap's incident it opened an incident of its own, which is what made the baseline act."""
    sim = Simulation(seed=1, topology=topo1)
    said, resp = Said(), Responder()
    resp.policy = "vendor-default"
    ctl = Controller(sim, said, resp)
    said.next = Diagnosis("link_flap", LINK, 0.9)
    inc = _incident(ctl, "i1", 0.0)
    ctl._diagnose(inc)
    assert resp.handled == ["i1"]
    sim.run(100)
    ctl._diagnose(inc)  # re-diagnosed while the response is under way: still once
    assert resp.handled == ["i1"]
    resp.open.clear()  # the response ended (the job rode the flap out)
    inc.signals.append(Signal(150.0, "job:crash", "pod0/node40", None, 2, "train: crash"))
    sim.run(160)
    ctl._diagnose(inc)
    assert resp.handled == ["i1", "i1.2"]
