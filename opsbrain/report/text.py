"""Plain-word formatting shared by the HTML and Markdown renderers (numbers, durations, action outcomes)."""

from __future__ import annotations

from typing import Any

DASH = "-"


def count(n: Any, word: str, plural: str | None = None, spec: str = "") -> str:
    """``1 fault``, ``2 faults``, ``0 faults``: a count with its noun in the right number (``plural`` where it is
    not the word and an s: ``count(2, "recovery", "recoveries")``). A count that is no number (``?``) takes the
    plural. ``spec`` formats a number (``count(1.0, "day", spec="g")``: ``1 day``; ``0.5 days``)."""
    shown = format(n, spec) if spec and _n(n) else n
    one = shown == "1" if spec and _n(n) else n == 1  # the noun follows the number shown (1.0000001 -> "1 day")
    return f"{shown} {word}" if one else f"{shown} {plural or word + 's'}"


def _n(x: Any) -> bool:
    """Whether ``x`` is a number to format (template lookups of missing keys give other things)."""
    return isinstance(x, int | float) and not isinstance(x, bool)

# Operator wording of the runbook vocabulary and of the records the orchestrator adds (manual steps, guards).
ACTION_WORDS = {
    "isolate_link": "isolate the link", "restore_link": "restore the link", "reroute": "re-route traffic",
    "isolate_hbm_rows": "isolate HBM rows", "reset_chip": "reset the chip", "isolate": "isolate",
    "replace_part": "replace the part", "cordon": "cordon the node", "reboot_node": "reboot the node",
    "restart_process": "restart the failed processes in place", "restart_job": "restart the job",
    "restart_instance": "restart the instance", "scale_instance": "scale the instance in",
    "scale_out": "scale the job back out",
    "swap_spare": "swap in a spare node", "add_spare": "return the node to the spare pool", "ticket": "open a ticket",
    "wait": "wait", "notify": "notify", "none": "no action (watch)", "detect": "a person notices",
    "diagnose": "a person diagnoses", "escalate": "escalate", "guardrail": "guardrail stops automation",
    "waiting_for_spare": "keep the job pending for a spare",
}


RATE_UNITS = {"training": ("step rate", "steps/s"), "inference": ("decode throughput", "tokens/s")}
"""A workload's main rate as the journal records it (kind -> metric, unit): the incident plot's axis and the table
under it both use these, so the two never show different units."""


def rate_unit(kind: Any) -> tuple[str, str]:
    """(metric, unit) of a workload kind's main rate (:data:`RATE_UNITS`; anything but training is inference)."""
    return RATE_UNITS["training" if kind == "training" else "inference"]


IMPACT_WORDS = {"lost_npu_s": "NPU-seconds lost", "redone_steps": "steps redone", "downtime_s": "seconds down",
                "stalled_s": "seconds stalled (up, no step made)", "ckpt_stall_s": "seconds in checkpoint stalls",
                "lost_tokens": "tokens lost", "slo_violation_s": "seconds in SLO violation"}


def impact_label(key: str) -> str:
    return IMPACT_WORDS.get(key, key.replace("_", " "))


def lower(ours: Any, theirs: Any) -> bool:
    """Whether our figure is lower (better: times, losses) than the baseline's."""
    return _n(ours) and _n(theirs) and ours < theirs


def seconds(x: Any) -> str:
    """``842.2 s``: the exact figure the tests compare with the journal (one decimal)."""
    return f"{x:.1f} s" if _n(x) else DASH


def run_end(journal: Any) -> Any:
    """Where a run's simulated time ended: its journal's ``ended_at_s`` (0 for a run stopped at once), else its
    planned ``duration_s`` (before session 35 an ``ended_at_s`` of 0 fell through to the planned end)."""
    end = journal.get("ended_at_s")
    return journal.get("duration_s") if end is None else end


