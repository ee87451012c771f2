"""An answer on real text that no primary signature of its class supports, where one of another class is present, is
not a confident one (session 46, primcap46).

The model is fitted on the twin, a closed world in which every fault is one of the twin's fault models: there a
kernel's hung-task report without a soft lockup comes from one fault model only (faultlib's ``QingtianFailure``, whose
card leaves the node's storage path blocked), so the model learned "hung task, no soft lockup: a Qingtian card" and
reads it so at 0.85. On a real host a task blocks for two minutes for many reasons (a full disk, a lost NFS server,
a stuck driver, a host that hangs), and the knowledge base says so: ``os:hung_task`` is a primary signature of
node_hang (knowledge_base/classes/node_hang.yaml: a hung kernel task names a host hang) and no signature of
qingtian_failure at all (a Qingtian card has no documented code or message of its own; its class lists the
``blocked for more than`` text as a secondary log pattern only). tester46c's b46c-08 (sonic-net/sonic-buildimage#4822:
four ``INFO: task ntpd:11794 blocked for more than 120 seconds.`` reports with their ``Tainted:`` lines, on a
network switch's Debian host, nothing else) read qingtian_failure 0.85.

The rule, from the knowledge base's roles (:class:`opsbrain.diagnosis.knowledge.KindTable`): where no failing signal
of the input plays a primary role for the answered class (``vendor:<cls>``, an imported vendor entry mapped to it, is
one) while an error of the verdict is a primary signature of another class to which the answered class gives no role
(:func:`opsbrain.diagnosis.knowledge.another_fault`: an HBM uncorrectable-error event beside a flapping link; here the
hung task beside nothing), the answer keeps its class at no more than :data:`PRIMARY_CAP` and its evidence names the
class that signature speaks for. Only an error triggers it: a warning states less (the AER report's driver message
``pcieport ...: PCIe Bus Error: severity=Uncorrected (Fatal)``, a warning-level primary signature of
driver_firmware_error, capped b46c-02's right npu_off_bus 0.71 when warnings counted, and nothing else). An imported
vendor entry mapped to another class does not trigger it either (a vendor entry may raise a class, never decide one:
knowledge_base/vendor_map.yaml).

The class is kept, not switched. The knowledge base's vote (:mod:`opsbrain.diagnosis.vote`), which answers where the
model abstains, would answer node_hang (0.75) for b46c-08; measured on the real-log dev split, the blind sets and the
healthy logs, switching and capping change the same one answer. But a hung task is also what a lost storage path
prints (tasks blocked on NFS I/O beside ``nfs: server ... not responding``: qingtian_failure's own symptom list, where
the vote would still say node_hang), so one signature is not let to overrule the model's reading; the alternative it
names is said in the evidence.

Only the real-text answer is capped (``diagnose --logs``, an incident file, the watch, ``diagnose --bundle``), as the
readout cap (:mod:`opsbrain.diagnosis.statecap`): inside the twin the model's association holds by construction (its
Qingtian incidents print exactly these lines, and nothing else does), so its held-out evaluation decides through
:meth:`opsbrain.diagnosis.engine.Engine.decide` unchanged, and so does ``diagnose --bundle`` of a bundle the twin
exported (every worker named as the twin names its nodes: :func:`opsbrain.bundle.reader.real_nodes` holds none;
review46b: of the round trip's 418 bundles the two of the Qingtian card's fault read 0.905 and were capped to 0.6),
and ``diagnose --logs`` of such a bundle's directory (every file of a worker directory in a twin-named one:
:func:`opsbrain.ingest.workers.twin_export`; session 47: it read the same bundle 0.6 where ``--bundle`` read 0.905).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from opsbrain.diagnosis.engine import describe_kind
from opsbrain.diagnosis.knowledge import another_fault, default_table
from opsbrain.diagnosis.statecap import READOUT_CAP
from opsbrain.ingest import Signal
from opsbrain.verdict import UNKNOWN

PRIMARY_CAP = READOUT_CAP
"""reason: an answer the documented signatures do not name, while they name another class, rests on the twin's
association alone; as the readout cap (:data:`opsbrain.diagnosis.statecap.READOUT_CAP`), the unconfirmed silent
corruption (:data:`opsbrain.diagnosis.engine.SDC_UNCONFIRMED_CAP`) and the text fallback
(:data:`opsbrain.diagnosis.realtext.CONFIDENCE_CAP`), it stays at 0.6, above the 0.4 answer bar and below the 0.8 of a
confident one (not fitted)."""


def _failing(signals: Iterable[Signal], at_least: int = 1) -> list[Signal]:
    return [s for s in signals if s.severity >= at_least and not s.kind.startswith("level:")]


def named(cls: str, signals: Iterable[Signal]) -> bool:
    """Whether a failing signal of ``signals`` is a primary signature of ``cls`` (``vendor:<cls>`` is one)."""
    of = default_table().of
    return any((cls, "primary") in of(s.kind) for s in _failing(signals))


def other_primaries(cls: str, signals: Iterable[Signal]) -> dict[str, Counter[str]]:
    """The other classes the verdict's error signals name by a primary signature to which ``cls`` gives no role
    (:func:`opsbrain.diagnosis.knowledge.another_fault`), each with its kinds counted; an imported vendor entry's match
    (``vendor:<class>``) names none (module docstring)."""
    of = default_table().of
    out: dict[str, Counter[str]] = {}
    for s in _failing(signals, 2):
        if s.kind.startswith("vendor:") or not another_fault(s.kind, cls):
            continue
        for other, role in of(s.kind):
            if role == "primary":
                out.setdefault(other, Counter())[s.kind] += 1
    return out


def why(cls: str, others: dict[str, Counter[str]]) -> str:
    """The evidence line of a capped answer: which signature names which class."""
    said = "; ".join(f"{', '.join(f'{n} x {describe_kind(k)}' for k, n in kinds.most_common(3))} "
                     f"{'is a primary signature' if sum(kinds.values()) == 1 else 'are primary signatures'} of {other}"
                     for other, kinds in sorted(others.items(), key=lambda x: (-sum(x[1].values()), x[0])))
    weigh = " and ".join(sorted(others))
    return (f"no primary signature of {cls} in the input (nothing the knowledge base documents as naming it), while "
            f"{said}: the answer rests on what the model learned from the twin's faults alone; confidence kept at "
            f"{PRIMARY_CAP:.0%} (weigh {weigh} as well)")


def primary_capped(d: dict[str, Any], every: Iterable[Signal], verdict: Iterable[Signal]) -> None:
    """Cap ``d`` (a diagnosis dict with a class) at :data:`PRIMARY_CAP` where no signal of ``every`` (the whole input's)
    names its class by a primary signature while an error signal of ``verdict`` (the signals the verdict rests on)
    names another class so (:func:`other_primaries`); the evidence says which."""
    cls = d.get("fault_class")
    if cls in (None, UNKNOWN) or d.get("confidence", 0.0) <= PRIMARY_CAP:
        return
    if named(str(cls), every):
        return
    others = other_primaries(str(cls), verdict)
    if not others:
        return
    d["confidence"] = PRIMARY_CAP
    d["evidence"] = [*d.get("evidence", []), why(str(cls), others)]
