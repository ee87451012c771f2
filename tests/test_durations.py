"""Durations on the recovery paths: distributions drawn per seed, sourced in the parameter tree, never bare literals.

Two walks: the parameter tree (every duration parameter of the groups on a recovery or detection path is a
distribution with a source, or a configured fixed value whose source says so), and the action code (AST: no
numeric literal other than 0 is used as a duration: a ``timeout``/``_after``/``_schedule`` delay, a ``*_s``
keyword, a ``*_s`` assignment, or the duration argument of a control action).
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faultlib.durations import Z90, Dist, Durations, at_medians
from faultlib.engine import Simulation
from faultlib.params import iter_params
from faultlib.simparams import SimParams

ROOT = Path(__file__).resolve().parents[1]
RECOVERY_GROUPS = ("control", "delivery", "training", "inference")
"""Parameter groups whose durations lie on a detection or recovery path."""
CONFIGURED = ("timeout", "wait", "poll", "interval", "every", "holdtime", "intervaltime", "window", "hold-down",
              "checkpoint", "hourly", "young/daly", "slo", "target", "admission", "mindcluster")
"""Words by which a fixed (non-distribution) duration's source says it is a configured value, not a measured one."""
ACTION_CODE = ("faultlib/control.py", "faultlib/telemetry/delivery.py", "opsbrain/detection/detector.py",
               "opsbrain/detection/anchors.py",
               *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "faultlib" / "workloads").glob("*.py")),
               "opsbrain/detection/watchdog.py", "opsbrain/controller.py",
               *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "opsbrain" / "recovery").glob("*.py")))
SETTING_SOURCES = ("reason:", "facts.md", "mindcluster", "cann", "arxiv", "nvsentinel")
"""How the source of one of the controller's own settings shows it was chosen for a reason or taken from a citation."""
DELAY_CALLS = {"timeout", "_after", "_schedule", "_action", "_wrap", "defer"}


