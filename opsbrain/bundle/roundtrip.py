"""The round trip of a bundle the twin wrote (split out of :mod:`opsbrain.bundle.diagnose` in session 43): the
bundle diagnosed, its incidents compared with the controller incidents the simulation recorded."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from opsbrain.bundle import layout as L
from opsbrain.bundle.diagnose import diagnose_bundle


def compare(report: dict[str, Any], expected: Iterable[tuple[Any, ...]], slack_s: float = 2.0
            ) -> list[dict[str, Any]]:
    """For each expected incident (opened at s, class, component[, diagnosed at s]) of the simulation, the bundle
    incident opened within ``slack_s`` of it (the most signals among them) and whether class and component agree.
    Where none opened then, a bundle incident of the same class and component open at some time from the opening to
    the diagnosis (its first and last signals around it) holds it: the live controller closes an incident when its
    recovery runs and opens another when the fault shows again, while the bundle, which holds no recovery, keeps one
    incident over both; and the live controller may open an incident on a job event of the scheduler (a stall at the
    instant it starts), which no bundle holds, while the bundle opens it at the first line that shows the fault (the
    peers' notify-wait reports, ``faults.peer_timeout_report_s`` later)."""
    out = []
    incs = report.get("incidents", [])
    for at, cls, comp, *rest in expected:
        until = max(at, float(rest[0])) if rest and rest[0] is not None else at
        near = [i for i in incs if abs(i["opened_at_s"] - at) <= slack_s] or [
            i for i in incs
            if i["opened_at_s"] - slack_s <= until and at <= i.get("last_at_s", i["opened_at_s"]) + slack_s
            and ((i.get("diagnosis") or {}).get("fault_class"), (i.get("diagnosis") or {}).get("component")) == (
                cls, comp)]
        best = max(near, key=lambda i: i["signals"], default=None)
        d = (best or {}).get("diagnosis") or {}
        out.append({"at_s": at, "expected": [cls, comp], "got": [d.get("fault_class"), d.get("component")],
                    "bundle_incident": best["id"] if best else None,
                    "same": best is not None and d.get("fault_class") == cls and d.get("component") == comp})
    return out


def check_bundle(path: str | Path, engine: Any, matcher: Any = None, params: L.BundleParams | None = None
                 ) -> dict[str, Any]:
    """Round trip: diagnose a bundle the twin wrote and compare every controller incident its sidecar records
    (:func:`opsbrain.bundle.writer.sim_sidecar`; older bundles: their manifest)
    (opened at, class, component in the simulation) with the bundle's own incidents (:func:`compare`). Incidents
    a health sweep opened from metrics (not from log lines), and those the scheduler's job events alone opened and
    held (a bundle holds no job events: no program prints the twin's), are listed apart: a bundle cannot show
    them."""
    from opsbrain.bundle.writer import sim_sidecar
    from opsbrain.yamlio import json_or_none

    rep = diagnose_bundle(path, engine, matcher, params)
    side = sim_sidecar(path)
    ok, doc = json_or_none(side.read_text(encoding="utf-8")) if side.is_file() else (False, None)
    info, source = (doc, side.name) if ok and isinstance(doc, dict) else (rep.get("manifest") or {}, "manifest")
    sim = (info.get("incident") or {}).get("in_simulation") or {}
    ctl = sim.get("controller_incidents", [])
    expected = [(float(c["opened_at_s"]), (c.get("diagnosis") or {}).get("fault_class"),
                 (c.get("diagnosis") or {}).get("component"), (c.get("diagnosis") or {}).get("at_s"))
                for c in ctl if c.get("diagnosis") and not c.get("sweep") and not c.get("scheduler")]
    rows = compare(rep, expected)
    return {"bundle": str(path), "comparisons": rows, "same": all(r["same"] for r in rows), "report": rep,
            "expectation": source if "in_simulation" in (info.get("incident") or {}) else None,  # (None: nothing to
            # compare: a bundle without its sidecar; its manifest holds no expectation since session 32)
            "sweep_incidents": [c["id"] for c in ctl if c.get("sweep")],
            "scheduler_incidents": [c["id"] for c in ctl if c.get("scheduler")]}
