"""How ``opsbrain chaos run`` (and ``opsbrain runs show``) print a plan and a run journal: the incidents and
steady-state tables, the summary line, what the run left behind (each workload's ETTR and state at the end,
triggers that never fired, links still out of service) and unmet expectations."""

from __future__ import annotations

from collections import Counter
from typing import Any

import click

from opsbrain.cli.output import Table
from opsbrain.report.text import count  # noqa: F401  (re-exported: the CLI modules take it from here)


def print_plan(desc: dict[str, Any]) -> None:
    from opsbrain.runner.triggers import trigger_words

    click.echo(f"scenario {desc['scenario']} (seed {desc['seed']}, policy {desc['policy']}, "
               f"{desc['duration_s']:.0f} s, {count(desc['pods'], 'pod')}) -- dry run, nothing executed")
    for w in desc["workloads"]:
        click.echo(f"  workload {w['name']} ({w['kind']}): {w['nodes']} nodes {w['first']} .. {w['last']}")
    click.echo(f"  spares: {', '.join(desc['spares']) or 'none'}")
    for f in desc["faults"]:
        rbs = ", ".join(f.get("eligible_runbooks", [])) or "none"
        at = f"t={f['at_s']:>9.1f}s" if "at_s" in f else trigger_words(f["at"])
        which = f"faults[{f['fault']}] " if f.get("fault") is not None else ""
        lasts = f"  duration {f['duration_s']:g} s" if f.get("duration_s") is not None else ""  # session 41 (scen41)
        symptom = f"  symptom of faults[{f['symptom_of']}]" if f.get("symptom_of") is not None else ""
        click.echo(f"  {which}{at}  {f['kind']:<24} {f['target']}{lasts}{symptom}  runbooks: {rbs}")


EARLY = "(before det.)"
"""The mark of a ttr back before its fault was detected, the words of the campaign tables' "before det." column.
Before session 42 it was ``*``, which the campaign tables use for a quantile too few values support (operator42)."""


def num(v: float | None) -> str:
    return "-" if v is None else f"{v:.1f}"


def journal_tables(j: dict[str, Any], show_all: bool = False) -> list[Table]:
    """The tables of a run journal: incidents (ignored noise collapsed into one row unless ``show_all``; a false
    positive is always its own row, named by class and component) and the steady-state probes."""
    from opsbrain.verdict import TONE_STYLE, incident_outcome, needs_attention, probe_outcome

    inc = Table.of(["fault", "component", "diagnosis", "conf", "ttd s", "ttdiag s", "ttr s", "outcome"],
                   title="incidents", wrap=["component", "diagnosis"], right=["conf", "ttd s", "ttdiag s", "ttr s"])
    ignored = []
    early = 0  # recovered before detection (ttr marked in words: `*` is the quantile mark of the campaign tables)
    for i in j["incidents"]:
        inj, d = i["injected"], i["diagnosis"] or {}
        word, tone = incident_outcome(i)
        if not inj and word == "ignored" and not show_all:
            ignored.append(i)
            continue
        label = inj["kind"] if inj else "(consequence)" if i.get("consequence_of") else (
            "(attention)" if needs_attention(i) else "(noise)")
        before = i.get("recovery") == "before_detection"
        early += before
        inc.add(label, inj["component"] if inj else d.get("component"),
                d.get("fault_class", "-"), f"{d['confidence']:.2f}" if d else "-", num(i["ttd_s"]),
                num(i["ttdiag_s"]), f"{num(i['ttr_s'])} {EARLY}" if before else num(i["ttr_s"]), word,
                styles=[None] * 7 + [TONE_STYLE[tone]])
    if early:
        inc.note(f"{EARLY}: back before it was detected (healed by itself or needed no action): counted apart from "
                 "the recoveries after detection, and out of the median ttr")
    if ignored:
        classes = Counter(str((i["diagnosis"] or {}).get("fault_class", "-")) for i in ignored)
        top = ", ".join(f"{c} {n}" for c, n in classes.most_common(3)) + (", ..." if len(classes) > 3 else "")
        inc.add("(noise)", count(len(ignored), "incident"), top, "-", "-", "-", "-", "ignored",
                styles=[None] * 7 + [TONE_STYLE["ok"]])
        inc.note(f"{count(len(ignored), 'noise incident')} that opsbrain rightly left alone "
                 f"{'is' if len(ignored) == 1 else 'are'} one row; --all lists each")
    ss = j.get("steady_state") or {}
    probes = Table.of(["probe (unit)", "holds when", "baseline", "before", "after", "off s", "outcome"],
                      # a run without probes (superpod run) stores no tolerance (session 36: runs show crashed)
                      title=f"steady state (tolerance {ss.get('tolerance_s') or 0:g} s; off s: the probe's longest "
                      "time off its bar)", wrap=["probe (unit)", "holds when"],
                      right=["baseline", "before", "after", "off s"])
    defs = _probe_defs(j)
    for name in ss.get("after") or {}:
        before, after = (ss.get("before") or {}).get(name, {}), (ss.get("after") or {}).get(name, {})
        longest = (ss.get("longest_deviation_s") or {}).get(name)
        word, tone = probe_outcome(longest, ss.get("tolerance_s"), after.get("ok"))
        base = (ss.get("baseline") or {}).get(name)
        unit, bar = defs.get(name, ("-", "-"))
        probes.add(name if unit == "-" else f"{name} ({unit})", bar, _reading(base),
                   _reading(before.get("value")), _reading(after.get("value")), num(longest), word,
                   styles=[None] * 6 + [TONE_STYLE[tone]])
    return [inc, probes]


