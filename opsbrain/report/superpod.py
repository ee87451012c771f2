"""The report of a superpod-operations run (issue 21): the block's bounds, its figures, and one page per tenant.

A tenant's page lists its incidents (raised by its telemetry; what was injected, the engine's diagnosis, the
outcome), the actions they ran, the steps the scope guard refused, the actions any incident ran on its own slice
from outside, the SLO attainment of its service per seed, its blast radius (components out of service) and its
EMS namespace reads. Markdown, HTML or JSON (the model).
"""

from __future__ import annotations

import html
from typing import Any

from faultlib import ids
from opsbrain.ops.tenant_run import TENANT_NODES
from opsbrain.report.response import step_kind


def is_superpod(journal: dict[str, Any]) -> bool:
    return isinstance(journal.get("superpod"), dict)


def _pct(vals: list[float]) -> dict[str, Any]:
    if not vals:
        return {"n": 0, "p50": None, "min": None}
    s = sorted(vals)
    return {"n": len(s), "p50": s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2,
            "min": s[0]}


def _slice_owner(target: str) -> str | None:
    """The tenant whose slice (as set up) holds ``target``'s node; None for spares and the shared fabric."""
    node = ids.node_of(target) if target else None
    if node is None or ids.pod_of(node) != "pod0":
        return None
    k = int(node.rsplit("node", 1)[1])
    return next((t for t, rng in TENANT_NODES.items() if k in rng), None)


def _did(i: dict[str, Any]) -> list[dict[str, Any]]:
    """The incident's actions that did something (not watching, paging, skipped, nor the guard's refusals)."""
    return [a for a in i.get("actions", []) if step_kind(a) == "taken"]


def _tenant_page(name: str, incidents: list[dict[str, Any]], runs: list[dict[str, Any]]) -> dict[str, Any]:
    mine = [i for i in incidents if i.get("tenant") == name]
    acted = [{"incident": i["id"], **{k: a.get(k) for k in ("action", "target", "status", "start_s")}}
             for i in mine for a in _did(i)]
    from_outside = [{"incident": i["id"], "incident_tenant": i.get("tenant"), "action": a.get("action"),
                     "target": t} for i in incidents if i.get("tenant") != name for a in _did(i)
                    for t in str(a.get("target") or "").split(",") if _slice_owner(t) == name]
    return {
        "tenant": name,
        "incidents": [{"id": i["id"], "seed": i.get("seed"), "injected": i.get("injected"),
                       "diagnosis": {k: (i.get("diagnosis") or {}).get(k) for k in ("fault_class", "component",
                                                                                      "confidence")},
                       # the actions that did something, as the actions table and its total (session 36: every log
                       # entry, a guard's refusal or a page included, so the column did not add up to the total)
                       "correct": i.get("correct"), "outcome": i.get("outcome"), "actions": len(_did(i))}
                      for i in mine],
        "actions": acted,
        # named by the journal's incident id (session 36: the campaign's own, i0002, which every seed has)
        "refused": [{**r, "incident": i["id"]} for i in mine for r in i.get("refused", [])],
        "actions_from_outside": from_outside,
        "slo_attainment": _pct([r["slo_attainment"][name] for r in runs if name in r.get("slo_attainment", {})]),
        "blast_radius": {"per_seed": [len(r["out_of_service"].get(name, [])) for r in runs],
                         "components": sorted({c for r in runs for c in r["out_of_service"].get(name, [])})},
        "ems_reads": sum(r["ems_reads"].get(name, 0) for r in runs),
    }


def build_superpod_report(journal: dict[str, Any]) -> dict[str, Any]:
    sp = journal["superpod"]
    tenants = []
    for k, block in enumerate(sp.get("tenants", [])):
        incs = [i for i in journal.get("incidents", []) if str(i.get("id", "")).startswith(f"t{k}-")]
        tenants.append({"random_faults": block.get("random_faults"),
                        "pages": [_tenant_page(t, incs, block.get("runs", [])) for t in TENANT_NODES]})
    return {"kind": "superpod", "scenario": journal.get("scenario"), "run_id": journal.get("run_id"),
            "verdict": journal.get("verdict"), "seeds": sp.get("seeds", []),
            "expectations": [e for e in journal.get("expectations", []) if str(e.get("check", "")).startswith(
                "superpod.")],
            "elastic": sp.get("elastic", []), "schedule": sp.get("schedule", []), "tenants": tenants}


