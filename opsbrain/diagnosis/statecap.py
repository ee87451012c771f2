"""An answer on real text that rests on status readouts alone is not a confident one (session 44, conf44).

A readout (:mod:`opsbrain.ingest.readouts`: ``link status: DOWN``, ``present : not present``, an npu-smi Health
column) says what state a part is in, not why: a RoCE port reads DOWN as well when no optical module was ever put in
it, when it was disabled, or when its cable runs to nothing. blind43 b43c-01 (a single 910B3 node built without
modules; the job failed on a rank table of two pod IPs that forced RoCE) read roce_port_down at 0.86 from such lines.
Where every signal of the input at warning level or above is a readout, and no line of it says a program failed
(:meth:`opsbrain.diagnosis.realtext.TextView.fails_beyond`: a readout's own field, ``net health status: Socket
failed``, is no such line; session 44, bundle44), the answer keeps its class (the state is consistent with it)
at no more than :data:`READOUT_CAP`, and says why. A line that states the fault (the port's LINK DOWN history
record, the device's event 0x81078603, an ``Error Code`` line, a program's error) lifts the cap.

Only the real-text answer is capped (``diagnose --logs``, an incident file, the watch and, since session 44's
bundle44, ``diagnose --bundle``, whose ``environment_check/`` files hold the same readouts): the twin's telemetry
states its faults as events (link history records, device events), and its held-out evaluation decides through
:meth:`opsbrain.diagnosis.engine.Engine.decide` unchanged.
"""

from __future__ import annotations

from typing import Any

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


def readouts_only(signals: list[Signal]) -> bool:
    """Whether the input's signals at warning level or above are all readouts (and there is one); an imported vendor
    entry's match (``vendor:<class>``) is one where the line it matched is a readout's."""
    failing = [s for s in signals if s.severity >= 1 and not s.kind.startswith("level:")]
    return bool(failing) and all(is_readout(s) or (s.kind.startswith("vendor:") and readout_line(s.text))
                                 for s in failing)


def readout_capped(d: dict[str, Any], signals: list[Signal], failed: bool) -> None:
    """Cap ``d`` (a diagnosis dict with a class) at :data:`READOUT_CAP` where it rests on readouts alone;
    ``failed``: a line of the input other than a readout's field says a program failed (then it is left as it is;
    :meth:`opsbrain.diagnosis.realtext.TextView.fails_beyond`: a readout's own state words, ``net health status:
    Receive timeout``, are no program failing; review44 and bundle44)."""
    if d.get("fault_class") in (None, UNKNOWN) or d.get("confidence", 0.0) <= READOUT_CAP or failed:
        return
    if not readouts_only(signals):
        return
    d["confidence"] = READOUT_CAP
    d["evidence"] = [*d.get("evidence", []), READOUT_WHY]
