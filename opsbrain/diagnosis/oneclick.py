"""One-click diagnosis of pasted logs or an exported incident file (``opsbrain diagnose``)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from opsbrain.diagnosis.engine import Engine
from opsbrain.diagnosis.signals import Signal, parse_line
from opsbrain.diagnosis.text import read_text, signals_from_text
from opsbrain.diagnosis.types import UNKNOWN, Diagnosis
from opsbrain.errors import InputError


def _knowledge(lines: list[str], matcher: Any) -> list[dict[str, Any]]:
    """What the knowledge base (and imported vendor knowledge) says about the lines, most frequent first."""
    if matcher is None:
        return []
    seen: Counter[tuple[Any, ...]] = Counter()
    info: dict[tuple[Any, ...], dict[str, Any]] = {}
    for line in lines[:20_000]:
        for m in matcher.match(line):
            key = (m.source, m.class_id, m.entry_id, m.code)
            seen[key] += 1
            info.setdefault(key, {"source": m.source, "class": m.class_id, "entry": m.entry_id, "code": m.code,
                                  "handling": m.handling, "cause": m.cause, "suggestion": m.suggestion})
    return [{**info[k], "lines": n} for k, n in seen.most_common(10)]


def diagnose_signals(engine: Engine, signals: list[Signal], stats: dict[str, Any], lines: list[str],
                     matcher: Any = None) -> dict[str, Any]:
    now = max((s.t for s in signals), default=0.0)
    if signals:
        d = engine.diagnose_signals(signals, now)
    else:
        d = Diagnosis(UNKNOWN, None, 0.0, [f"no known fault signal in {stats.get('lines', 0)} lines; escalate"], now)
    knowledge = _knowledge(lines, matcher)
    if d.abstained and knowledge:
        d.evidence.append("the knowledge base recognises: " + "; ".join(
            f"{k['code'] or k['entry']}: {k['cause']}" for k in knowledge[:3]))
    return {"diagnosis": d.as_dict(), "input": stats, "knowledge": knowledge}


def diagnose_logs(path: str, engine: Engine, matcher: Any = None) -> dict[str, Any]:
    text = read_text(path)
    signals, stats = signals_from_text(text)
    return diagnose_signals(engine, signals, stats, text.splitlines(), matcher) | {"file": path}


def diagnose_incident_file(path: str, engine: Engine, matcher: Any = None) -> dict[str, Any]:
    """An exported incident: JSON ``{"lines": [{"t", "origin", "source", "level", "text"} | "text", ...]}``."""
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg} (line {exc.lineno})", file=path) from None
    lines = data.get("lines") if isinstance(data, dict) else data
    if not isinstance(lines, list):
        raise InputError("expected an object with a 'lines' list", file=path, path="lines")
    signals: list[Signal] = []
    texts: list[str] = []
    for i, item in enumerate(lines):
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise InputError("each line must be a string or an object with a 'text' string", file=path,
                             path=f"lines[{i}]")
        t = item.get("t", 0.0)
        if not isinstance(t, int | float):
            raise InputError("t must be a number of seconds", file=path, path=f"lines[{i}].t")
        texts.append(item["text"])
        signals.extend(parse_line(item["text"], float(t), item.get("origin"), item.get("source"), item.get("level")))
    stats = {"lines": len(lines), "signals": len(signals)}
    return diagnose_signals(engine, signals, stats, texts, matcher) | {"file": str(Path(path))}