def _probe_defs(j: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """Each probe's unit and bar (``>= 0.95 x baseline``, ``<= 50 ms``) from the scenario the journal keeps; a
    journal without it (an older one) shows "-"."""
    from opsbrain.scenario.schema import PROBE_UNITS

    spec = (j.get("scenario_definition") or {}).get("spec") or {}
    out = {}
    for p in (spec.get("steady_state") or {}).get("probes") or []:
        unit = PROBE_UNITS.get(str(p.get("metric")), "-")
        ref = (f"{p['of_baseline']:g} x baseline" if p.get("of_baseline") is not None
               else f"{p['value']:g}" + ("" if unit == "-" else f" {unit}") if p.get("value") is not None else "?")
        out[str(p.get("name"))] = (unit, f"{p.get('op', '?')} {ref}")
    return out


def _reading(v: Any) -> str:
    """A probe reading to four significant digits, as the journal keeps them; "-" where there is none (never None
    or nan)."""
    return "-" if not isinstance(v, (int, float)) or v != v else f"{v:.4g}"


def steady_words(ss: dict[str, Any]) -> str:
    """The steady state in a few words: ``steady state held``, ``DEVIATED``, ``could not be checked`` (a probe had
    no baseline) or ``no steady-state hypothesis`` (no probes: there was nothing to hold)."""
    h = ss.get("hypothesis") or ("deviated" if ss.get("deviated") else "held" if ss.get("after") else "none")
    return {"deviated": "steady state DEVIATED", "unchecked": "steady state could not be checked",
            "none": "no steady-state hypothesis"}.get(h, "steady state held")


def expected_note(j: dict[str, Any]) -> str:
    """What the scenario declares about a failed verdict: expected (and why) or, for a scenario meant to fail
    that passed, that it did not fail as declared."""
    expected = j.get("expected_verdict", "passed")
    if j["verdict"] == "failed" and expected == "failed":
        return f" (expected by the scenario: {j.get('expected_reason')})"
    if j["verdict"] == "passed" and expected == "failed":
        return " (the scenario expects FAILED)"
    return ""


def verdict_line(j: dict[str, Any], colour: bool) -> str:
    """``<scenario> seed N policy P: PASSED|FAILED|...`` with the abort reason, what the scenario expects and the run
    id: the first line of ``chaos run`` and ``runs show`` (on stderr under ``-o plain``)."""
    from opsbrain.cli.output import paint
    from opsbrain.verdict import TONE_STYLE, run_outcome

    word, tone = run_outcome(j["verdict"])
    return (f"{paint(j['scenario'], 'bold', colour)} seed {j['seed']} policy {j['policy']}: "
            f"{paint(word.upper(), TONE_STYLE[tone], colour)}"
            + (f" ({j['abort_reason']})" if j.get("abort_reason") else "") + expected_note(j)
            + (f"  run id {j['run_id']}" if j.get("run_id") else ""))


def print_journal(j: dict[str, Any], fmt: str = "table", show_all: bool = False) -> None:
    from opsbrain.cli.output import colour_enabled
    from opsbrain.report.text import never_fired, not_reached, run_ended
    from opsbrain.verdict import needs_attention, trouble

    tables = journal_tables(j, show_all)
    if fmt == "plain":
        click.echo(tables[0].plain())
        # the verdict line as the table output's, on stderr: stdout stays the header and one line per fault for
        # cut/awk (session 41, scen41: plain printed no verdict at all; the exit code alone carried it)
        click.echo(verdict_line(j, colour=False), err=True)
        return
    s = j["summary"]
    click.echo(verdict_line(j, colour_enabled()))
    for t in tables:
        if t.rows or t is tables[0]:
            click.echo(t.render(fmt))
        else:  # a scenario without probes: no empty probe table (tester T)
            click.echo(f"{t.title}: no probes")
    fps = [i for i in j["incidents"] if i.get("false_positive")]
    named = "; ".join(f"{(i['diagnosis'] or {}).get('fault_class') or 'no class'} at "
                      f"{(i['diagnosis'] or {}).get('component') or 'no component'}" for i in fps[:3])
    silent, late = never_fired(j), not_reached(j)
    unsaid = (f" (+{len(silent)} whose trigger never fired)" if silent else "") \
        + (f" (+{len(late)} not reached: {run_ended(j)})" if late else "")
    split = (f" ({s['recovered_after_detection']} after detection, {s['recovered_before_detection']} before it)"
             if s.get("recovered_before_detection") else "")
    med = (f"; median ttr after detection {num(s['median_ttr_s'])} s" if s.get("median_ttr_s") is not None else "")
    click.echo(count(s["incidents"], "fault") + unsaid
               + f", {s['diagnosed_correctly']} diagnosed correctly, {s['recovered']} "
               f"recovered{split}, {count(s['false_positives'], 'false positive')}" + (f" ({named})" if named else "")
               + f"{med}; {steady_words(j['steady_state'])}")
    for line in silent + late:  # a triggered fault whose event never came, one due after an early end: in no table
        click.echo(f"  {line}")
    faults = [i for i in j["incidents"] if i.get("injected")]
    censored = [i for i in faults if i.get("detection") == "censored"]  # no time left to detect: not a miss
    missed = sum(1 for i in faults if i.get("detected_at_s") is None) - len(censored)
    open_ = sum(1 for i in faults if i.get("detected_at_s") is not None and i.get("recovered_at_s") is None)
    if j["verdict"] == "inconclusive":
        click.echo(f"  inconclusive: {j.get('verdict_reason')}")
    for i in j["incidents"]:  # no injected fault explains it, yet no background event (verdict.trouble)
        if needs_attention(i):
            d = i.get("diagnosis") or {}
            click.echo(f"  {i['id']} ({d.get('fault_class') or '-'} on {d.get('component') or '-'}) needs attention: "
                       f"{trouble(i)}; no injected fault explains it")
    for line in workload_lines(j):  # every verdict: a FAILED run's ETTR and end state are what to look at first
        click.echo(f"  {line}")
    if j["verdict"] in ("passed", "inconclusive") and (missed or open_):
        click.echo(f"  note: {count(missed, 'fault')} not detected and {open_} detected but not recovered"
                   + ("; the verdict rests on the steady-state probes and the expectations only"
                      if j["verdict"] == "passed" else ""))
    for i in censored:
        click.echo(f"  censored (not counted as missed): {i['injected']['kind']} on {i['injected']['component']}: "
                   f"{i.get('detection_note')}")
    for i in faults:  # a link only drained or re-routed around: never said to be recovered
        if i.get("still_out_of_service"):
            click.echo(f"  still out of service at the end of the run: {i['injected']['component']} "
                       f"({i['injected']['kind']}): {i['still_out_of_service']['reason']}; not recovered, its loss "
                       "counted until the end of the run")
    if j.get("superpod"):  # the scenario's superpod block ran with the chaos run (issue 21)
        from opsbrain.cli.superpod_cmds import print_block

        print_block(j["superpod"])
    for e in j.get("expectations", []):
        what = f"faults[{e['fault']}]" if e.get("fault") is not None else e.get("check", "the run")
        if e["met"] is False:
            click.echo(f"  expectation on {what} not met: {'; '.join(e['problems'])}")
        elif e["met"] is None:  # its fault was censored: the run cannot judge it
            click.echo(f"  expectation on {what} not judged: {'; '.join(e.get('unjudged') or [])}")


def workload_lines(j: dict[str, Any]) -> list[str]:
    """Each workload's ETTR (training) or tokens (serving), goodput and its state at the end of the run, in the
    words the reports use (:mod:`opsbrain.report.workloads`)."""
    from opsbrain.report import text
    from opsbrain.report import workloads as wl

    end = text.run_end(j)
    out = []
    for w in j.get("workloads") or []:
        st = wl.end_state(w, j.get("series"), end)
        g = wl.goodput(w)
        head = (f"ETTR {w['ettr']:.3f}" if w.get("kind") == "training" and w.get("ettr") is not None else
                f"{w.get('tokens_served', 0):,.0f} tokens served, {w.get('lost_tokens', 0):,.0f} lost"
                if w.get("kind") != "training" else "ETTR not recorded")
        out.append(f"{w.get('name')}: {head}" + (f", goodput {g:.3f}" if g is not None else "") + f"; {st['words']}"
                   + "".join(f"; {x}" for x in _waits_for(j, str(w.get("name")))))
    return out


def _waits_for(j: dict[str, Any], job: str) -> list[str]:
    """The incidents still waiting, at the run's end, for a spare to put ``job`` back on after paging a person (a
    ``waiting_for_spare`` step in flight; recovery/paged_wait.py): where the attention goes (session 44: with the
    claim, the progress watchdog no longer raises a stall incident of its own for the job)."""
    out = []
    for i in j.get("incidents") or []:
        for a in i.get("actions") or []:
            d = a.get("detail") or {}
            if a.get("action") == "waiting_for_spare" and d.get("in_flight") and job in (d.get("jobs") or []):
                out.append(f"{i['id']} paged a person at t={a['start_s']:.0f} s and waits for a spare of "
                           f"{a.get('target')} to replace {d.get('replaces')}")
    return out
