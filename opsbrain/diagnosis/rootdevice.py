"""Which device a verdict whose component is a node names as its root: the rule ``diagnose --logs`` and
``diagnose --bundle`` share (session 44, bundle44).

A verdict whose component is a node (a class localised at the node, a configuration error, or an answer the engine
put on the node) names the node, and a device as well where its failing signals placed on a device are all on one
(a device's own slog, whose lines are all that device's; a node's own lines beside them say nothing against it).
Before, ``--bundle`` named that device (the primary incident's "one device its signals name", any signal's, a
recovery line of another device included) and ``--logs`` named none from its signals: the same device slog gave
device 3 under ``--bundle`` and no device under ``--logs DIR`` (session 43's note). ``--logs`` keeps its last resort
for lines no signal places, the one device the input's text names (:func:`opsbrain.diagnosis.oneclick._root_from_text`).
"""

from __future__ import annotations

from collections.abc import Iterable

from opsbrain.ingest import Signal
from opsbrain.ingest.where import npu_of


def placed_device(signals: Iterable[Signal]) -> str | None:
    """The one NPU the failing signals (warning level or above, not a bare level word nor an imported vendor entry's
    match) placed on a device are on; None where they name several or none."""
    npus = {n for s in signals if s.severity >= 1 and s.component and not s.kind.startswith(("level:", "vendor:"))
            and (n := npu_of(s.component))}
    return npus.pop() if len(npus) == 1 else None


DEVICE_NOTE = "device {dev}: the one device the verdict's failing signals name (the class's component is its node)"
"""The evidence line of a device named by :func:`placed_device`."""
