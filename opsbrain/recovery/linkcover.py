"""Every dark link of a link incident is handled, and none is left dark without a ticket (session 41, orch41, from
scen41's two links of one node down in the same second).

Two rules of the recovery orchestrator, a mixin of :class:`~opsbrain.recovery.orchestrator.Orchestrator`:

- **Siblings.** A response whose runbook is a link class's takes, besides the link its diagnosis names, every other
  uplink of the same node that is down by itself at its start (the link's own health down, its node and both
  chips up: not a node's or a chip's failure) and that no other response holds or isolated: each runs the same
  runbook steps on its own link, logged in the same incident. Two links of a node failing together open one
  incident (the detector groups a node's link alarms) and one diagnosis names one of them; before, the other was
  never touched.
- **Still dark at the end.** A link runbook that only holds a link out of traffic for a while (a drain and its
  hold-down: ``rb-link-fault`` when the diagnosis abstained, ``rb-dirty-connector``, ``rb-link-flap`` below its
  isolation count) and leaves the link still down by itself at its end has met a dead link, whatever the
  diagnosis said: ``rb-link-down`` takes over (re-route, confirmation, isolation, replacement ticket, field
  replacement), as an operator would open a repair ticket for a link dark for ten minutes. Before, the drain was
  let go and nothing more happened: no ticket, the link dark to the end of the run.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import simpy

from faultlib.health import Health
from opsbrain.recovery.record import IncidentRecord
from opsbrain.recovery.schema import Runbook
from opsbrain.recovery.stepper import StepsResult
from opsbrain.recovery.targets import Context

if TYPE_CHECKING:
    from faultlib.engine import Simulation
    from opsbrain.recovery.loader import RunbookSet

Gen = Generator[simpy.Event, Any, Any]
DEAD_LINK_RUNBOOK = "rb-link-down"


class LinkCover:
    """Sibling dark links and the take-over of a link still dark (mixed into the orchestrator)."""

    sim: Simulation
    runbooks: RunbookSet
    dry_run: bool
    _contexts: dict[str, Context]
    holder_of: Callable[[str], str | None] | None
    claim: Callable[[str, str], None] | None

    _steps: Callable[..., Gen]
    _followup: Callable[[IncidentRecord, Context, Runbook], Gen]
    _link_downs: Callable[[str], int]

    def dead_by_itself(self, link: str) -> bool:
        """The link is down by its own health (its node and both chips up), and not isolated by a response."""
        st, lk = self.sim.state, self.sim.topology.links.get(link)
        if lk is None or st.health(link) == Health.ISOLATED or st.is_up(link):
            return False
        return st.is_up(lk.a) and st.is_up(lk.b) and (lk.node is None or st.is_up(lk.node))

    def sibling_links(self, link: str) -> list[str]:
        """The other uplinks of ``link``'s node down by themselves now that no open response holds."""
        lk = self.sim.topology.links.get(link)
        if lk is None or lk.node is None:
            return []
        return [other for other in self.sim.fabric.node_uplinks(lk.node) if other != link
                and self.dead_by_itself(other) and (self.holder_of is None or self.holder_of(other) is None)]

    def start_siblings(self, rec: IncidentRecord, ctx: Context, rb: Runbook, link_classes: frozenset[str]
                       ) -> list[simpy.Process]:
        """Run ``rb``'s entry steps on each sibling dark link (:meth:`sibling_links`), alongside the response, when
        ``rb`` is a runbook of one of ``link_classes``."""
        if (self.dry_run or not set(rb.applies_to) & link_classes or ctx.component is None
                or ctx.component not in self.sim.topology.links):
            return []
        procs = []
        for link in self.sibling_links(ctx.component):
            if self.claim is not None:
                self.claim(rec.id, link)  # a later incident on it joins this one (one open incident per part)
            now = self.sim.now
            rec.log("sibling_link", link, "succeeded", now, now, kind="guardrail", rule="sibling_link", rung=rb.rung,
                    reason=f"{link} is down too, on the same node as {ctx.component}, and no response holds it: "
                           f"{rb.id} runs on it as well (session 41)")
            sib = Context(self.sim, link)
            sib.vars["rng"] = self.sim.rng(f"recovery/{rec.id}/{link}")
            sib.link_downs = self._link_downs
            procs.append(self.sim.env.process(self._sibling(rec, sib, rb)))
        return procs

    def _sibling(self, rec: IncidentRecord, ctx: Context, rb: Runbook) -> Gen:
        res: StepsResult = yield from self._steps(rec, ctx, list(rb.steps), rb.rung, f"sibling[{ctx.component}].steps")
        if res.status == "ok":
            yield from self.take_over_if_dark(rec, ctx, rb)
        elif res.status in ("failed", "held"):  # a person is paged, as for the response's own link (review41b:
            # before, nothing: the sibling link dark, no ticket, no page)
            rec.page(ctx.component, self.sim.now, f"{rb.id} on the sibling dark link {ctx.component} {res.status}: "
                                                  f"{res.reason}")

    def take_over_if_dark(self, rec: IncidentRecord, ctx: Context, rb: Runbook) -> Gen:
        """``ctx``'s link still down by itself at the end of ``rb`` (which did not isolate it): ``rb-link-down``
        takes over, its follow-up (field replacement, routes back) included. Whether it did."""
        link = ctx.component
        dead = self.runbooks.get(DEAD_LINK_RUNBOOK)
        if (self.dry_run or dead is None or rb.id == dead.id or link is None or not self.dead_by_itself(link)):
            return False
        now = self.sim.now
        rec.log("escalate", rb.id, "succeeded", now, now, kind="escalation", rung=dead.rung, to_rung=dead.rung,
                to_runbook=dead.id, link=link,
                reason=f"{link} is still down at the end of {rb.id}: a dead link whatever the diagnosis said; "
                       f"{dead.id} takes over (isolation, replacement ticket, field replacement; session 41)")
        res: StepsResult = yield from self._steps(rec, ctx, list(dead.steps), dead.rung, f"{dead.id}.steps")
        if res.status != "ok":
            rec.page(link, self.sim.now, f"{dead.id} on a link still dark failed: {res.reason}")
            return True
        if dead.followup:
            self.sim.env.process(self._followup(rec, ctx, dead))
        return True
