"""Labelled excerpts from outside the real-log corpus as extra training data for the real-text fallback
(``opsbrain kb text-train --also FILE``, ``opsbrain kb eval --real --split dev --cross-fit G --cross-fit-also FILE``):
the project's blind sets (tests/data/blind/blind<N>.yaml, faults; blind<N>_healthy.yaml, runs that went well),
collected by the corpus' protocol from public sources and kept apart from it.

A fault file (every excerpt with a ``label``: :func:`opsbrain.kb.realeval.load_corpus`'s keys) gives its excerpts with
their labels, each at :data:`EXTRA_WEIGHT` as a dev excerpt, whatever its confidence (the dev excerpts are all fitted,
firm, likely or symptom, at weight 1). A healthy file (:func:`opsbrain.kb.healthyeval.load_healthy`'s keys) gives its
excerpts as ``other``: the model's class for "no class of ours fits", which the diagnosis never answers
(:data:`opsbrain.diagnosis.realtext.ANSWERABLE`), so a text read as ``other`` is an abstention, what a healthy run
should get. No class is made: an excerpt whose label is no class of the fit (the dev labels and the documented codes')
is left out, as is one whose view gives no token (a healthy run's INFO lines are not read:
:func:`opsbrain.diagnosis.realtext.excerpt_view`); both are counted.

The corpus stays the corpus: the dev excerpts still pass :func:`.textcv.dev_only`, and an extra excerpt whose id or
text is also in the corpus (either split) is refused (:class:`opsbrain.errors.InputError`, exit 2), so no test
excerpt reaches the fit by this door. Extra excerpts are only ever trained on, never scored: in a cross-fitted
evaluation every fold's model gets all of them."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opsbrain.errors import InputError

EXTRA_WEIGHT = 1.0
"""Sample weight of an extra excerpt. reason: collected by the corpus' protocol (labels and basis written from the
thread's conclusion before opsbrain ran), so as much a real excerpt as a dev one (weight 1 at every confidence)."""
HEALTHY_LABEL = "other"


def _read(path: Path) -> list[dict[str, Any]]:
    from opsbrain.kb.healthyeval import load_healthy
    from opsbrain.kb.realeval import load_corpus
    from opsbrain.yamlio import read_yaml

    if not path.is_file():
        raise InputError("no such file (an extra training file is one YAML list of excerpts)", file=str(path))
    doc = read_yaml(path)
    faults = isinstance(doc, list) and bool(doc) and all(isinstance(e, dict) and "label" in e for e in doc)
    if faults:
        return [{**e, "split": "extra", "file": path.name, "kind": "fault"} for e in load_corpus(path)]
    return [{**e, "label": HEALTHY_LABEL, "confidence": "healthy", "split": "extra", "kind": "healthy"}
            for e in load_healthy(path)]


def load_extra(paths: Sequence[Path], corpus: Sequence[dict[str, Any]], classes: set[str]
               ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(excerpts, per-file summary): the excerpts of ``paths`` to train on, after refusing any whose id or text is
    in ``corpus`` (every excerpt of the real-log corpus, both splits) or in two of the files, and leaving out those of
    a label not in ``classes`` or whose view gives no token."""
    from opsbrain.kb.realtext_fit import _docs

    ids = {str(e["id"]) for e in corpus}
    texts = {str(e["text"]) for e in corpus}
    seen: set[str] = set()
    kept: list[dict[str, Any]] = []
    summary: list[dict[str, Any]] = []
    for path in paths:
        rows = _read(Path(path))
        for e in rows:
            if str(e["id"]) in ids or str(e["text"]) in texts:
                what = "id" if str(e["id"]) in ids else "text"
                raise InputError(f"excerpt {e['id']!r}'s {what} is also in the real-log corpus: extra training "
                                 "data must be apart from it", file=str(path))
            if str(e["id"]) in seen:
                raise InputError(f"excerpt id {e['id']!r} is in two of the extra files", file=str(path))
            seen.add(str(e["id"]))
        no_class = [e for e in rows if e["label"] not in classes]
        rest = [e for e in rows if e["label"] in classes]
        tokens = _docs(rest)
        used = [e for e, t in zip(rest, tokens, strict=True) if t]
        kept.extend(used)
        summary.append({"file": _shown(Path(path)), "kind": rows[0]["kind"] if rows else "fault",
                        "excerpts": len(used), "labels": dict(sorted(Counter(str(e["label"]) for e in used).items())),
                        "left_out_no_class": sorted(str(e["id"]) for e in no_class),
                        "left_out_no_token": len(rest) - len(used), "digest": digest(used)})
    return kept, summary


def digest(excerpts: Sequence[dict[str, Any]]) -> str:
    """Of the extra excerpts trained on: ids, labels, texts and their tokens (a parser change that moves a signal kind
    of one changes it), in id order."""
    from opsbrain.kb.realtext_fit import _docs

    order = sorted(excerpts, key=lambda e: str(e["id"]))
    rows = [[e["id"], e["label"], e["text"], d] for e, d in zip(order, _docs(order), strict=True)]
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()[:16]


def _shown(path: Path) -> str:
    """The file as the model's meta names it: relative to the checkout when inside it."""
    root = Path(__file__).resolve().parents[2]
    try:
        return path.resolve().relative_to(root).as_posix()
    except ValueError:
        return str(path)
