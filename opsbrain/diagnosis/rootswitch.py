"""Which switch a verdict names as its root where its failing signals are all on one switch: the rule
``diagnose --logs`` and ``diagnose --bundle`` share (session 45, bundle45).

A switch's lines sit in its LCNE folder (``lcne_log/<switch>/log.log``, its ``diag_display_info.txt``:
:func:`opsbrain.ingest.hostnames.switch_folder`), and the folder's name is the switch as the collection names it.
Where every failing signal of a verdict is from one switch's folder, the root is that switch: ``host`` and ``switch``
its name, ``component`` the verdict's part of it (a port's link, ``<switch>/UB0/0/5~L2``) or the switch itself.
Before, ``--bundle`` named no root host for such a verdict (a switch is no worker) and ``--logs DIR`` named the folder
``lcne_log/<switch>`` (the dump's ``sysname`` taken for a host written in that directory) or the directory given.
A chip named after a host of the collection (``<host>-l1sw2``) is a part of that host (its lines are placed on it:
:func:`opsbrain.ingest.hostnames.chip_host`), and a root that already names a host or a device is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from opsbrain.ingest import Signal
from opsbrain.ingest.hostnames import switch_folder


def placed_switch(signals: Iterable[Signal], file_of: Callable[[Signal], str | None]) -> str | None:
    """The one switch whose folder holds the lines of all the failing signals (warning level or above, not a bare
    level word nor an imported vendor entry's match; ``file_of``: the file a signal's line was read from, relative
    to the collection); None where one of them is from elsewhere, they name several, or there is none."""
    found = {switch_folder(file_of(s)) for s in signals
             if s.severity >= 1 and not s.kind.startswith(("level:", "vendor:"))}
    return found.pop() if len(found) == 1 and None not in found else None


SWITCH_NOTE = "switch {switch}: every failing line is from the switch's own log folder"
"""The evidence line of a switch named by :func:`name_switch`."""


def name_switch(d: dict[str, Any], signals: Iterable[Signal], file_of: Callable[[Signal], str | None]) -> None:
    """A verdict (``d``, a diagnosis dict with ``root``) whose failing signals are all on one switch
    (:func:`placed_switch`) and whose root names no other host and no device: its root is that switch."""
    root = d.get("root") or {}
    if root.get("device") is not None or (switch := placed_switch(signals, file_of)) is None:
        return
    host = root.get("host")
    if host is not None and host != switch:
        return  # (a chip of a host, placed on it; or another place the verdict names)
    comp = d.get("component") or root.get("component")
    part = comp if isinstance(comp, str) and comp.split("/")[0] == switch else switch
    d["root"] = {**root, "component": part, "host": switch, "device": None, "switch": switch}
    d.setdefault("evidence", []).append(SWITCH_NOTE.format(switch=switch))