def simulated(duration_s: Any, ended_at_s: Any) -> str:
    """How much simulated time a run covered: ``7.0 d simulated``, or for a run stopped before its planned end
    ``1.3 d of 7.0 d simulated`` (its journal's ``ended_at_s`` against ``duration_s``)."""
    if _n(ended_at_s) and _n(duration_s) and ended_at_s < duration_s:
        return f"{human(ended_at_s)} of {human(duration_s)} simulated"
    return f"{human(duration_s)} simulated"


def human(x: Any) -> str:
    """A duration for reading: ``2.0 s``, ``14 min 2 s``, ``3.5 h``, ``2.1 d``."""
    if not _n(x):
        return DASH
    sign, a = ("-" if x < 0 else ""), abs(x)
    if a < 60:
        return f"{sign}{a:.1f} s"
    if a < 3600:
        m, s = divmod(round(a), 60)
        return f"{sign}{m} min {s} s" if s else f"{sign}{m} min"
    if a < 86400:
        return f"{sign}{a / 3600:.1f} h"
    return f"{sign}{a / 86400:.1f} d"


def both(x: Any) -> str:
    """``842.2 s (14 min 2 s)``; just ``2.0 s`` below a minute."""
    if not _n(x):
        return DASH
    return seconds(x) if abs(x) < 60 else f"{seconds(x)} ({human(x)})"


def at(t: float | None, onset: float | None) -> str:
    """A point in time as ``t=602.0 s (+2.0 s)``, relative to the onset when there is one."""
    if t is None:
        return DASH
    if onset is None:
        return f"t={t:.1f} s"
    return f"t={t:.1f} s ({'+' if t >= onset else '-'}{human(abs(t - onset))})"


def pct(x: Any, digits: int = 0) -> str:
    return f"{100 * x:.{digits}f}%" if _n(x) else DASH


def conf(x: Any) -> str:
    """A confidence as ``0.56 (56%)``."""
    return f"{x:.2f} ({100 * x:.0f}%)" if _n(x) else DASH


def num(x: Any, unit: str = "", digits: int = 1) -> str:
    """A large or small number with thousands separators: ``1,421,428 tokens``, ``0.44 steps``."""
    if not _n(x):
        return DASH
    a = abs(x)
    if a == 0:
        return f"0 {unit}".strip()
    body = f"{x:,.0f}" if a >= 1000 else f"{x:.{digits}f}" if a >= 1 or a == 0 else f"{x:.2g}"
    return f"{body} {unit}".strip()


def action_split(counts: dict[str, Any]) -> str:
    """The run summary's actions: ``4 taken, 2 skipped, 2 watch/wait`` (:func:`opsbrain.report.response.step_kind`);
    the bare count where a model has no split."""
    if "steps" not in counts:
        return str(counts.get("actions", DASH))
    return f"{counts['actions']} taken, {counts['actions_skipped']} skipped, {counts['actions_watch']} watch/wait"


def action_words(action: str) -> str:
    return ACTION_WORDS.get(action, action.replace("_", " "))


def outcome(a: dict[str, Any]) -> str:
    """What came of an action, in words."""
    detail = a.get("detail") or {}
    status = a.get("status", "?")
    dur = (a.get("end_s") or 0.0) - (a.get("start_s") or 0.0) if a.get("end_s") is not None else None
    if status == "succeeded":
        extra = _detail_words(a.get("action", ""), detail)
        took = f"done in {human(dur)}" if dur else "done"
        return f"{took}; {extra}" if extra else took
    if status == "failed":
        return "FAILED: " + str(detail.get("reason") or detail.get("error") or "no reason recorded")
    if detail.get("in_flight"):
        return "in flight at the end of the run (field work takes hours)"
    return "skipped: " + str(detail.get("reason") or status)


