"""An answer on real text that rests on status readouts alone is not a confident one (session 44, conf44).

A readout (:mod:`opsbrain.ingest.readouts`: ``link status: DOWN``, ``present : not present``, an npu-smi Health
column) says what state a part is in, not why: a RoCE port reads DOWN as well when no optical module was ever put in
it, when it was disabled, or when its cable runs to nothing. blind43 b43c-01 (a single 910B3 node built without
modules; the job failed on a rank table of two pod IPs that forced RoCE) read roce_port_down at 0.86 from such lines.
Where the evidence of the answered class is all readouts, the answer keeps its class (the state is consistent with it)
at no more than :data:`READOUT_CAP`, and says why. The class's evidence (:func:`supporting`, session 45, readcap45):
the input's signals at warning level or above to whose kind the knowledge base gives the class a role (primary,
secondary or ambiguous: the signatures its vote weighs for the class; an imported vendor entry mapped to it). A failing
line of something else (an operator's ``dmesg: read kernel buffer failed: Operation not permitted``, another program's
error) lifts the cap no more: before, any such line in the input did, and ``link status: DOWN`` beside it read
roce_port_down 0.87. Where no signal has a role for the class (the model answered from kinds the knowledge base does
not tie to it), the evidence is the whole input, as in session 44: every failing signal a readout and no line saying a
program failed (:meth:`opsbrain.diagnosis.realtext.TextView.fails_beyond`: a readout's own field, ``net health
status: Socket failed``, is no such line; bundle44). A signal of the class that is no readout (the port's LINK DOWN
history record, the device's event 0x81078603, an ``Error Code`` line of one of its codes, an HCCL error it shares with
other classes) lifts the cap.

Only the real-text answer is capped (``diagnose --logs``, an incident file, the watch and, since session 44's
bundle44, ``diagnose --bundle``, whose ``environment_check/`` files hold the same readouts): the twin's telemetry
states its faults as events (link history records, device events), and its held-out evaluation decides through
:meth:`opsbrain.diagnosis.engine.Engine.decide` unchanged.
"""

from __future__ import annotations

from typing import Any

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest import Signal
from opsbrain.ingest.readouts import is_readout, readout_line
from opsbrain.verdict import UNKNOWN

READOUT_CAP = 0.6
"""reason: a readout of state is a symptom (module docstring); as an unconfirmed silent-corruption answer
(:data:`opsbrain.diagnosis.engine.SDC_UNCONFIRMED_CAP`) and the text fallback
(:data:`opsbrain.diagnosis.realtext.CONFIDENCE_CAP`), an answer that no line's cause supports stays at 0.6, above the
0.4 answer bar and below the 0.8 of a confident one (not fitted)."""
READOUT_WHY = ("only readouts of state (a tool's status lines) support it and no line states a fault, an alarm or "
               "an error: a port or device reads so when it is not fitted, disabled or not configured as well; "
               f"confidence kept at {READOUT_CAP:.0%} (the port's link history, the device's fault events or the "
               "job's own errors tell them apart)")


def _failing(signals: list[Signal]) -> list[Signal]:
    return [s for s in signals if s.severity >= 1 and not s.kind.startswith("level:")]


def _readout(s: Signal) -> bool:
    """A readout's signal; an imported vendor entry's match (``vendor:<class>``) is one where its line is a
    readout's."""
    return is_readout(s) or (s.kind.startswith("vendor:") and readout_line(s.text))


def readouts_only(signals: list[Signal]) -> bool:
    """Whether the input's signals at warning level or above are all readouts (and there is one)."""
    failing = _failing(signals)
    return bool(failing) and all(_readout(s) for s in failing)


def supporting(cls: str, signals: list[Signal]) -> list[Signal]:
    """The signals at warning level or above that count for ``cls``: their kind has a role for it in the knowledge
    base (:class:`opsbrain.diagnosis.knowledge.KindTable`; ``vendor:<cls>`` is a primary one)."""
    of = default_table().of
    return [s for s in _failing(signals) if any(c == cls for c, _r in of(s.kind))]


def rests_on_readouts(cls: str, signals: list[Signal], failed: bool) -> bool:
    """Whether the evidence of ``cls`` among ``signals`` is readouts alone (module docstring): its supporting signals
    where it has some, else the whole input (every failing signal a readout, and not ``failed``)."""
    own = supporting(cls, signals)
    if own:
        return all(_readout(s) for s in own)
    return readouts_only(signals) and not failed


def readout_capped(d: dict[str, Any], signals: list[Signal], failed: bool) -> None:
    """Cap ``d`` (a diagnosis dict with a class) at :data:`READOUT_CAP` where its class rests on readouts alone
    (:func:`rests_on_readouts`); ``failed``: a line of the input other than a readout's field says a program failed,
    read only where no signal supports the class (:meth:`opsbrain.diagnosis.realtext.TextView.fails_beyond`: a
    readout's own state words, ``net health status: Receive timeout``, are no program failing; review44 and
    bundle44)."""
    cls = d.get("fault_class")
    if cls in (None, UNKNOWN) or d.get("confidence", 0.0) <= READOUT_CAP:
        return
    if not rests_on_readouts(str(cls), signals, failed):
        return
    d["confidence"] = READOUT_CAP
    d["evidence"] = [*d.get("evidence", []), READOUT_WHY]
