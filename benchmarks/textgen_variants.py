"""Which variant of the real-text fallback generalises best to unseen text? (dev split only; aggregates only.)

Each variant is scored two ways, on the firm/likely dev excerpts with a class label, answered at the threshold:
(i) the chronological check of :func:`opsbrain.kb.realtext_fit.later_part_readings` (each part from ``i`` on read by
a model of the earlier parts) and (ii) project-grouped 5-fold CV (GroupKFold over
:func:`opsbrain.kb.textcv.project_of`). Training is the shipped fit's (:func:`opsbrain.kb.realtext_fit._fit`: every
dev excerpt of the training folds, the documented codes at ``CODE_WEIGHT``); only the variant's change differs.

Variants: ``base`` (the shipped settings), ``cjk`` (CJK character bigrams), ``char`` (character 3-5-grams of the
words of error-bearing lines; ``a0.5``: as a second l2 block scaled 0.5), ``C=x`` (regularisation), ``base tau=x``
(threshold, from the base readings), ``prior^x`` (class weights (n / (k * count)) ** x), ``vendor`` (imported
vendor knowledge-graph entries mapped by knowledge_base/vendor_map.yaml as examples at the codes' weight; needs
``--vendor kg-config.json``); ``base+confusion`` adds per-class and confusion counts. It prints counts, never an
excerpt's text; the test split is never loaded (:func:`opsbrain.kb.realtext_fit.dev_excerpts` raises on a test
excerpt).

Usage: ``python benchmarks/textgen_variants.py [--only base,cjk,...] [--vendor PATH] [--extra NAME=key:val,...]``
(~4 min to read the corpus, then 10-160 s per variant on 2 busy cores).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from opsbrain.diagnosis.realtext import ANSWERABLE, THRESHOLD, excerpt_view  # noqa: E402
from opsbrain.kb import realtext_fit as rf  # noqa: E402
from opsbrain.kb import texttokens as tt  # noqa: E402
from opsbrain.kb.realeval import default_corpus_dir  # noqa: E402
from opsbrain.kb.textcodes import code_texts  # noqa: E402
from opsbrain.kb.textcv import STRENGTH, kinds_of, project_of  # noqa: E402

Tokeniser = Callable[[str], list[str]]


def _has_err(line: str) -> bool:
    from opsbrain.diagnosis.realtext import ERROR_WORDS

    return ERROR_WORDS.search(line) is not None


def tokeniser(cjk: bool, char: tuple[int, int] | None, raw: bool = False) -> Tokeniser:
    """Text -> tokens: the shipped words and bigrams, plus CJK bigrams and/or char n-grams of error-bearing lines."""
    from opsbrain.kb import texttokens

    def toks(text: str) -> list[str]:
        out: list[str] = []
        for line in text.splitlines():
            out.extend(texttokens.line_tokens(line))
            if cjk and hasattr(texttokens, "cjk_tokens"):
                out.extend(texttokens.cjk_tokens(line))
            elif cjk:
                out.extend(_cjk_bigrams(line))
            if char and _has_err(line):
                src = tt._DIGITS.sub("", line[:tt.MAX_LINE_CHARS].lower()) if raw else " ".join(texttokens.words(line))
                out.extend(_char_grams(src, *char))
        return out
    return toks


def _cjk_bigrams(line: str) -> list[str]:
    import re

    out: list[str] = []
    for run in re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+", line[:tt.MAX_LINE_CHARS]):
        out.extend(run[i:i + 2] for i in range(len(run) - 1)) if len(run) > 1 else out.append(run)
    return out


def _char_grams(text: str, lo: int, hi: int) -> list[str]:
    out: list[str] = []
    for w in text.split():
        w = f" {w} "
        for n in range(lo, hi + 1):
            if len(w) < n:
                break
            out.extend("c:" + w[i:i + n] for i in range(len(w) - n + 1))
    return out


def vendor_texts(path: Path) -> list[tuple[str, str]]:
    """(text, class) of each imported knowledge-graph entry the vendor map sends to a class."""
    from opsbrain.diagnosis.knowledge import load_vendor_rules, vendor_mapping
    from opsbrain.kb.importers import import_kg, load_imported

    with tempfile.TemporaryDirectory() as tmp:
        import_kg(path, tmp)
        entries = load_imported(tmp).entries
    rules = load_vendor_rules()
    out = []
    for e in entries.values():
        cls, _decides = vendor_mapping(e, rules)
        if cls is not None:
            words = [e.cause, *(" ".join(g) for g in e.groups)]
            out.append((" ".join(words), cls))
    return out


class Data:
    def __init__(self) -> None:
        self.ex = rf.dev_excerpts(default_corpus_dir())  # raises on a test excerpt
        self.views = [excerpt_view(str(e["text"])) for e in self.ex]
        self.sig = [tt.signal_tokens(kinds_of(str(e["text"])), rf.SIGNAL_REPEAT) for e in self.ex]
        self.labels = [str(e["label"]) for e in self.ex]
        self.parts = [rf.part_of(e) for e in self.ex]
        self.firm = [e["confidence"] in ("firm", "likely") for e in self.ex]
        self.projects = [project_of(str(e["source"])) for e in self.ex]


class Blocks:
    """Words and character n-grams as two tf-idf blocks, each l2-normalised, the second scaled by ``alpha``."""

    def __init__(self, vocab: list[str], alpha: float) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        def vec(v: list[str]) -> Any:
            return TfidfVectorizer(analyzer=lambda d: d, sublinear_tf=True, lowercase=False, vocabulary=v)
        self.w = vec([t for t in vocab if not t.startswith("c:")])
        self.c = vec([t for t in vocab if t.startswith("c:")])
        self.alpha, self.vocabulary_ = alpha, vocab

    def _x(self, docs: list[list[str]], fit: bool) -> Any:
        from scipy.sparse import hstack

        w = [[t for t in d if not t.startswith("c:")] for d in docs]
        c = [[t for t in d if t.startswith("c:")] for d in docs]
        xw = self.w.fit_transform(w) if fit else self.w.transform(w)
        xc = self.c.fit_transform(c) if fit else self.c.transform(c)
        return hstack([xw, xc * self.alpha]).tocsr()

    def fit_transform(self, docs: list[list[str]]) -> Any:
        return self._x(docs, True)

    def transform(self, docs: list[list[str]]) -> Any:
        return self._x(docs, False)


def fit(docs: list[list[str]], labels: list[str], weights: list[float], strength: float, prior: float,
        char_min_df: int, char_alpha: float | None = None) -> Any:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    df = Counter(t for d in docs for t in set(d))
    vocab = sorted(t for t, n in df.items() if t.startswith(rf.SIGNALS_FROM_ONE)
                   or n >= (char_min_df if t.startswith("c:") else 2))
    vec: Any = TfidfVectorizer(analyzer=lambda d: d, sublinear_tf=True, lowercase=False, vocabulary=vocab) \
        if char_alpha is None else Blocks(vocab, char_alpha)
    x = vec.fit_transform(docs)
    count, n = Counter(labels), len(labels)
    sw = [w * ((n / (len(count) * count[y])) ** prior) for w, y in zip(weights, labels, strict=True)]
    return vec, LogisticRegression(C=strength, max_iter=5000).fit(x, labels, sample_weight=sw)


def readings(d: Data, docs: list[list[str]], extra: list[tuple[list[str], str, float]], strength: float,
             prior: float, char_min_df: int, scheme: str,
             char_alpha: float | None = None) -> tuple[dict[int, tuple[str, float]], int]:
    """index -> (top class, probability) of each scored firm/likely excerpt; and the largest vocabulary fitted."""
    splits: list[tuple[list[int], list[int]]] = []
    if scheme == "chrono":
        for p in sorted({p for p in d.parts if p >= rf.FIRST_SCORED}):
            tr = [i for i, q in enumerate(d.parts) if q < p]
            te = [i for i, q in enumerate(d.parts) if q == p and d.firm[i]]
            if te:
                splits.append((tr, te))
    else:
        from sklearn.model_selection import GroupKFold

        for tr, te in GroupKFold(5).split(docs, d.labels, d.projects):
            splits.append((list(tr), [i for i in te if d.firm[i]]))
    out: dict[int, tuple[str, float]] = {}
    vocab = 0
    for tr, te in splits:
        vec, clf = fit([docs[i] for i in tr] + [x for x, _c, _w in extra], [d.labels[i] for i in tr]
                       + [c for _x, c, _w in extra], [1.0] * len(tr) + [w for _x, _c, w in extra], strength, prior,
                       char_min_df, char_alpha)
        vocab = max(vocab, len(vec.vocabulary_))
        for i, pr in zip(te, clf.predict_proba(vec.transform([docs[i] for i in te])), strict=True):
            j = max(range(len(pr)), key=lambda k: pr[k])
            out[i] = (str(clf.classes_[j]), float(pr[j]))
    return out, vocab


def score(d: Data, got: dict[int, tuple[str, float]], tau: float) -> dict[str, Any]:
    n = answered = right = other = other_abst = 0
    for i, (c, p) in got.items():
        ans = c in ANSWERABLE and p >= tau
        if d.labels[i] == "other":
            other, other_abst = other + 1, other_abst + (not ans)
        else:
            n, answered, right = n + 1, answered + ans, right + (ans and c == d.labels[i])
    return {"n": n, "answered": answered, "right": right, "prec": round(right / answered, 3) if answered else 0.0,
            "other": other, "other_abst": other_abst}


VARIANTS: dict[str, dict[str, Any]] = {
    "base": {"taus": (0.2, 0.25, THRESHOLD, 0.35, 0.4, 0.5)},
    "base+confusion": {"confusion": True},
    "cjk": {"cjk": True},
    "char3-5": {"char": (3, 5)},
    "char3-5/df5": {"char": (3, 5), "char_min_df": 5},
    "char4/df3": {"char": (4, 4), "char_min_df": 3},
    "char3-5 a0.3": {"char": (3, 5), "char_alpha": 0.3}, "char3-5 a0.5": {"char": (3, 5), "char_alpha": 0.5},
    "charraw a0.5": {"char": (3, 5), "raw": True, "char_alpha": 0.5, "char_min_df": 3},
    "C=3": {"C": 3.0}, "C=5": {"C": 5.0}, "C=20": {"C": 20.0}, "C=30": {"C": 30.0},
    "prior^0.3": {"prior": 0.3}, "prior^0.5": {"prior": 0.5},
    "vendor": {"vendor": True}, "vendor/w0.03": {"vendor": True, "vendor_weight": 0.03},
}


def run(d: Data, name: str, cfg: dict[str, Any], vendor: Path | None) -> list[str]:
    toks = tokeniser(bool(cfg.get("cjk")), cfg.get("char"), bool(cfg.get("raw")))
    docs = [toks(v) + s for v, s in zip(d.views, d.sig, strict=True)]
    extra = [(toks(t), c, rf.CODE_WEIGHT) for t, c in code_texts()]
    if cfg.get("vendor"):
        if vendor is None:
            return [f"{name:14} skipped (no --vendor)"]
        classes = set(d.labels) | {c for _x, c, _w in extra}
        extra += [(toks(t), c, cfg.get("vendor_weight", rf.CODE_WEIGHT)) for t, c in vendor_texts(vendor)
                  if c in classes]
    t0 = time.time()
    got = {scheme: readings(d, docs, extra, cfg.get("C", STRENGTH), cfg.get("prior", 0.0), cfg.get("char_min_df", 2),
                            scheme, cfg.get("char_alpha")) for scheme in ("chrono", "project")}
    lines = []
    for tau in cfg.get("taus", (THRESHOLD,)):
        row = [f"{name if tau == THRESHOLD else f'{name} tau={tau}':14}"]
        for scheme in ("chrono", "project"):
            s = score(d, got[scheme][0], tau)
            row.append(f"{s['right']:>4}/{s['n']:<4}{s['answered']:>4} {s['prec']:.3f} "
                       f"{s['other_abst']:>2}/{s['other']:<3}")
        row.append(f"{got['chrono'][1]:>7} {time.time() - t0:5.0f}s")
        lines.append(" | ".join(row))
    if cfg.get("confusion"):
        for scheme in ("chrono", "project"):
            wrong = Counter((d.labels[i], c if c in ANSWERABLE and p >= THRESHOLD else "(abstains)")
                            for i, (c, p) in got[scheme][0].items() if c != d.labels[i] or p < THRESHOLD)
            per = Counter(d.labels[i] for i in got[scheme][0])
            lines.append(f"  {scheme} scored per class: " + ", ".join(f"{k} {v}" for k, v in per.most_common()))
            lines.append(f"  {scheme} not right (label -> read): "
                         + ", ".join(f"{a}->{b} {n}" for (a, b), n in wrong.most_common(10)))
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated variant names (default: all)")
    ap.add_argument("--vendor", type=Path, default=None, help="kg-config.json for the vendor variant")
    ap.add_argument("--extra", action="append", default=[], help="a combination, NAME=key:val,key:val (repeatable)")
    args = ap.parse_args()
    variants = dict(VARIANTS)
    for spec in args.extra:
        name, _, body = spec.rpartition("=")
        cfg: dict[str, Any] = {}
        for kv in filter(None, body.split(",")):
            k, _, v = kv.partition(":")
            cfg[k] = True if v == "" else tuple(int(x) for x in v.split("-")) if k == "char" else float(v) \
                if k in ("C", "prior", "tau", "vendor_weight", "char_alpha") else int(v) if k == "char_min_df" else v
        variants[name] = cfg
    names = [n for n in args.only.split(",") if n] or list(variants)
    d = Data()
    cjk = sum(any("\u4e00" <= ch <= "\u9fff" for ch in v) for v in d.views)
    print(f"dev excerpts {len(d.ex)}, firm/likely {sum(d.firm)}, parts {len(set(d.parts))}, projects "
          f"{len(set(d.projects))}, views with CJK {cjk}")
    print(f"{'variant':14} | chrono right/n ans prec oth-abst | project right/n ans prec oth-abst | vocab  time")
    for n in names:
        for line in run(d, n, variants[n], args.vendor):
            print(line, flush=True)


if __name__ == "__main__":
    main()