def _f(v: Any, digits: int = 0) -> str:
    """A value for a table cell: "-" for none, a float to ``digits``, a mapping as ``name value, ...`` and a list
    joined by commas (never a Python repr)."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    if isinstance(v, dict):
        return ", ".join(f"{k} {_f(x, digits)}" for k, x in v.items()) or "-"
    if isinstance(v, (list, tuple)):
        return ", ".join(_f(x, digits) for x in v) or "-"
    return str(v)


def _what(d: dict[str, Any] | None) -> str:
    """``kind component`` of an injected fault or a diagnosis."""
    d = d or {}
    return f"{d.get('kind') or d.get('fault_class') or '-'} {d.get('component') or ''}".strip()


def _tables(m: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of every table of the report, for both renderers."""
    out: list[tuple[str, list[str], list[list[str]]]] = []
    out.append(("Bounds", ["check", "value", "bound", "met", "problem"],
                [[e["check"], _f(e.get("value"), 4), e.get("bound", ""),
                  {True: "yes", False: "NO"}.get(e["met"], "not judged"),  # session 36: an unjudged bound read NO
                  "; ".join(e.get("problems") or e.get("unjudged") or [])] for e in m["expectations"]]))
    for e in m["elastic"]:
        rows = [[pol, _f(e[pol]["slo_attainment"]["min"], 4), _f(e[pol]["slo_attainment"]["p50"], 4),
                 _f(e[pol]["time_to_slo_after_fault_s"]["p90"]), _f(e[pol]["tokens_per_s_per_npu"]["p50"], 1),
                 _f(e[pol]["npu_hours_allocated"]["p50"])] for pol in ("autoscale", "static-peak", "static-paper")
                if pol in e]
        out.append((f"Elastic serving, demand x{e['demand_scale']:g}",
                    ["policy", "SLO min", "SLO p50", "time to SLO p90 s", "tok/s/NPU p50", "NPU-h p50"], rows))
        refusals = [[pol, str(x["seed"]), x["role"], x["reason"], _f(x["first_s"]), _f(x["last_s"]), str(x["times"]),
                     x.get("detail", "")] for pol in ("autoscale",) if pol in e for x in e[pol].get("refusals", [])]
        if refusals:  # session 37: the autoscaler's refused scale-ups, with their reasons
            out.append((f"Autoscaler refusals, demand x{e['demand_scale']:g}",
                        ["policy", "seed", "role", "reason", "from s", "until s", "decisions", "detail"], refusals))
    for s in m["schedule"]:
        keys = ("node_switch_s", "to_training_s", "to_inference_s", "whole_switch_s", "training_node_ready_s")
        rows = [[k, _f(s[k]["p50"]), _f(s[k]["p90"]), _f(s[k]["max"])] for k in keys if k in s]
        if "faulted" in s:  # the same seeds without the faults, and what the mid-switch faults cost
            f = s["faulted"]
            rows += [[label, _f(v["p50"]), _f(v["p90"]), _f(v["max"])] for label, v in (
                ("without the injected faults", s["fault_free_node_switch_s"]),
                ("faulted node's fault domain", f["fault_domain_node_switch_s"]),
                ("other nodes of faulted switches", f["outside_domain_node_switch_s"]),
                ("faulted slot working again after the fault", f["slot_working_after_fault_s"]))]
        rows.append(["hand-backs on time", f"{s['handbacks_on_time']}/{s['handbacks']}", "", ""])
        rows.append(["failed switches / retries", f"{len(s['failed_switches'])} / {s['retries']}", "", ""])
        out.append((f"Day/night switch, demand x{s['demand_scale']:g}, {s.get('operation', 'sequential')}",
                    ["per node", "p50", "p90", "max"], rows))
    for block in m["tenants"]:
        for p in block["pages"]:
            t = p["tenant"]
            head = f"Tenant {t} ({block['random_faults']} random faults/seed on a)"
            slo, br = p["slo_attainment"], p["blast_radius"]
            out.append((head, ["figure", "value"], [
                ["incidents raised by its telemetry", str(len(p["incidents"]))],
                ["actions run by its incidents", str(len(p["actions"]))],
                ["steps refused by the scope guard", str(len(p["refused"]))],
                ["actions on its slice by other tenants' incidents", str(len(p["actions_from_outside"]))],
                ["SLO attainment (min / p50 over seeds)", f"{_f(slo['min'], 4)} / {_f(slo['p50'], 4)}"],
                ["blast radius: components out of service, per seed", ", ".join(map(str, br["per_seed"])) or "-"],
                ["EMS reads of its namespace", str(p["ems_reads"])]]))
            if p["incidents"]:
                out.append((f"Tenant {t}: incidents", ["incident", "injected", "diagnosis", "correct", "outcome",
                                                      "actions"],
                            [[i["id"], _what(i["injected"]), _what(i["diagnosis"]), "yes" if i["correct"] else "no",
                              str(i["outcome"]), str(i["actions"])] for i in p["incidents"]]))
            if p["actions"]:
                out.append((f"Tenant {t}: actions", ["incident", "action", "target", "status"],
                            [[a["incident"], str(a["action"]), str(a["target"]), str(a["status"])]
                             for a in p["actions"]]))
            if p["refused"]:
                out.append((f"Tenant {t}: refused steps", ["incident", "action", "target", "reason"],
                            [[r["incident"], r["action"], r["target"], r["reason"]] for r in p["refused"]]))
    return out


def _title(m: dict[str, Any]) -> str:
    seeds = m["seeds"]
    span = f"seeds {seeds[0]}..{seeds[-1]}" if seeds else "no seeds"
    return f"{m['scenario']}: superpod operations, {span}, verdict {str(m['verdict']).upper()}"


def render_md(m: dict[str, Any]) -> str:
    lines = [f"# {_title(m)}", ""]
    if m.get("run_id"):
        lines += [f"Run `{m['run_id']}`.", ""]
    for title, head, rows in _tables(m):
        lines += [f"## {title}", "", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
        lines.append("")
    return "\n".join(lines)


def render_html(m: dict[str, Any]) -> str:
    e = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'>", f"<title>{e(_title(m))}</title>",
             "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:1.5em}"
             "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#eee}</style></head><body>",
             f"<h1>{e(_title(m))}</h1>"]
    if m.get("run_id"):
        parts.append(f"<p>Run <code>{e(m['run_id'])}</code>.</p>")
    for title, head, rows in _tables(m):
        tag = "h2" if title.startswith(("Bounds", "Elastic", "Day")) or ":" not in title else "h3"
        parts.append(f"<{tag}>{e(title)}</{tag}><table><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr>")
        parts += ["<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows]
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
