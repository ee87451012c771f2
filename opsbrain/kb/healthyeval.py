"""False alarms on real healthy logs: excerpts of runs that went well (tests/data/healthy_logs/*.yaml; lines copied
from public sources that show normal operation, each with its source and why it is healthy), diagnosed as
``diagnose --logs -`` would. Every answer other than an abstention is a false alarm; one at confidence >= 0.8 a
confident false alarm. The failure corpus' ``other`` label (no class of ours fits a failure) is another matter: these
excerpts hold no failure at all."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path
from typing import Any

from opsbrain.kb.realeval import CONFIDENT, read_excerpts

KEYS = ("id", "source", "program", "basis", "text")


def default_healthy_dir() -> Path | None:
    here = Path(__file__).resolve().parents[2] / "tests" / "data" / "healthy_logs"
    return here if here.is_dir() else None


def load_healthy(root: Path) -> list[dict[str, Any]]:
    """The excerpts of every ``*.yaml`` in ``root`` (or the one file), checked: each a mapping with :data:`KEYS`,
    non-empty string values, ids unique."""
    return [{**e, "file": f.name} for f, _i, e in read_excerpts(root, KEYS, KEYS)]


def evaluate_healthy(engine: Any, matcher: Any, root: Path) -> dict[str, Any]:
    """Per excerpt the class and confidence the diagnosis gives; the false-alarm counts, overall and per program."""
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.verdict import UNKNOWN

    rows = []
    for e in load_healthy(root):
        d = diagnose_logs("-", engine, matcher, stdin=io.BytesIO(str(e["text"]).encode("utf-8")))["diagnosis"]
        rows.append({"id": e["id"], "program": e["program"], "predicted": d["fault_class"],
                     "confidence": d["confidence"], "alarm": d["fault_class"] != UNKNOWN})
    alarms = [r for r in rows if r["alarm"]]
    by_program: dict[str, Counter[str]] = {}
    for r in rows:
        by_program.setdefault(str(r["program"]), Counter())["n"] += 1
        by_program[str(r["program"])]["alarms"] += r["alarm"]
    n = len(rows)
    return {"corpus": str(root), "n": n, "false_alarms": len(alarms),
            "false_alarm_rate": round(len(alarms) / n, 4) if n else None,
            "confident_false_alarms": sum(r["confidence"] >= CONFIDENT for r in alarms),
            "by_class": dict(Counter(r["predicted"] for r in alarms).most_common()),
            "by_program": {p: dict(c) for p, c in sorted(by_program.items())}, "rows": rows}
