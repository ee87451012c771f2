"""The text report of ``kb eval``: headline, noise apart, near-copy rate, the axes, per-axis table, confusion."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Echo = Callable[[str], None]


def _f(x: Any) -> str:
    return "-" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))


def abbreviations(classes: list[str]) -> dict[str, str]:
    """Short column names for the confusion matrix: initials of the words, made unique."""
    out: dict[str, str] = {}
    for c in classes:
        base = "".join(w[0] for w in c.split("_"))[:4]
        name, i = base, 2
        while name in out.values():
            name, i = f"{base}{i}", i + 1
        out[c] = name
    return out


def reliability_line(rel: dict[str, Any]) -> str:
    """One line of :func:`opsbrain.stats.reliability`: per confidence bin, answers and share right (90% interval)."""
    cells = [f"[{b['from']:.1f},{b['to']:.1f}{']' if b['to'] >= 1 else ')'} {b['n']}: "
             f"{b['right']:.2f} ({b['right_90'][0]:.2f}-{b['right_90'][1]:.2f})" for b in rel["bins"]]
    return f"stated confidence vs share right (ECE {_f(rel['ece'])}): " + "; ".join(cells)


def print_report(res: dict[str, Any], echo: Echo) -> None:
    f, pr, n = res["faults"], res["faults_per_run"], res["noise"]
    proto = res["protocol"]
    echo(f"held-out runs {proto['runs']} ({proto['runs_per_class']} per class, seeds {proto['eval_seeds']}), "
         f"generated in {proto['generation_s']} s; model CV {proto['model'].get('cv_accuracy')} "
         f"({proto['model'].get('cv')})")
    echo(f"near-copy rate (fault incidents whose discrete features equal a training case's, same label): "
         f"{_f(res['near_copy_rate'])}")
    by_class = res.get("near_copy_by_class") or {}
    if by_class:
        echo("  per class: " + ", ".join(f"{c} {v['near_copies']}/{v['n']}" for c, v in by_class.items()))
    echo(f"FAULT incidents {f['n']}: top-1 {_f(f['top1'])}, macro-F1 {_f(f['macro_f1'])}, localization "
         f"{_f(f['localization'])} (predicted class's rule, {f['with_target_n']} with a target), confident-wrong "
         f"{_f(f['confident_wrong'])} (wrong at >= {proto['confident_at']}), abstention {_f(f['abstention'])}, "
         f"accuracy with abstention {_f(f['accuracy_with_abstention'])}")
    echo(f"  per run ({pr['runs']} runs, each weighted once): top-1 {_f(pr['top1'])}, localization "
         f"{_f(pr['localization'])}, confident-wrong {_f(pr['confident_wrong'])}, abstention {_f(pr['abstention'])}, "
         f"near-copy {_f(pr['near_copy_rate'])}")
    if (f.get("reliability") or {}).get("bins"):
        echo("  " + reliability_line(f["reliability"]))
    u = res["undetected_runs"]
    echo(f"  runs whose fault opened no incident: {u['n']} of {u['of']} {u['by_class'] or ''}")
    echo(f"NOISE incidents {n['n']} (background, scored apart): top-1 {_f(n['top1'])}, false-alarm rate "
         f"{_f(n['false_alarm_rate'])} (an actionable fault class named); noise-only pods: "
         f"{res['noise_only']['false_positives_per_pod_day']:.2f} false positives per pod-day")
    t = res["text_view"]
    echo(f"text view (same fault incidents as pasted logs): top-1 {_f(t['top1'])}, abstention {_f(t['abstention'])}")
    echo("")
    echo("axes (training values -> held-out values):")
    for a in proto["axes"]:
        echo(f"  {a['axis']:<13} {' | '.join(a['training'])} -> {' | '.join(a['held_out'])}")
    echo("")
    echo("per axis value (fault incidents; each run weighted once; top-1 and near-copy per incident last):")
    echo(f"{'axis':<13} {'held-out value':<40} {'n':>5} {'runs':>5} {'top-1':>6} {'loc':>6} {'abst':>6} "
         f"{'c-wrong':>7} {'inc-top1':>8} {'near':>6}")
    for r in res["per_axis"]:
        echo(f"{r['axis']:<13} {r['value']:<40} {r['n']:>5} {r['runs']:>5} {_f(r['top1']):>6} "
             f"{_f(r['localization']):>6} {_f(r['abstention']):>6} {_f(r['confident_wrong']):>7} "
             f"{_f(r['top1_per_incident']):>8} {_f(r.get('near_copy')):>6}")
    h = res.get("hurts_most")
    if h:
        echo(f"hurts most: {h['axis']} (top-1 spread {h['top1_spread']:.3f}; worst {h['worst_value']!r} at "
             f"{h['worst_top1']:.3f})")
    echo("")
    _confusion(res["confusion"], echo)
    if res.get("short"):
        echo(f"below the bar: {', '.join(res['short'])}")


def _confusion(conf: dict[str, dict[str, int]], echo: Echo) -> None:
    cols = sorted({p for row in conf.values() for p in row})
    ab = abbreviations(sorted(set(cols) | set(conf)))
    echo("confusion (fault incidents; rows: injected class, columns: top-1):")
    echo(f"{'':<24}" + "".join(f"{ab[c]:>6}" for c in cols))
    for true, row in conf.items():
        echo(f"{true:<24}" + "".join(f"{row.get(c, 0) or '.':>6}" for c in cols))
    echo("columns: " + ", ".join(f"{ab[c]}={c}" for c in cols))
