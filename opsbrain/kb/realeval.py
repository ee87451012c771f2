"""Agreement on real logs: the real-log corpus (excerpts copied from public sources, each with its source, label,
basis and confidence; tests/data/real_logs/*.yaml) diagnosed as ``diagnose --logs -`` would.

The corpus is split once, up front, by a hash of each excerpt's id (:func:`split_of`): ``dev`` is for
development, ``test`` is scored only when the work is done. Headline figures count excerpts with a firm or likely
label: agreement (answer == label; an abstention is not agreement), abstention, confident-wrong (a wrong class at
confidence >= 0.8), evidence cited by every non-abstaining answer, and the root device where the excerpt names
one. Excerpts labelled ``other`` expect an abstention (no class of ours fits)."""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from opsbrain.errors import InputError
from opsbrain.stats import reliability

TEST_SHARE = 2  # of 5 hash buckets
CONFIDENT = 0.8
KEYS = ("id", "source", "label", "confidence", "basis", "trap", "root", "text")
ONE_LINE = ("id", "label", "program")  # printed in a report's table: no line break, no control character


def one_line(text: str) -> bool:
    """No line break and no control character (Unicode categories Cc, Zl, Zp): a table row and a terminal print it as
    it is. A space beyond ASCII (U+3000 in a Chinese name) is fine (review40b: ``str.isprintable`` refused it)."""
    import unicodedata

    return not any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text)


def split_of(excerpt_id: str) -> str:
    h = int(hashlib.sha256(excerpt_id.encode()).hexdigest()[:8], 16)
    return "test" if h % 5 < TEST_SHARE else "dev"


def default_corpus_dir() -> Path | None:
    here = Path(__file__).resolve().parents[2] / "tests" / "data" / "real_logs"
    return here if here.is_dir() else None


def read_excerpts(root: Path, keys: tuple[str, ...], strings: tuple[str, ...]
                  ) -> Iterator[tuple[Path, int, dict[str, Any]]]:
    """(file, index, excerpt) of every ``*.yaml`` in ``root`` (or the one file), checked: each file a list, each
    excerpt a mapping with ``keys``, non-empty strings under ``strings`` (those of :data:`ONE_LINE` one printable
    line), ids unique across the files; at least one excerpt in all."""
    from opsbrain.yamlio import read_yaml

    ids: set[str] = set()
    for f in (files := sorted(root.glob("*.yaml")) if root.is_dir() else [root]):
        doc = read_yaml(f)
        if not isinstance(doc, list):
            raise InputError("expected a list of excerpts", file=str(f))
        for i, e in enumerate(doc):
            if not isinstance(e, dict) or any(k not in e for k in keys):
                raise InputError(f"an excerpt needs the keys {', '.join(keys)}", file=str(f), path=f"[{i}]")
            for key in strings:
                if not isinstance(e[key], str) or not e[key].strip():
                    raise InputError(f"{key} must be a non-empty string", file=str(f), path=f"[{i}].{key}")
                if key in ONE_LINE and not one_line(e[key]):  # (a report's table and terminal: review40)
                    raise InputError(f"{key} must be one line of printable characters", file=str(f),
                                     path=f"[{i}].{key}")
            if e["id"] in ids:
                raise InputError(f"duplicate excerpt id {e['id']!r}", file=str(f), path=f"[{i}].id")
            ids.add(e["id"])
            yield f, i, e
    if not ids:  # a wrong directory scores nothing: bad input, not a figure below the bar (review40)
        raise InputError("no excerpt to score (no *.yaml file here)" if not files else
                         "no excerpt to score (every file an empty list)", file=str(root))


