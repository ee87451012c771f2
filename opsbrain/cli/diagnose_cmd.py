"""``opsbrain diagnose``: an incident file, logs (file, directory or stdin) or a bundle."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

from opsbrain.cli.base import NON_EMPTY, _emit_json, cli, data_dir_option, json_option
from opsbrain.cli.kb_cmds import _matcher, model_option
from opsbrain.diagnosis.symptoms import led_by_symptoms, symptoms_headline
from opsbrain.errors import InputError
from opsbrain.verdict import cited_line, found_nothing


# ---- diagnose (issue 5) ---------------------------------------------------------------------------------
@cli.command()
@click.argument("incident_file", type=NON_EMPTY, required=False, nargs=-1)
@click.option("--logs", "logs", type=NON_EMPTY, default=None, metavar="FILE|DIR|-",
              help="Diagnose raw log text: a file, a directory of logs, or - for stdin (paste, then Ctrl-D); "
                   "gzip/bzip2/xz files and tar/zip archives are read in place. Paths after it are read with it "
                   "(a shell's glob: --logs worker-*/process_log/run/plog/*.log), as the directory they share.")
@click.option("--bundle", "bundle", type=NON_EMPTY, default=None, metavar="DIR|ARCHIVE",
              help="Diagnose a log bundle in the Ascend layout (simulated or collected; issue 9): a directory, or a "
                   ".tar, .tar.gz/.tgz, .tar.bz2, .tar.xz or .zip of one, read in place.")
@click.option("--follow-links", "follow_links", is_flag=True, default=False,
              help="Read what symbolic links in a --logs or --bundle directory point to (worker directories linked "
                   "in from a store); each directory once. Off by default: a link may point anywhere. Links inside "
                   "archives are never followed.")
@click.option("--exit-code", "exit_code", is_flag=True, default=False,
              help="Exit 1 when something was found (a fault class, or fault signals or an exporter page's node "
                   "health summary that no class explains), 0 only when nothing was: for scripts "
                   "(diagnose --exit-code --logs x || page).")
@model_option
@data_dir_option
@json_option
def diagnose(incident_file: tuple[str, ...], logs: str | None, bundle: str | None, follow_links: bool,
             exit_code: bool, model: Path | None, data_dir: Path | None, as_json: bool) -> None:
    """Diagnose an exported incident file, raw logs or a log bundle: class, component, confidence, evidence.
    Exit 0 with an answer, whether a fault was found or not (the first line says which; with --exit-code, 1 when
    one was); 2: bad input (also no log text at all)."""
    d = _diagnose(incident_file, logs, bundle, follow_links, model, data_dir, as_json)
    if exit_code and not found_nothing(d):
        click.get_current_context().exit(1)


def _diagnose(incident_file: tuple[str, ...], logs: str | None, bundle: str | None, follow_links: bool,
              model: Path | None, data_dir: Path | None, as_json: bool) -> dict[str, Any]:
    """Read, diagnose and print; the verdict (``Diagnosis.as_dict()`` form)."""
    from opsbrain.diagnosis import oneclick
    from opsbrain.kb.training import load_engine

    more = list(incident_file) if logs is not None else []  # a glob after --logs: more logs
    incident = None if logs is not None or not incident_file else incident_file[0]
    if len(incident_file) > 1 and logs is None:
        raise InputError(f"one INCIDENT_FILE at a time ({len(incident_file)} given); several log files are read "
                         "with --logs FILE FILE ...")
    if bundle is not None and incident_file:
        raise InputError(f"--bundle reads one bundle, a directory or an archive ({len(incident_file)} more "
                         f"path{'s' * (len(incident_file) != 1)} given: {incident_file[0]}); several log files are "
                         "read with --logs FILE FILE ...")
    if incident_json := next((f for f in more if _is_incident_file(f)), None):
        raise InputError(f"{incident_json} is an exported incident (an object with a 'lines' list), given with --logs: "
                         "diagnose it alone (diagnose INCIDENT_FILE), or give --logs only log files")
    if sum(x is not None for x in (incident, logs, bundle)) != 1:
        raise InputError("give exactly one of INCIDENT_FILE, --logs FILE or --bundle DIR|ARCHIVE")
    engine = load_engine(data_dir, say=lambda m: click.echo(m, err=True), model=model)
    matcher = _matcher(data_dir)
    if bundle is not None:
        return _diagnose_bundle(bundle, engine, matcher, as_json, follow_links)
    res = (oneclick.diagnose_logs([logs, *more] if more else logs, engine, matcher, follow_links=follow_links)
           if logs is not None
           else oneclick.diagnose_incident_file(str(incident), engine, matcher))
    if logs is not None:
        _refuse_empty(logs, more, res.get("input") or {})
    d: dict[str, Any] = res["diagnosis"]
    if as_json:
        _emit_json(res)
        return d
    click.echo(_verdict_line(d, engine.p.min_confidence))
    for ev in d["evidence"]:
        click.echo(f"  - {ev}")
    _echo_root_cluster(d)
    _echo_jobs(res.get("jobs") or [], d, res.get("attempts"))
    for e in d.get("evidence_lines", [])[:8]:
        click.echo(f"  {cited_line(e, 150)}")
    vendor = res.get("vendor_entries", [])
    for k in vendor[:3]:
        how = "" if not k["class"] else " (counted)" if k.get("counted") else " (shown, not counted)"
        click.echo(f"  vendor: {k['entry']} -> {k['class'] or 'no class'}{how}: {k['cause']}")
    _echo_more(len(vendor), 3, "vendor entries")
    kb = [k for k in res["knowledge"] if k["source"] != "imported"]
    for k in kb[:3]:
        click.echo(f"  kb: {_kb_label(k)}{_handling(k)} {k['cause']}{_other_class(k, d)}")
    _echo_more(len(kb), 3, "knowledge-base matches")
    for note in res.get("limits", []):
        click.echo(f"  note: {note}")
    return d


def _refuse_empty(logs: str, more: list[str], inp: dict[str, Any]) -> None:
    """No log text at all (an empty file, an empty directory, nothing on stdin, or only white space in any of these:
    session 34) is bad input, as an empty bundle and an incident file without lines are: "no fault found in 0
    lines" with exit 0 read as a clean bill of health. Input that was there but not read (binary, an unknown
    archive) keeps its answer and its notes."""
    if inp.get("lines", 1) > inp.get("blank_lines", 0) or inp.get("not_read") or inp.get("notes"):
        return
    blank = bool(inp.get("blank_lines"))
    if logs == "-":
        what = ("only blank lines on stdin: no log text to read" if blank
                else "nothing on stdin to read (paste the lines, then Ctrl-D)")
    elif more:
        what = f"no log text in these {1 + len(more)} files (all empty{' or blank' if blank else ''})"
    elif Path(logs).is_dir():
        what = f"no log text in the directory (no files, or {'empty or blank' if blank else 'empty'} ones only)"
    elif (n := inp.get("files", 1)) > 1:  # an archive's members
        what = f"no log text in its {n} files (all empty{' or blank' if blank else ''})"
    else:
        what = "blank file (white space only): no log text to read" if blank else "empty file: no log text to read"
    raise InputError(what, file=logs if logs != "-" else None, path="--logs")


def _is_incident_file(path: str) -> bool:
    """Whether a path given beside ``--logs`` is an exported incident (``diagnose inc.json --logs x.log``: click
    cannot tell a path before ``--logs`` from a glob's after it): a ``.json`` file of at most 8 MB holding an object
    with a ``lines`` list."""
    import json

    p = Path(path)
    try:
        if p.suffix.lower() != ".json" or not p.is_file() or p.stat().st_size > 8 << 20:
            return False
        data = json.loads(p.read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and isinstance(data.get("lines"), list)


def _echo_root_cluster(d: dict[str, Any]) -> None:
    """The multi-rank root cluster of a diagnosis: root devices, wait chain, dead ends (issue 14)."""
    rc = d.get("root_cluster")
    if not rc or not (rc.get("root") or rc.get("rule")):
        return
    root = rc.get("root") or "unknown (the peer waited for is not named)"
    click.echo(f"  root cluster ({rc['what']}): root {root}" + (f"; chain {rc['chain']}" if rc["chain"] else ""))
    click.echo(f"    rule: {rc['rule']}" + (f"; class from {rc['class_from']}" if rc.get("class_from") else ""))
    for x in rc.get("dead_ends", [])[:3]:
        click.echo(f"    {x['waiter']} waited for {x['remote']}: {x['why']}")


def _echo_jobs(jobs: list[dict[str, Any]], d: dict[str, Any] | None,
               attempts: list[dict[str, Any]] | None = None) -> None:
    """The jobs an input's processes are of, where they are several (``ingest.rankjobs``), and the attempts of a job
    run more than once (a restart); with ``d``: each other job's own root cluster, not the verdict's."""
    from opsbrain.diagnosis.jobs import attempt_line, job_words
    from opsbrain.ingest.rankjobs import ran_words

    if attempts:
        click.echo(f"  attempts: {ran_words(attempts)}")
        for a in attempts:
            click.echo(f"    {attempt_line(a)}")
    if jobs:
        marked = ", or their files name other MindCluster jobs" if any(j.get("marker") for j in jobs) else ""
        click.echo(f"  jobs: {len(jobs)} in the input (their processes ran on one device at other times, or apart "
                   f"in time under other communicators{marked}); each has its own root cluster")
        for job in jobs:
            click.echo(f"    {job_words(job)}")
    for other in (d or {}).get("other_jobs", []):  # another job: its own root cluster, not the verdict's
        click.echo(f"  job {other['job']} (not this verdict's job):")
        _echo_root_cluster(other)


# ---- bundles (issue 9): add 'runs bundle' / 'diagnose --bundle' support here --------------------------
def _diagnose_bundle(bundle: str, engine: Any, matcher: Any, as_json: bool,
                     follow_links: bool = False) -> dict[str, Any]:
    """``diagnose --bundle DIR``: every incident of the bundle, the primary one's diagnosis, what the knowledge
    base and imported vendor knowledge matched, and what was skipped or refused; the bundle's verdict."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.bundle.layout import BundleParams

    res = diagnose_bundle(bundle, engine, matcher, BundleParams(follow_links=follow_links))
    if as_json:
        _emit_json(res)
        return dict(res["diagnosis"])
    ln = res["lines"]
    src = res.get("read_from") or {}
    kind = f" ({src['kind']} archive)" if src.get("kind", "directory") != "directory" else ""
    click.echo(f"bundle {bundle}{kind}: {res['files']['read']} files read, {len(res['skipped'])} skipped, "
               f"{len(res['refused'])} refused; {ln['read']} lines ({ln['malformed']} malformed, {ln['untimed']} "
               f"without a time stamp); {len(res['workers'])} workers; {res['signals']} signals; "
               f"{len(res['incidents'])} incidents")
    for w in res["workers"]:
        click.echo(f"  worker {_worker_words(w, src)}")
    _echo_jobs(res.get("jobs") or [], None, res.get("attempts"))
    for x in res["skipped"][:10]:
        click.echo(f"  skipped {x['path']}: {x['reason']}")
    if len(res["skipped"]) > 10:
        click.echo(f"  ... {len(res['skipped']) - 10} more skipped (--json lists them)")
    for x in res["refused"][:10]:
        click.echo(f"  refused {x['path']}: {x['reason']}")
    empty = res.get("empty_files") or []
    for rel in empty[:10]:  # (a 0-byte messages is no syslog checked: session 41)
        click.echo(f"  empty {rel}: no text in it")
    if len(empty) > 10:
        click.echo(f"  ... {len(empty) - 10} more empty (--json lists them)")
    for note in res.get("limits", [])[:10]:
        click.echo(f"  note: {note}")
    if (tz := res.get("time_zone") or {}) and (tz.get("stated") or tz.get("zoned_files") or tz.get("datetime_files")):
        click.echo("  times: " + (f"the collection's local time is {tz['stated']} (its Datetime: line)"
                                  if tz.get("stated") else tz["assumed"]))
    for rel in res.get("read_as_console", [])[:10]:
        click.echo(f"  read {rel} as a job's console (a text log whose name the layout does not know)")
    for x in res.get("placed_files", [])[:10]:
        n = x["lines"]
        click.echo(f"  placed {x['path']}: no time stamp in it; its {n} line{'s' * (n != 1)} at {x['at']} "
                   f"({x['why']})" + ("; read as incidents of their own" if x.get("apart") else ""))
    for x in res.get("yearless", [])[:10]:
        click.echo(f"  year-less stamps of {x['path']} read in {x['year']}, the year nearest {x['from']}")
    for inc in res["incidents"]:
        d = inc["diagnosis"] or {}
        # the hosts by the bundle's own names (the reader's ids of real hosts only in --json's ``internal_nodes``)
        where = ", ".join(inc["nodes"]) or ("a host not named" if "" in inc.get("internal_nodes", {}) else "-")
        job = f" (job {inc['job']})" if inc.get("job") else ""
        job += f" (attempt {inc['attempt']})" if inc.get("attempt") else ""
        opened = re.sub(r"(\.\d{3})\d*", r"\1", str(inc["opened_at"]))  # to the millisecond, as the logs write it
        click.echo(f"incident {inc['id']}{job} opened {opened} on {where}: {d.get('fault_class') or 'unknown'} at "
                   f"{d.get('component') or NO_PLACE} (confidence {d.get('confidence', 0):.2f})"
                   + (f", runbook {d['runbook']}" if d.get("runbook") else ""))
        for ev in d.get("evidence", []):
            click.echo(f"  - {ev}")
    d = res["diagnosis"]
    primary = f", incident {res['primary']}" if res.get("primary") and not d.get("decided_by") else ""
    click.echo(_verdict_line(d, engine.p.min_confidence) + primary)
    shown = {e for inc in res["incidents"] for e in (inc["diagnosis"] or {}).get("evidence", [])}
    for ev in [e for e in d.get("evidence", []) if e not in shown][:6]:  # what the bundle's verdict added
        click.echo(f"  - {ev}")
    _echo_root_cluster(d)
    _echo_jobs([], d)
    for k in res["knowledge"][:KNOWLEDGE_SHOWN]:
        who = "vendor" if k["source"] == "imported" else "kb"
        click.echo(f"  {who}: {_kb_label(k)}{_handling(k)} x{k['lines']} (first {k['first']}) "
                   f"{k['cause']}" + (f" -> {k['suggestion']}" if k["suggestion"] else ""))
    _echo_more(len(res["knowledge"]), KNOWLEDGE_SHOWN, "knowledge matches")
    return dict(d)


def _worker_words(w: dict[str, Any], src: dict[str, Any]) -> str:
    """A worker in the bundle's own terms: its folder, the host it is named after, its server addresses and the
    devices its collective processes ran on (``gz-a3-r07-n12 (server 10.0.0.12; devices 0, 3)``). The reader's
    own id of a real host (``pod0/node0``, in sorted order) is no name of the user's: it stays in ``--json`` as
    ``internal_node`` (session 33; before, ``worker gz-a3-r07-n12 -> pod0/node0 (sorted order)``). A twin host's id
    is its folder's name (``pod0-node35 -> pod0/node35``, by which the twin's components name it) and is shown."""
    shown = src.get("name") if w["dir"] == "." else w["dir"].rsplit("/", 1)[-1]
    # environment_check/<name>/, a host syslog's name; not the folder's own path again (session 41: "worker
    # mid/node-z (named mid/node-z)" where the workers' paths share no head)
    facts = [f"named {w['name']}"] if w.get("name") and w["name"] not in (shown, w["dir"]) else []
    if w.get("name") == "":  # (bundle.hosts.UNNAMED: the folder given is named by a tool's run time, or as logs')
        from opsbrain.ingest.hostnames import dated

        what = "a date and time" if dated(str(shown)) else "a folder name logs are kept under"
        facts.append(f"host not named: {shown} is {what}, no host's name")
    if w.get("ips"):
        facts.append(f"server{'s' * (len(w['ips']) > 1)} {', '.join(w['ips'])}")
    if devs := w.get("devices"):
        facts.append(f"device{'s' * (len(devs) > 1)} {', '.join(map(str, devs))}")
    words = w["dir"] + (f" ({'; '.join(facts)})" if facts else "")
    return words if w.get("named_by") == "sorted order" else f"{words} -> {w['internal_node']} ({w['named_by']})"


NO_PLACE = "no host or device named"
"""A verdict (``--logs``, ``--bundle``) or a bundle's incident that names no place: one phrase in both modes (session
42; before, a bundle's incident lines said "no component named")."""

KNOWLEDGE_SHOWN = 8
"""Knowledge matches the text answer of ``--bundle`` lists (the verdict's class first, then most lines); the rest
are counted on one line and listed by ``--json``."""


def _echo_more(total: int, shown: int, what: str) -> None:
    """``... and N more <what> (--json lists all)`` where the text answer cut a list (before, it cut silently)."""
    if total > shown:
        click.echo(f"  ... and {total - shown} more {what} (--json lists all)")


def _handling(k: dict[str, Any]) -> str:
    """`` [<handling level>]`` of a knowledge match, nothing for one without a level (an imported graph entry)."""
    return f" [{k['handling']}]" if k.get("handling") else ""


def _other_class(k: dict[str, Any], d: dict[str, Any]) -> str:
    """`` (a match of <class>, not the verdict's)`` for a knowledge match of a class the diagnosis did not choose: its
    handling (``[RestartNPU]``) is that class's advice, not advice for this input (a 507048 read as a program's hang
    must not tell the operator to reset a healthy chip)."""
    cls = k.get("class")
    return f" (a match of {cls}, not the verdict's)" if cls and cls != d.get("fault_class") else ""


def _kb_label(k: dict[str, Any]) -> str:
    from opsbrain.diagnosis.oneclick import kb_label  # (imported by the diagnosis that made ``k``)

    return kb_label(k)


def _verdict_line(d: dict[str, Any], bar: float) -> str:
    """``diagnosis: <class> at <where> (confidence c)[, runbook r]``: where in the input's own terms (host, device),
    else the root's name or the twin's component, else said to be unnamed. A class given below the answer bar (a
    documented rule decided it, the model's probability is low: a root cluster's RDMA completion errors) says so,
    and its runbook is the one to take once confirmed, as the incident lines below it say "escalate". ``bar``: the
    engine's answer bar (``DiagnosisParams.min_confidence``). An input whose only findings are a monitoring
    component's own failures says that (``oneclick.with_component_self``)."""
    own = d.get("component_self") or []
    if own and d["fault_class"] == "unknown" and str((d.get("evidence") or [""])[0]).startswith("not the job's fault"):
        return "diagnosis: no fault of the job found; " + "; ".join(  # (oneclick.with_component_self)
            f"{r['component']}'s own failure on {', '.join(r['hosts']) or 'the input'}" for r in own)
    root = d.get("root") or {}
    chip = f" (chip {root['chip']})" if root.get("chip") is not None and root.get("device") is not None else ""
    if root.get("die") is not None and root.get("device") is not None:  # an A3 die (session 37)
        chip = f" die {root['die']} (logical device {root['logic_id']})"
    where = ", ".join(f"{'switch' if k == 'host' and root.get('switch') else k} {root[k]}" for k in ("host", "device")
                      if root.get(k) is not None) + chip or root.get(
        "name") or d.get("component") or NO_PLACE
    if led_by_symptoms(d):  # found, but no signal and no class: an exporter page's node summary (session 43)
        return symptoms_headline(d)
    if found_nothing(d):
        named = "" if where == NO_PLACE else f" (the input names {where})"
        return f"diagnosis: no fault found{named}"  # not "unknown at device 0" for a healthy npu-smi table
    low = d["fault_class"] != "unknown" and d["confidence"] < bar
    return (f"diagnosis: {d['fault_class']} at {where} (confidence {d['confidence']:.2f}"
            + (f", below the {bar:.2f} answer bar: confirm before acting" if low else "") + ")"
            + (f", runbook {d['runbook']}" + (" once confirmed" if low else "") if d.get("runbook") else ""))


def _natural(s: str) -> list[Any]:
    """``n2`` before ``n10``."""
    import re

    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", s)]
