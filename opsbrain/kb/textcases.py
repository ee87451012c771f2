"""Cases that look like what operators paste or collect from real clusters, generated from the knowledge base.

A real collection is partial: a few lines of one host or many, lines missing, reordered, a lone fault code, the
generic errors every failing job prints (a Python traceback, RuntimeError, an inner EZ9999) beside the one line
that names the cause. For each class, cases draw from its signatures by role (primary, secondary, ambiguous),
name hosts and devices as real logs do (none, ``worker-N``, an IP, a host name), and repeat lines as real logs
repeat them. The twin's simulated incidents (:mod:`opsbrain.kb.cases`) are the other half of the training set.
Labels come from the knowledge base itself, never from a real excerpt (those are for evaluation only).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from opsbrain.diagnosis.features import incident_features
from opsbrain.diagnosis.knowledge import KindTable
from opsbrain.ingest import Signal

GENERIC = ("py:traceback", "py:RuntimeError", "err:EZ9999", "err:EE9999", "err:ERR99999", "hccl:EI9999")
"""What most failing Ascend jobs print whatever the cause (facts.md §3: EZ9999/EE9999/EI9999 inner errors)."""
LONE_SHARE = 0.25
"""Assumed: a quarter of pasted excerpts are a single code or line (a bug report quoting one error)."""
P_SECONDARY, P_AMBIGUOUS, P_GENERIC = 0.6, 0.7, 0.6
"""Assumed: how often an excerpt that is not a lone line also carries follow-on, shared and generic errors."""
REPEATS = (1, 1, 1, 2, 3, 8)
"""Assumed: most lines appear once in an excerpt; a retried call repeats a few times, a per-rank error once per
rank of a node (8)."""
MEAN_GAP_S = 2.0
"""Assumed: mean seconds between consecutive lines of one excerpt (order matters less: excerpts are shuffled)."""
SHORT_PER_KIND = 4
"""Assumed: every naming signature of a class is seen in a short excerpt (alone, or beside generic errors) this
many times, whatever the number of signatures the class lists. Without it a class listing 30 documented codes shows
each about once alone in its mixed excerpts, and a lone code is diluted among them (it decides its class weakly)."""
SHORT_MAX_PER_CLASS = 160
"""Assumed: at most this many short excerpts per class (``SHORT_PER_KIND`` x 40, the longest naming list a class had
before the documented code tables were added: config_error 38, framework_error 37). A class whose naming list is
longer (a whole error-code table's operator and configuration codes) cycles through its kinds in a random order up to
the cap, so its weight among the training cases does not grow with the length of its documented code list; the
knowledge-base features (``kb:<class>:<role>``) are the same for every kind of a class, so a lone code still decides."""
NOISE_SHARE = 0.3
"""Assumed: how often a short excerpt keeps one or two generic error lines beside the line that names the cause."""
TRAIN_SEED = 20_260_000
EVAL_SEED = 40_260_000


@dataclass
class TextCase:
    label: str
    features: dict[str, float]
    signals: list[Signal]
    group: str


def _host(rng: np.random.Generator) -> str | None:
    style = rng.integers(4)
    if style == 0:
        return None
    if style == 1:
        return f"worker-{rng.integers(0, 64)}"
    if style == 2:
        return f"10.{rng.integers(0, 255)}.{rng.integers(0, 255)}.{rng.integers(1, 255)}"
    return f"host{rng.integers(1, 999)}"


def class_kinds(table: KindTable) -> dict[str, dict[str, list[str]]]:
    """class -> role -> signal kinds (real-text kinds only: no twin switch/port kinds, and no FaultDiag report
    category: a diagnosis tool's verdict, not a line a failing job logs beside others)."""
    out: dict[str, dict[str, list[str]]] = {}
    for kind, rows in table.roles.items():
        if kind.startswith(("sw:", "port:", "plugin:", "level:", "fd:")):
            continue
        for cls, role in rows:
            out.setdefault(cls, {r: [] for r in ("primary", "secondary", "ambiguous")})[role].append(kind)
    return out


SHOWS_PRIMARY = {"software": 0.6}
"""Assumed (not fitted): how often an excerpt of a class carries one of its naming signals. A hardware fault leaves
its code or text in the device, driver or kernel log (0.9 for every family but software); a software fault often
shows only the generic errors and tracebacks every failing job prints, its cause being in words no code names."""
SHOWS_PRIMARY_DEFAULT = 0.9


def one_case(kinds: dict[str, list[str]], rng: np.random.Generator,
             p_primary: float = SHOWS_PRIMARY_DEFAULT) -> list[Signal]:
    prim, sec = kinds["primary"], kinds["secondary"]
    amb = [k for k in kinds["ambiguous"] if k not in GENERIC]  # generic errors: drawn alike for every class (below)
    picked: list[str] = []
    lone = rng.random() < LONE_SHARE
    if prim and (lone or rng.random() < p_primary):
        picked += list(rng.choice(prim, size=min(len(prim), 1 if lone else int(rng.integers(1, 3))), replace=False))
    if not lone:
        if sec and rng.random() < P_SECONDARY:
            picked += list(rng.choice(sec, size=min(len(sec), int(rng.integers(1, 3))), replace=False))
        if amb and rng.random() < P_AMBIGUOUS:
            picked += list(rng.choice(amb, size=min(len(amb), int(rng.integers(1, 4))), replace=False))
        if rng.random() < P_GENERIC:
            picked += list(rng.choice(GENERIC, size=int(rng.integers(1, 3)), replace=False))
    if not picked:
        pool = prim or sec or amb or kinds["ambiguous"]
        picked = [str(rng.choice(pool))]
    return placed(picked, rng)


def short_case(kind: str, rng: np.random.Generator) -> list[Signal]:
    """A short excerpt around one naming signature: the line alone, or beside one or two of the generic errors
    every failing job prints (:data:`NOISE_SHARE`)."""
    picked = [kind]
    if rng.random() < NOISE_SHARE:
        picked += list(rng.choice(GENERIC, size=int(rng.integers(1, 3)), replace=False))
    return placed(picked, rng)


def placed(picked: list[str], rng: np.random.Generator) -> list[Signal]:
    """The picked kinds as signals of one to three hosts (named as real logs name them) and one device, each
    repeated as real logs repeat lines, in shuffled order."""
    hosts = [_host(rng) for _ in range(int(rng.integers(1, 4)))]
    dev = int(rng.integers(0, 16))
    out = []
    t = 0.0
    for kind in picked:
        for _ in range(int(rng.choice(REPEATS))):
            host = hosts[int(rng.integers(len(hosts)))]
            comp: str | None = f"{host}/npu{dev}" if host else f"npu{dev}"
            if rng.random() < 0.3:
                comp = host
            out.append(Signal(t, kind, comp, host, 2, kind, None, dev))
            t += float(rng.exponential(MEAN_GAP_S))
    order = rng.permutation(len(out))
    return [out[i] for i in order]


def short_kinds(naming: list[str], per_kind: int, rng: np.random.Generator) -> list[str]:
    """The kinds of a class's short excerpts: each naming kind ``per_kind`` times, or, past
    :data:`SHORT_MAX_PER_CLASS`, every kind in turn (in a random order) up to the cap."""
    if len(naming) * per_kind <= SHORT_MAX_PER_CLASS:
        return [k for k in naming for _ in range(per_kind)]
    order = [naming[i] for i in rng.permutation(len(naming))]
    return [order[i % len(order)] for i in range(SHORT_MAX_PER_CLASS)]


def class_rng(seed: int, cls: str) -> np.random.Generator:
    """The random stream of one class's text cases: the seed and a stable hash of the class name (CRC-32, the same in
    every process; Python's ``hash`` of a str is salted per process). Session 49 (kbstable49): with one stream drawn
    in class order, the three codes session 48 documented for two HBM classes changed the cases of 15 of 23 classes
    (every class sorted after them), and the refit moved answers far from the change."""
    return np.random.default_rng([seed, zlib.crc32(cls.encode())])


def generate(table: KindTable, per_class: int = 120, seed: int = TRAIN_SEED,
             families: dict[str, str] | None = None, per_kind: int = SHORT_PER_KIND) -> list[TextCase]:
    """``per_class`` mixed excerpts of every class, and ``per_kind`` short excerpts around each of its naming
    signatures (its primary kinds; a class without any: its secondary kinds; at most :data:`SHORT_MAX_PER_CLASS`).
    Each class draws from a stream of its own (:func:`class_rng`), so a kind documented for one class leaves every
    other class's cases as they were."""
    families = families or {}
    cases = []
    for cls, kinds in sorted(class_kinds(table).items()):
        if not (kinds["primary"] or kinds["secondary"]):
            continue  # a class that only shares ambiguous signals cannot be told from text
        rng = class_rng(seed, cls)
        p = SHOWS_PRIMARY.get(families.get(cls, ""), SHOWS_PRIMARY_DEFAULT)
        made = [one_case(kinds, rng, p) for _ in range(per_class)]
        made += [short_case(k, rng) for k in short_kinds(kinds["primary"] or kinds["secondary"], per_kind, rng)]
        for i, sigs in enumerate(made):
            now = max(s.t for s in sigs)
            cases.append(TextCase(cls, incident_features(sigs, now, table=table), sigs, f"text-{seed}-{cls}-{i}"))
    return cases