def _numeric_literal(node: ast.AST) -> float | None:
    """The value of a numeric literal (also ``-x``), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _numeric_literal(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def bare_duration_literals(source: str, filename: str) -> list[str]:
    """``file:line`` of every nonzero numeric literal used as a duration in ``source``."""
    out: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        hits: list[ast.AST] = []
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if name in DELAY_CALLS:
                hits += [a for a in node.args if _numeric_literal(a) not in (None, 0.0)][:1] if name in (
                    "timeout", "_after", "_schedule") else [a for a in node.args[2:4] if _numeric_literal(a)
                                                           not in (None, 0.0)]
            hits += [k.value for k in node.keywords if k.arg and k.arg.endswith("_s")
                     and _numeric_literal(k.value) not in (None, 0.0)]
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else ""
                     for t in targets]
            if node.value is not None and any(n.endswith("_s") and n.isidentifier() and not n.isupper()
                                              for n in names) and _numeric_literal(node.value) not in (None, 0.0):
                hits.append(node.value)
        out += [f"{filename}:{getattr(h, 'lineno', '?')}" for h in hits]
    return out


def test_no_bare_duration_literal_in_the_action_code() -> None:
    found = [hit for rel in ACTION_CODE for hit in bare_duration_literals((ROOT / rel).read_text(), rel)]
    assert not found, f"numeric literals used as durations (make them sourced parameters): {found}"


@pytest.mark.parametrize("code", ["yield env.timeout(10.0)", "self._after(30, self._cb)",
                                  "x = api._wrap('restart', job, 0.03, 30.0, body)", "launch_s = 90.0",
                                  "self._schedule(2.5, fn)", "run(fail_after_s=10)"])
def test_the_walker_catches_a_bare_duration(code: str) -> None:
    assert bare_duration_literals(code, "x.py"), code


@pytest.mark.parametrize("code", ["yield env.timeout(0)", "yield env.timeout(self.p.launch_s)",
                                  "self._after(max(0.0, delay), fn)", "x_s = self._draw('node_reboot_s')"])
def test_the_walker_passes_sourced_or_zero_delays(code: str) -> None:
    assert not bare_duration_literals(code, "x.py"), code


def test_every_recovery_path_duration_is_a_sourced_distribution_or_a_configured_value() -> None:
    bad = []
    for path, default, unit, source, _desc in iter_params(SimParams):
        if path.split(".", 1)[0] not in RECOVERY_GROUPS or unit != "s":
            continue
        if not source.strip():
            bad.append(f"{path}: no source")
        elif isinstance(default, Dist):
            if not default.p90 > default.median > 0:
                bad.append(f"{path}: no spread ({default})")
        elif not any(w in source.lower() for w in CONFIGURED):
            bad.append(f"{path}: a fixed {default} s whose source does not say it is a configured value")
    assert not bad, bad


def test_draws_are_seeded_per_stream_and_lognormal() -> None:
    d = Dist(median=30.0, p90=60.0)
    a, b, c = (Durations(Simulation(seed=s)) for s in (1, 1, 2))
    xa = [a.draw("x", d) for _ in range(4000)]
    assert xa[:50] == [b.draw("x", d) for _ in range(50)]  # same seed, same stream: same draws
    assert xa[:50] != [c.draw("x", d) for _ in range(50)]
    b2 = Durations(Simulation(seed=1))
    b2.draw("other", d)  # another stream's draw does not shift this one
    assert b2.draw("x", d) == xa[0]
    assert np.median(xa) == pytest.approx(30.0, rel=0.05) and np.quantile(xa, 0.9) == pytest.approx(60.0, rel=0.07)
    assert d.sigma == pytest.approx(math.log(2) / Z90)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.1, 1e5), st.floats(1.0, 10.0), st.integers(1, 2000))
def test_the_slowest_of_n_is_never_faster_than_one(median: float, ratio: float, n: int) -> None:
    d = Dist(median=median, p90=median * ratio)
    one, many = Durations(SimpleNamespace(seed=3)), Durations(SimpleNamespace(seed=3))  # type: ignore[arg-type]
    assert many.draw_max("x", d, n) >= one.draw("x", d) * (1 - 1e-12)  # the first of the n draws is the one draw


def test_at_medians_removes_every_spread() -> None:
    fixed = at_medians(SimParams())
    assert any(v.p90 > v.median for _p, v, *_ in iter_params(SimParams) if isinstance(v, Dist))  # the defaults spread
    for path, _d, *_ in iter_params(SimParams):
        value = fixed
        for part in path.split("."):
            value = getattr(value, part)
        if isinstance(value, Dist):
            assert value.p90 == value.median, path


def test_a_dist_rejects_p90_below_median_and_takes_a_number() -> None:
    with pytest.raises(ValueError):
        Dist(median=10.0, p90=5.0)
    assert Dist.model_validate(7) == Dist(median=7.0, p90=7.0)


def test_the_journal_shows_each_training_jobs_hccl_launch_configuration() -> None:
    from opsbrain import chaos
    from opsbrain.kb.training import load_engine
    from opsbrain.recovery.params import RecoveryParams
    from opsbrain.runner.run import run_plan

    rp = RecoveryParams()
    for policy, want in (("auto", f"MaxCnt:{rp.hccl_retry_max_cnt},HoldTime:{round(rp.hccl_retry_hold_s * 1000)},"
                                  f"IntervalTime:{round(rp.hccl_retry_interval_s * 1000)}"),
                         ("manual", "MaxCnt:1,HoldTime:5000,IntervalTime:1000")):  # CANN defaults
        plan = chaos.plan("hbm-uce-training", seed=3, policy=policy)
        plan.scenario = plan.scenario.model_copy(update={"spec": plan.scenario.spec.model_copy(
            update={"duration": 900})})
        j = run_plan(plan, load_engine())
        assert j["launch_config"]["train"]["HCCL_OP_RETRY_PARAMS"] == want, policy
        plan = chaos.plan("link-down-inference", seed=3, policy=policy)  # an inference service is launched alike
        plan.scenario = plan.scenario.model_copy(update={"spec": plan.scenario.spec.model_copy(
            update={"duration": 900})})
        j = run_plan(plan, load_engine())
        assert j["launch_config"]["serve"]["HCCL_OP_RETRY_PARAMS"] == want, policy


def controller_duration_problems() -> list[str]:
    """Unsourced durations of the controller's parameter groups. The auto policy's and the detector's fixed
    durations are its own settings (windows, holds, waits): each needs a reason or a citation. The baselines model
    people and another vendor's software: each duration is a sourced distribution (a Dist, or a ``*_median_s``
    with a sibling ``*_sigma`` > 0) or a configured value of that software."""
    from opsbrain.detection.detector import DetectorParams
    from opsbrain.recovery.params import ManualParams, RecoveryParams, VendorParams

    bad: list[str] = []
    for model, prefix in ((RecoveryParams, "recovery"), (ManualParams, "manual"), (VendorParams, "vendor"),
                          (DetectorParams, "detector")):
        rows = {p: (d, u, s) for p, d, u, s, _ in iter_params(model, prefix + ".")}
        for path, (default, unit, source) in rows.items():
            if unit != "s":
                continue
            sigma = rows.get(path.removesuffix("_median_s") + "_sigma") if path.endswith("_median_s") else None
            if not source.strip():
                bad.append(f"{path}: no source")
            elif isinstance(default, Dist):
                if not default.p90 > default.median > 0:
                    bad.append(f"{path}: no spread ({default})")
            elif sigma is not None:
                if not (sigma[0] > 0 and sigma[2].strip()):
                    bad.append(f"{path}: its spread {path.removesuffix('_median_s')}_sigma is 0 or unsourced")
            elif prefix in ("recovery", "detector") and "approval" not in path:
                if not any(w in source.lower() for w in SETTING_SOURCES):
                    bad.append(f"{path}: a setting of {default} s with neither a reason nor a citation")
            elif not any(w in source.lower() for w in CONFIGURED):
                bad.append(f"{path}: a fixed {default} s whose source does not say it is a configured value")
    return bad


def test_every_controller_duration_is_a_sourced_distribution_or_a_configured_value() -> None:
    bad = controller_duration_problems()
    assert not bad, bad
