"""Software triage: the first question an on-call engineer asks of an unexplained failure -- is there any hardware
evidence at all? -- asked of what the knowledge base says about the incident's signals.

It answers only where the model abstains and the vote (:mod:`opsbrain.diagnosis.vote`) found no clear leader, and
only when nothing in the input names or supports a class of a hardware family (device, HBM, link, switch, node,
RDMA: every ``kb:<class>:primary|secondary`` feature belongs to a class of the ``software`` family) while some
signal counts for a software class. Then:

- the software classes the signals name or support (primary / secondary roles) decide by the vote's weights when
  one leads the others by the vote's lead (a tie -- one category speaking for two classes, ``parameter_or_usage``
  for framework and configuration errors -- stays an abstention: the documents do not say which);
- when no class is named or supported and the ambiguous signals favour one software class by the vote's lead over
  every other (:func:`ambiguous_lean`: a process killed by SIGKILL, ambiguous for npu_oom alone), that class;
- when no software class is named or supported and the signals are only ambiguous ones (a bare ``RuntimeError``, a
  segfault, the runtime's "internal error"), the program's own failure is the generic software class
  (:attr:`TriageParams.generic`), if the signals count for it at least as much as for any other class -- unless one
  of them is a documented runtime timeout code (:func:`undecided_timeouts`: the documents say a task did not finish,
  not that the program failed; ``ERR00100 ... 507048`` was framework_error 0.44, tester AB's case 07).

Its answer carries a fixed, modest confidence (:attr:`TriageParams.confidence`): above the answer bar, far below the
0.8 confident-wrong bar; the evidence says it was triaged. A signal that counts for no class at all (an undocumented
code) never triggers it; one that a hardware or fabric component printed (:data:`HARDWARE_SOURCES`: a device fault
event whatever its code, a switch port going down, a lost node heartbeat, the kernel's hardware-error report) stops
it even when the knowledge base gives its kind no role. A bare traceback header (:data:`NOT_A_FAILURE`) and an
exception printed below ERROR (:func:`survived`) never trigger it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from opsbrain.diagnosis.vote import scores

if TYPE_CHECKING:
    from opsbrain.diagnosis.params import TriageParams, VoteParams
    from opsbrain.ingest import Signal

NAMING = ("primary", "secondary")
HARDWARE_SOURCES = ("dev:", "plugin:", "sw:", "port:", "swfault:", "hccn:", "agent:", "bmc:", "smi:",
                    "dmi:", "drv:", "os:")
"""Kind families printed by a hardware or fabric component or about one: the device's fault events (npu-smi, the
device plugin), the switches and their ports, RoCE ports (hccn_tool), node agents, the BMC, ascend-dmi, the driver
and the kernel. A signal of one of them whose kind the knowledge base gives no role (an undocumented device event
code, ``sw:down``, ``agent:node_hb``, ``os:hw_error``) is still hardware evidence: the triage, which rests on the
absence of hardware evidence, does not answer. (Kinds of these families that the knowledge base does know are
judged by their roles, as every other kind: ``os:segfault`` is a program's crash.)"""
NOT_FAULTS = (":up", ":recover", "hccn:tls_", "dmi:npu_busy")
"""Kinds of :data:`HARDWARE_SOURCES` that report no fault: a link or port back up, a recovery, a TLS setting, a
device another process holds."""
NOT_A_FAILURE = frozenset({"py:traceback"})
"""Kinds that count for a software class but say no program failed: a traceback header alone (its exception line
unread) is printed as well when a run is stopped (``KeyboardInterrupt``) or exits (``SystemExit``) at its end. They
count in the scores; they never trigger the triage."""


@dataclass(frozen=True)
class Triage:
    cls: str
    confidence: float
    why: str


def _roles(feats: dict[str, float]) -> list[tuple[str, str]]:
    return [(k.split(":")[1], k.split(":")[2]) for k in feats if k.startswith("kb:") and k.count(":") == 2]


def survived(s: Signal) -> bool:
    """A Python exception on a line below ERROR (a logger's WARNING, torch_npu's ``Warning:``): the program reported
    it and went on (:func:`opsbrain.ingest.parsers.framework.exception_severity`)."""
    return s.kind.startswith("py:") and s.severity < 2


def unroled_hardware(feats: dict[str, float], roles_of: Callable[[str], list[tuple[str, str]]]) -> list[str]:
    """The signal kinds of :data:`HARDWARE_SOURCES` (read from the ``n:<kind>`` features) that report a fault and
    to which ``roles_of`` (the knowledge base) gives no role."""
    kinds = (k[2:] for k in feats if k.startswith("n:"))
    return [k for k in kinds if k.startswith(HARDWARE_SOURCES) and not roles_of(k)
            and not any(k.endswith(x) or k.startswith(x) for x in NOT_FAULTS)]


def triage(feats: dict[str, float], p: TriageParams, vote_p: VoteParams, software: frozenset[str],
           classes: list[str] | tuple[str, ...],
           roles_of: Callable[[str], list[tuple[str, str]]] | None = None,
           signals: list[Signal] | None = None) -> Triage | None:
    """The software class the incident's knowledge-base features point to when they hold no hardware evidence, or
    None. ``software``: the classes of the software family; ``classes``: the model's classes; ``roles_of``: a signal
    kind's (class, role) pairs in the knowledge base (default: the shipped kind table); ``signals``: the incident's
    signals, when known (an exception the program survived, :func:`survived`, then never triggers it)."""
    if not p.enabled:
        return None
    roles = _roles(feats)
    if not roles or any(c not in software and r in NAMING for c, r in roles):
        return None
    if roles_of is None:
        from opsbrain.diagnosis.knowledge import default_table

        roles_of = default_table().of
    if unroled_hardware(feats, roles_of):
        return None
    counted = [k[2:] for k in feats if k.startswith("n:") and any(c in software for c, _r in roles_of(k[2:]))]
    failing = [k for k in counted if k not in NOT_A_FAILURE]
    if signals is not None:
        reported = {s.kind for s in signals if not survived(s)}  # one pass, whatever the input's size
        failing = [k for k in failing if k in reported]
    if counted and not failing:
        return None  # what counts for a software class says no program failed
    named = {c for c, r in roles if r in NAMING}
    s = scores(feats, vote_p)
    if named:
        ranked = sorted(((s[c], c) for c in named if c in classes), reverse=True)
        if not ranked:
            return None
        runner = ranked[1][0] if len(ranked) > 1 else 0.0
        if ranked[0][0] < vote_p.lead * runner:
            return None
        return Triage(ranked[0][1], p.confidence, f"no hardware evidence; the software signatures present name "
                                                  f"{ranked[0][1]} ({ranked[0][0]:.2f} against {runner:.2f})")
    if undecided_timeouts(feats):
        return None  # a documented timeout names no program failure more than a hang elsewhere (undecided_timeouts)
    generic = p.generic
    if (lean := ambiguous_lean(s, vote_p.lead)) and lean != generic and lean in software and lean in classes:
        runner = max((v for c, v in s.items() if c != lean), default=0.0)
        return Triage(lean, p.confidence, "no hardware evidence, and no documented signature names a cause; the "
                                          f"signals, each printed for several causes, lean to {lean} "
                                          f"({s[lean]:.2f} against {runner:.2f})")
    if generic not in classes or generic not in software or s.get(generic, 0.0) <= 0 or s[generic] < max(s.values()):
        return None
    among = ", ".join(sorted(s))
    return Triage(generic, p.confidence, "no hardware evidence, and no documented signature names a cause (the "
                                         f"signals are printed for several: {among}); a program's own failure is "
                                         f"triaged to {generic}")


LEAN_TOLERANCE = 1e-9
"""reason: scores are sums of logarithms; a lead of exactly the vote's ratio (two lines of a kind against one of
another) must not fail on a rounding error."""


def ambiguous_lean(s: dict[str, float], lead: float) -> str | None:
    """The class the ambiguous-only scores ``s`` favour by the vote's ``lead`` over every other, or None (session 45,
    killed45: a process killed by SIGKILL, ``os:sigkill``, is ambiguous for npu_oom alone -- the host's OOM killer
    is its usual sender, an operator, an eviction or a launcher are not excluded -- so alone it leans there, at the
    triage's modest confidence; a bare RuntimeError, printed alike for three classes, leans nowhere)."""
    if not s:
        return None
    best, cls = max((v, c) for c, v in s.items())
    runner = max((v for c, v in s.items() if c != cls), default=0.0)
    return cls if best > 0 and best + LEAN_TOLERANCE >= lead * runner else None


def undecided_timeouts(feats: dict[str, float], timeouts: dict[str, str] | None = None) -> list[str]:
    """The documented runtime timeout codes (``n:rt:<code>`` features of
    :data:`opsbrain.diagnosis.knowledge.TIMEOUT_CATEGORY`; ``timeouts``: kind -> meaning, default the shipped
    knowledge base's) of an incident in which no signal names or supports a class: the documents then leave the cause
    open between the classes the category speaks for (a kernel that never ends, a collective waiting on a peer, a
    hung core), and neither the generic software class nor the words of the input may close it. Empty when another
    signal names or supports a class (an HCCL notify wait, an AI Core error text), which then decides as usual."""
    if any(k.startswith("kb:") and k.endswith((":primary", ":secondary")) for k in feats):
        return []
    if timeouts is None:
        from opsbrain.kb.compiled import compiled_kb

        timeouts = compiled_kb().timeout_kinds
    return sorted(k[2:] for k in feats if k.startswith("n:") and k[2:] in timeouts)


def timeout_words(kinds: list[str], roles_of: Callable[[str], list[tuple[str, str]]] | None = None,
                  timeouts: dict[str, str] | None = None) -> str:
    """One sentence for an abstention on :func:`undecided_timeouts`: each code's documented meaning and the classes
    the knowledge base reads it for."""
    from opsbrain.diagnosis.knowledge import default_table
    from opsbrain.kb.compiled import compiled_kb

    roles_of = roles_of or default_table().of
    timeouts = timeouts if timeouts is not None else compiled_kb().timeout_kinds
    said = "; ".join(f"{k.removeprefix('rt:')} ({timeouts[k]})" for k in kinds if k in timeouts)
    among = sorted({c for k in kinds for c, _r in roles_of(k)})
    return (f"documented timeout, cause undecided: {said}: a task on the device did not finish in time; the documents "
            f"do not say whose task or why, and the knowledge base reads it for {', '.join(among)} alike; nothing "
            "else in the input tells them apart (a peer's notify wait or an HCCL task error names a collective, an "
            "AI Core error text or a device fault event names the kernel or the chip): check the other ranks' logs "
            "and the device's AI Core state")


def software_classes(classes: Any) -> frozenset[str]:
    """The ids of the software-family classes of a knowledge base (plain or validated classes)."""
    return frozenset(c.id for c in classes if getattr(c, "family", None) == "software")
