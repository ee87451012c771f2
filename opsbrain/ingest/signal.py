"""The typed signal every text source becomes, and the small helpers that read link state from signals.

A :class:`Signal` is one thing a line says: a stable ``kind`` (``dev:80E01801``, ``hccl:EI0002``, ``rt:507053``,
``mem:oom`` ...), the component it implicates when known, the host whose log held it, a severity, the line itself,
and where the line came from (file and line number), so that evidence can be shown in the operator's own terms.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SEV = {"TRACE": 0, "DEBUG": 0, "INFO": 0, "EVENT": 0, "NOTICE": 0, "WARN": 1, "WARNING": 1, "ERROR": 2,
       "ERR": 2, "CRITICAL": 2, "CRIT": 2, "FATAL": 2, "ALERT": 2, "EMERG": 2}


@dataclass(frozen=True, slots=True)
class Signal:
    t: float
    kind: str
    component: str | None  # the implicated component (NPU, link, node, switch chip, port), when known
    host: str | None       # the node or switch whose log held the line (the twin's id or the host as written)
    severity: int          # 0 info, 1 warning, 2 error
    text: str
    peer: str | None = None       # a remote the line names (the peer a collective waited for)
    device: int | None = None     # the device index as the line prints it (logical or physical, as found)
    line_no: int | None = None    # 1-based line number in its file (or in the pasted text)
    file: str | None = None       # the file (relative to what was given) that held the line

    def at(self, *, line_no: int | None = None, file: str | None = None, t: float | None = None) -> Signal:
        """The same signal, placed in a file and line (and time); built directly (``dataclasses.replace`` costs
        ~10 us a call, and every signal of a read is placed)."""
        return Signal(self.t if t is None else t, self.kind, self.component, self.host, self.severity, self.text,
                      self.peer, self.device, self.line_no if line_no is None else line_no,
                      self.file if file is None else file)


DOWN = ("sw:down", "port:down")
UP = ("sw:up", "port:up")


def link_of(sig: Signal) -> str | None:
    return sig.component if sig.component and "~" in sig.component else None


def dark_links(sigs: Iterable[Signal]) -> dict[str, float]:
    """Links whose last event in the window is a down (no light now): link -> time it went dark."""
    last: dict[str, tuple[float, bool]] = {}
    for s in sigs:
        ln = link_of(s)
        if ln and (s.kind in DOWN or s.kind in UP):
            last[ln] = (s.t, s.kind in DOWN)
    return {ln: t for ln, (t, down) in last.items() if down}


def last_downs(sigs: Iterable[Signal]) -> dict[str, float]:
    """Links that went down and came back up: link -> how long the last such down lasted, from its first down
    report to the first up report after it (either end's line: the other end's echo of the same change, a few
    hundred ms later, neither starts nor ends one). What :func:`dark_links` can no longer say once the link is up: a
    blip of half a second, or a down past the 20 s after which MindCluster escalates (session 43, link43b)."""
    began: dict[str, float | None] = {}  # link -> when its current down began (None: up)
    out: dict[str, float] = {}
    for t, ln, down in sorted((s.t, ln, s.kind in DOWN) for s in sigs
                              if (s.kind in DOWN or s.kind in UP) and (ln := link_of(s))):
        start = began.get(ln)
        if down and start is None:
            began[ln] = t
        elif not down and start is not None:
            out[ln], began[ln] = t - start, None
    return out