def _detail_words(action: str, d: dict[str, Any]) -> str:
    if action == "swap_spare" and d.get("spare"):
        return f"spare {d['spare']} in, {count(d.get('spares_left', '?'), 'spare')} left"
    if action == "ticket":
        return f"{d.get('kind', 'ticket')} ticket" + (f": {d['reason']}" if d.get("reason") else "")
    if action == "reroute" and isinstance(d.get("usable"), dict) and d["usable"]:
        vals = list(d["usable"].values())
        return f"{count(len(vals), 'node')} at {min(vals):.1%} of {'its' if len(vals) == 1 else 'their'} UB bandwidth"
    if action == "isolate_hbm_rows" and "isolated_rows" in d:
        return f"{count(d['isolated_rows'], 'row')} isolated"
    if action in ("detect", "diagnose") and d.get("via"):
        return f"via {d['via']}"
    if action == "diagnose" and d.get("fault_class"):
        return f"found {d['fault_class']}"
    if action == "none" and d.get("reason"):
        return str(d["reason"])
    if action == "notify" and d.get("message"):
        return str(d["message"])
    if "health" in d:
        return f"now {d['health']}"
    return ""


def rel(x: Any) -> str:
    """An offset from the onset: ``+2.0 s``."""
    return f"{'+' if x >= 0 else '-'}{abs(x):.1f} s" if _n(x) else DASH


def diff(ours: Any, theirs: Any, unit: str = " s") -> str:
    """``ours - theirs`` with its sign (``-1394.8 s``), or a dash when either is missing."""
    if not (_n(ours) and _n(theirs)):
        return DASH
    d = ours - theirs
    body = f"{d:+,.0f}" if abs(d) >= 1000 else f"{d:+.1f}"
    return f"{body}{unit}"


def utc(iso: Any) -> str:
    """An ISO UTC time as ``YYYY-MM-DD HH:MM:SS`` ("-" when absent or unreadable)."""
    from datetime import UTC, datetime

    try:
        return datetime.fromisoformat(str(iso)).astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return "-"


def never_fired(journal: dict[str, Any]) -> list[str]:
    """Each scenario fault whose event trigger never fired (so it was never injected and no table counts it):
    ``faults[2] (hbm_uce on pod0/node6/npu0/hbm): trigger job_down of train +0s never fired (its event came 0 of 1
    time)``, from the journal's summary, else its ``triggers`` record (journals before the summary kept it)."""
    rows = (journal.get("summary") or {}).get("triggers_never_fired")
    if rows is None:
        rows = [t for t in journal.get("triggers") or [] if isinstance(t, dict) and t.get("fired") is False]
    out = []
    for t in rows:
        what = f" ({t['kind']} on {t.get('target')})" if t.get("kind") else ""
        came = (f" (its event came {t.get('seen', 0)} of {count(t['occurrence'], 'time')})" if t.get("occurrence")
                else f" (its event came {count(t.get('seen', 0), 'time')})")
        out.append(f"faults[{t.get('fault')}]{what}: trigger {t.get('trigger') or t.get('event')} never fired{came}")
    return out


def run_ended(journal: dict[str, Any]) -> str:
    """How a run that stopped before its end is said: ``the run was aborted`` (or interrupted, or ended)."""
    return "the run " + {"aborted": "was aborted", "interrupted": "was interrupted"}.get(
        str(journal.get("status")), "ended")


def not_reached(journal: dict[str, Any]) -> list[str]:
    """Each fault due after the end of the run (the journal's ``summary.faults_not_reached``, session 44: a timed one
    of a run that stopped early, or a triggered one that fired too late to start): ``faults[1] (hbm_uce on
    pod0/node40/npu3/hbm): scheduled at 2000 s, not reached: the run was aborted at 310 s``."""
    out = []
    for f in (journal.get("summary") or {}).get("faults_not_reached") or []:
        who = f"faults[{f['fault']}]" if f.get("fault") is not None else f"a {f.get('source') or 'drawn'} fault"
        out.append(f"{who} ({f.get('kind')} on {f.get('target')}): scheduled at {f.get('at_s'):g} s, not reached: "
                   f"{run_ended(journal)} at {float(journal.get('ended_at_s') or 0):g} s")
    return out