def load_corpus(root: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for f, i, e in read_excerpts(root, KEYS, ("id", "label", "text")):
        if e["confidence"] not in ("firm", "likely", "symptom"):
            raise InputError("confidence must be firm, likely or symptom", file=str(f), path=f"[{i}].confidence")
        if e["root"] is not None and not isinstance(e["root"], dict):
            raise InputError("root must be a mapping {host, device} or null", file=str(f), path=f"[{i}].root")
        out.append({**e, "split": split_of(str(e["id"])), "file": f.name})
    return out


def _root_ok(e: dict[str, Any], d: dict[str, Any]) -> bool | None:
    want = e.get("root")
    if not isinstance(want, dict) or want.get("device") is None:
        return None
    got = d.get("root") or {}
    return got.get("device") == want.get("device")


def evaluate_real(engine: Any, matcher: Any, root: Path, split: str = "all",
                  cross_fit: str | None = None, cross_fit_also: Sequence[Path] = ()) -> dict[str, Any]:
    """Each excerpt of ``split`` diagnosed as ``diagnose --logs -`` would, and the figures (:func:`summarise`).
    ``cross_fit`` (a grouping of :mod:`.crossfit`; the dev split only): the real-text fallback reads each excerpt with
    a model fitted without the excerpt's fold, not the shipped one, which has read every dev excerpt;
    ``cross_fit_also``: files of excerpts from outside the corpus in every fold's training (:mod:`.textextra`)."""
    from contextlib import nullcontext

    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.diagnosis.realtext import serving

    chosen = [e for e in load_corpus(root) if split == "all" or e["split"] == split]
    models: dict[str, Any] = {}
    if cross_fit is not None:
        from opsbrain.kb.crossfit import fold_models

        if split != "dev":
            raise InputError("cross-fitting reads the dev split only (--split dev)")
        from opsbrain.kb.realtext_fit import extra_examples
        from opsbrain.kb.textcodes import code_examples

        extra = extra_examples(root, cross_fit_also, code_examples(), chosen)[0] if cross_fit_also else None
        models = fold_models(chosen, cross_fit, extra=extra)
    rows = []
    for e in chosen:
        with serving(models[e["id"]]) if models else nullcontext():
            res = diagnose_logs("-", engine, matcher, stdin=io.BytesIO(str(e["text"]).encode("utf-8")))
        d = res["diagnosis"]
        rows.append({"id": e["id"], "split": e["split"], "label": e["label"], "confidence_label": e["confidence"],
                     "trap": bool(e["trap"]), "predicted": d["fault_class"], "confidence": d["confidence"],
                     "evidence_lines": len(d.get("evidence_lines", [])), "root_ok": _root_ok(e, d)})
    also = [str(p) for p in cross_fit_also] if cross_fit is not None else []
    return {"corpus": str(root), "split": split, "cross_fit": cross_fit, "cross_fit_also": also, **summarise(rows),
            "rows": rows}


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def block(rs: list[dict[str, Any]]) -> dict[str, Any]:
        n = len(rs)
        if not n:
            return {"n": 0}
        expect_unknown = [r for r in rs if r["label"] == "other"]
        scored = [r for r in rs if r["label"] != "other"]
        agree = sum(r["predicted"] == r["label"] for r in scored)
        answered = [r for r in rs if r["predicted"] != "unknown"]
        wrong_conf = sum(1 for r in answered if r["predicted"] != r["label"] and r["confidence"] >= CONFIDENT)
        roots = [r["root_ok"] for r in rs if r["root_ok"] is not None]
        return {"n": n, "labelled": len(scored),
                "agreement": round(agree / len(scored), 4) if scored else None,
                "answered_agreement": round(sum(r["predicted"] == r["label"] for r in answered) / len(answered), 4)
                if answered else None,
                "abstention": round(1 - len(answered) / n, 4),
                "confident_wrong": round(wrong_conf / n, 4),
                "evidence_cited": round(sum(1 for r in answered if r["evidence_lines"] > 0) / len(answered), 4)
                if answered else None,
                "root_device": {"named": len(roots), "found": sum(roots)},
                "other_abstained": f"{sum(r['predicted'] == 'unknown' for r in expect_unknown)}/{len(expect_unknown)}",
                "traps_right": f"{sum(r['predicted'] == r['label'] for r in rs if r['trap'])}/"
                               f"{sum(1 for r in rs if r['trap'])}",
                "reliability": reliability([r["confidence"] for r in answered],
                                           [r["predicted"] == r["label"] for r in answered])}

    firm = [r for r in rows if r["confidence_label"] in ("firm", "likely")]
    return {"firm_or_likely": block(firm), "all": block(rows),
            "symptom_only": block([r for r in rows if r["confidence_label"] == "symptom"]),
            "per_class": per_class_table(rows)}


def per_class_table(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per label: excerpts, right answers (an abstention for ``other``), abstentions, and the wrong classes named
    with their counts (in the order they first occur). A (label, predicted) count table."""
    import pandas as pd

    if not rows:
        return {}
    counts = pd.DataFrame(rows, columns=["label", "predicted"]).groupby(
        ["label", "predicted"], sort=False).size()
    out: dict[str, dict[str, Any]] = {}
    for c in sorted(counts.index.get_level_values("label").unique()):
        v = counts.loc[c]
        right = "unknown" if c == "other" else c
        out[str(c)] = {"n": int(v.sum()), "right": int(v.get(right, 0)), "unknown": int(v.get("unknown", 0)),
                       "wrong": {str(k): int(n) for k, n in v.items() if k not in (c, "unknown", "other")}}
    return out
