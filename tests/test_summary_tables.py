"""Issue 17: the campaign and evaluation tables are pandas tables (groupby / crosstab / merge) whose figures are
those of the plain loops they replaced (kept here as the reference), and pandas stays off the fast paths."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.campaign import summary
from opsbrain.kb import realeval

KINDS = ["hbm_uce", "link_flap", "node_crash"]
maybe_s = st.one_of(st.none(), st.floats(0, 1e5, allow_nan=False))
fault = st.fixed_dictionaries({"kind": st.sampled_from(KINDS), "ttd_s": maybe_s, "ttdiag_s": maybe_s,
                               "ttr_s": maybe_s, "correct": st.booleans()},
                              optional={"recovery": st.sampled_from(["before_detection", "after_detection"])})


def _ttr_by_class_loops(faults: list[dict[str, Any]]) -> dict[str, Any]:
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in faults:
        by[f["kind"]].append(f)
    return {k: {"n": len(fs), "recovered": sum(f["ttr_s"] is not None for f in fs),
                "recovered_before_detection": sum(f.get("recovery") == "before_detection" for f in fs),
                "ttr_s": summary.dist(f["ttr_s"] for f in fs if f.get("recovery") != "before_detection"),
                "ttd_s": summary.dist(f["ttd_s"] for f in fs),
                "ttdiag_s": summary.dist(f["ttdiag_s"] for f in fs), "ttd_s_p50": summary._r(summary.quantile(
                    [f["ttd_s"] for f in fs if f["ttd_s"] is not None], 0.5)),
                "ttdiag_s_p50": summary._r(summary.quantile([f["ttdiag_s"] for f in fs if f["ttdiag_s"] is not None],
                                                            0.5))}
            for k, fs in sorted(by.items())}


@settings(max_examples=60, deadline=None)
@given(st.lists(fault, max_size=25))
def test_ttr_by_class_is_the_loop_table(faults: list[dict[str, Any]]) -> None:
    assert summary._ttr_by_class(faults) == _ttr_by_class_loops(faults)
    per_class: dict[str, dict[str, int]] = defaultdict(lambda: {"n": 0, "correct": 0})
    for f in faults:
        per_class[f["kind"]]["n"] += 1
        per_class[f["kind"]]["correct"] += int(f["correct"])
    assert summary._diagnosis_by_class(faults) == dict(sorted(per_class.items()))


job = st.fixed_dictionaries({"name": st.sampled_from(["train", "train2"]), "kind": st.just("training"),
                             "npus": st.just(112), "ettr": st.floats(0, 1), "goodput": st.one_of(st.none(),
                             st.floats(0, 1)), "elapsed_s": st.floats(0, 1e6), "downtime_s": maybe_s,
                             "restarts": st.integers(0, 5), "lost_npu_s": st.floats(0, 1e8)})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(job, min_size=1, max_size=2, unique_by=lambda w: w["name"]), min_size=1, max_size=6))
def test_jobs_table_is_the_loop_table(runs: list[list[dict[str, Any]]]) -> None:
    records = [{"workloads": ws} for ws in runs]
    out = summary._jobs(records)
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for ws in runs:
        for w in ws:
            by[w["name"]].append(w)
    assert sorted(out) == sorted(by)
    for name, ws in by.items():
        o = out[name]
        assert o["ettr"] == summary.dist(w["ettr"] for w in ws)
        assert o["goodput"] == summary.dist(w["goodput"] for w in ws)
        assert o["downtime_s"] == summary._mean(w["downtime_s"] for w in ws)
        assert o["restarts"] == summary._mean(w["restarts"] for w in ws)
        assert o["loss_share"]["downtime"] == summary._mean(
            float(w["downtime_s"] or 0.0) / w["elapsed_s"] for w in ws if w["elapsed_s"])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.floats(0, 1), st.floats(0, 1), st.floats(0, 1e4)), max_size=8,
                unique_by=lambda t: t[0]))
def test_paired_comparison_joins_on_seed_and_fault(pairs: list[tuple[int, float, float, float]]) -> None:
    def rec(seed: int, ettr: float, ttr: float) -> dict[str, Any]:
        return {"seed": seed, "workloads": [{"name": "train", "kind": "training", "ettr": ettr, "lost_npu_s": ttr}],
                "faults": [{"kind": "node_crash", "component": "pod0/node1", "at_s": 60.0, "ttr_s": ttr}]}

    auto = [rec(s, a, t) for s, a, _m, t in pairs]
    manual = [rec(s, m, 2 * t) for s, _a, m, t in pairs if s % 2 == 0]  # the baseline ran only the even seeds
    out = summary.compare(auto, manual)
    seeds = sorted(s for s, *_ in pairs if s % 2 == 0)
    assert out["seeds"] == seeds and out["ttr_s"]["pairs"] == len(seeds)
    if seeds:
        j = out["jobs"]["train"]
        by = {s: (a, m) for s, a, m, _t in pairs}
        assert [p["seed"] for p in j["per_seed"]] == seeds
        assert j["ettr_gain"] == summary._mean([by[s][0] - by[s][1] for s in seeds])
    else:
        assert out["jobs"] == {}


def test_real_log_per_class_table_keeps_first_seen_order_of_wrong_classes() -> None:
    rows = [{"label": "hbm_uce", "predicted": p} for p in ("npu_oom", "hbm_uce", "link_flap", "npu_oom", "unknown")]
    rows += [{"label": "other", "predicted": "unknown"}, {"label": "other", "predicted": "npu_oom"}]
    t = realeval.per_class_table(rows)
    assert t["hbm_uce"] == {"n": 5, "right": 1, "unknown": 1, "wrong": {"npu_oom": 2, "link_flap": 1}}
    assert list(t["hbm_uce"]["wrong"]) == ["npu_oom", "link_flap"]
    assert t["other"] == {"n": 2, "right": 1, "unknown": 1, "wrong": {"npu_oom": 1}}
    assert realeval.per_class_table([]) == {}


def test_confusion_counts_only_pairs_that_occur() -> None:
    from types import SimpleNamespace

    from opsbrain.kb.heldout_eval import confusion

    rows = [SimpleNamespace(case=SimpleNamespace(label=a), top1=b)
            for a, b in [("b", "a"), ("a", "a"), ("b", "b"), ("b", "a")]]
    want: dict[str, Counter[str]] = {}
    for r in rows:
        want.setdefault(r.case.label, Counter())[r.top1] += 1
    got = confusion(rows)  # type: ignore[arg-type]
    assert got == {a: dict(sorted(v.items())) for a, v in sorted(want.items())}
    assert got == {"a": {"a": 1}, "b": {"a": 2, "b": 1}}
    assert confusion([]) == {}


def test_help_and_chaos_list_import_no_pandas(tmp_path: Path) -> None:
    code = ("import sys\nfrom opsbrain.cli import main\n"
            "for args in (['--help'], ['chaos', 'list']):\n"
            "    try:\n        main(args)\n    except SystemExit:\n        pass\n"
            "print('PANDAS', 'pandas' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                         env={"OPSBRAIN_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}).stdout
    assert "PANDAS False" in out, out
