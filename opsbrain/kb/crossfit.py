"""Cross-fitted agreement on the dev split (``opsbrain kb eval --real --split dev --cross-fit GROUPING``).

Why: the real-text fallback (:mod:`opsbrain.diagnosis.realtext`) is fitted on every dev excerpt, so the plain dev
figure scores most excerpts the fallback answers with a model that has read them: in session 40 the dev split gave
0.899 (firm/likely) with the shipped fallback and 0.637 without it, against ~0.70 on the held-out test split. Here
each dev excerpt is diagnosed as usual, except that the fallback reads it with a model fitted, as the shipped one is
(:func:`opsbrain.kb.realtext_fit._fit`: the same tokens, documented codes and settings), on the dev excerpts of the
other folds only. Folds are grouped (scikit-learn's ``GroupKFold``) by source thread (``thread``: an excerpt and its
siblings from the same thread are never on both sides, as with the corpus' own split by id, which does not group) or
by source project (``project``: GitHub owner/repo or site; stricter, as for text from a project never read).

What it does not remove, stated: the parsers and the knowledge base were written from the dev excerpts, so the
engine's part of the figure is still in-sample. The test split is never read: :func:`.textcv.dev_only` raises."""

from __future__ import annotations

import re
from typing import Any

from opsbrain.kb.textcodes import code_examples
from opsbrain.kb.textcv import dev_only, project_of

FOLDS = 5
"""reason: scikit-learn's default fold count; each fold's model is fitted on ~80% of dev, near the shipped model's
size, at ~3 s a fit on this machine."""
GROUPINGS = ("thread", "project")


def thread_of(source: str) -> str:
    """The thread an excerpt was cut from: its source's first word (the address), without a fragment."""
    head = source.strip().split()[0] if source.strip() else source
    return re.sub(r"[#?].*$", "", head).rstrip("/").lower()


def group_of(e: dict[str, Any], grouping: str) -> str:
    src = str(e.get("source") or "")
    return thread_of(src) if grouping == "thread" else project_of(src)


def fold_models(excerpts: list[dict[str, Any]], grouping: str, folds: int = FOLDS,
                extra: list[tuple[list[str], str]] | None = None) -> dict[str, Any]:
    """Excerpt id -> the text model (:class:`opsbrain.diagnosis.realtext.TextModel`) fitted without the excerpt's
    fold; every excerpt must be of the dev split. ``extra``: (tokens, label) of excerpts from outside the corpus
    (:func:`opsbrain.kb.realtext_fit.extra_examples`), in every fold's training, never scored."""
    from sklearn.model_selection import GroupKFold

    from opsbrain.diagnosis.realtext import model_from_doc
    from opsbrain.kb.realtext_fit import SIGNAL_KINDS, SIGNAL_REPEAT, STRENGTH, _docs, _fit, exported

    if grouping not in GROUPINGS:
        raise ValueError(f"grouping must be one of {', '.join(GROUPINGS)}")
    excerpts = dev_only(excerpts)
    docs, labels = _docs(excerpts), [str(e["label"]) for e in excerpts]
    groups = [group_of(e, grouping) for e in excerpts]
    codes = code_examples()
    if len(set(groups)) < 2:  # (scikit-learn's ValueError before: review40b)
        from opsbrain.errors import InputError

        raise InputError(f"cross-fitting needs the excerpts of at least 2 {grouping}s (folds are grouped by it)")
    out: dict[str, Any] = {}
    for fold, (tr, te) in enumerate(GroupKFold(min(folds, len(set(groups)))).split(docs, labels, groups)):
        vec, clf = _fit([docs[i] for i in tr], [labels[i] for i in tr], STRENGTH, codes, extra)
        classes, intercept, vocab = exported(vec, clf)
        model = model_from_doc({"classes": classes, "intercept": intercept, "vocab": vocab,
                                "meta": {"excerpts": len(tr), "also_excerpts": len(extra or []),
                                         "signal_kinds": SIGNAL_KINDS,
                                         "signal_repeat": SIGNAL_REPEAT if SIGNAL_KINDS else 0,
                                         "cross_fit": {"grouping": grouping, "fold": fold}}})
        out.update((str(excerpts[i]["id"]), model) for i in te)
    return out
