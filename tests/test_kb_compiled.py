"""The compiled knowledge base (opsbrain.kb.compiled) equals what the pydantic-loaded knowledge base gives, is
rebuilt when its key changes, and a diagnosis imports neither pydantic, PyYAML nor numpy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from opsbrain.diagnosis.knowledge import KindTable, default_params, load_vendor_rules, raw_vendor_rules
from opsbrain.diagnosis.params import DiagnosisParams
from opsbrain.ingest.parsers.messages import catalog, messages_of
from opsbrain.kb import compiled
from opsbrain.kb.loader import load_kb
from opsbrain.kb.matcher import SignatureMatcher
from opsbrain.kb.training import kb_hash
from opsbrain.yamlio import read_package_yaml

ROOT = Path(__file__).resolve().parents[1]


def test_compiled_equals_the_validated_knowledge_base(tmp_path: Path) -> None:
    ckb = compiled.compiled_kb(tmp_path)
    kb = load_kb()
    assert ckb.kb_hash == kb_hash()
    assert ckb.ids() == kb.ids()
    assert ckb.kind_roles == KindTable.from_kb(kb).roles
    assert ckb.messages == messages_of(read_package_yaml(ROOT / "knowledge_base" / "codes.yaml"))
    assert ckb.messages == catalog()[1]
    assert ckb.vendor_rules == raw_vendor_rules()
    assert [(r.cls, r.category) for r in load_vendor_rules()] == [(r["class"], r.get("category"))
                                                                 for r in raw_vendor_rules()]
    want = DiagnosisParams()
    got = default_params()
    assert (got.min_confidence, got.max_novelty) == (want.min_confidence, want.max_novelty)
    assert vars(got.vote) == want.vote.model_dump()
    for fc in kb:
        plain = ckb.classes[fc.id]
        assert [(f, s.code, s.meaning, s.role) for f, s in plain.signatures.codes()] == \
            [(f, s.code, s.meaning, s.role) for f, s in fc.signatures.codes()]
        assert [(p.pattern, p.meaning, p.role) for p in plain.signatures.log_patterns] == \
            [(p.pattern, p.meaning, p.role) for p in fc.signatures.log_patterns]
        assert (plain.title, plain.handling, plain.suggestion, plain.runbook) == \
            (fc.title, fc.handling, fc.suggestion, fc.runbook)


def _real_lines() -> list[str]:
    import yaml

    out: list[str] = []
    for f in sorted((ROOT / "tests" / "data" / "real_logs").glob("*.yaml")):
        for e in yaml.safe_load(f.read_text(encoding="utf-8")):
            out.extend(str(e["text"]).splitlines())
    return out


def test_the_matcher_of_the_compiled_kb_matches_as_the_loaded_one(tmp_path: Path) -> None:
    from opsbrain.kb.importers import import_faultcode, import_kg, load_imported

    real = ROOT.parent / "shared" / "reference" / "vendor"  # the public files when present, else the fixtures
    small = ROOT / "tests" / "fixtures" / "vendor_small"
    kg, fc = ((real / "kg-config.json", real / "faultCode.json") if (real / "kg-config.json").exists()
              else (small / "kg_good.json", small / "faultcode_good.json"))
    import_kg(kg, tmp_path / "kb_imports")
    import_faultcode(fc, tmp_path / "kb_imports")
    imported = load_imported(tmp_path / "kb_imports")
    lines = _real_lines()
    assert len(lines) > 300
    a = SignatureMatcher(load_kb(), imported).match_lines(lines)
    b = SignatureMatcher(compiled.compiled_kb(tmp_path), imported).match_lines(lines)
    assert a == b
    assert sum(1 for m in a if m) > 20  # the corpus exercises the matcher
    assert any(x.source == "kb" for m in a for x in m)


def test_the_cache_is_written_once_and_rebuilt_when_its_key_differs(tmp_path: Path) -> None:
    path = compiled.cache_path(tmp_path)
    compiled._load.cache_clear()
    compiled.compiled_kb(tmp_path)
    doc = json.loads(path.read_text())
    assert doc["key"] == compiled.content_key()
    doc["key"] = "stale"
    doc["kb_hash"] = "not-this-one"
    path.write_text(json.dumps(doc))
    compiled._load.cache_clear()
    assert compiled.compiled_kb(tmp_path).kb_hash == kb_hash()  # stale: compiled again
    assert json.loads(path.read_text())["key"] == compiled.content_key()
    path.write_text("{not json")
    compiled._load.cache_clear()
    assert compiled.compiled_kb(tmp_path).kb_hash == kb_hash()


def test_the_key_follows_the_knowledge_base_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    kb = tmp_path / "knowledge_base"
    shutil.copytree(ROOT / "knowledge_base", kb, ignore=shutil.ignore_patterns("model", "__pycache__"))
    monkeypatch.setattr(compiled, "_kb_dir", lambda: kb)
    compiled.content_key.cache_clear()
    try:
        k1 = compiled.content_key()
        (kb / "codes.yaml").write_text((kb / "codes.yaml").read_text() + "\n# an edit\n")
        compiled.content_key.cache_clear()
        assert compiled.content_key() != k1
    finally:
        compiled.content_key.cache_clear()


def test_an_unwritable_cache_is_compiled_in_memory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "cache").write_text("a file where the cache directory would be")
    compiled._load.cache_clear()
    assert compiled.compiled_kb(home).kb_hash == kb_hash()


def test_a_logs_diagnosis_imports_no_pydantic_yaml_numpy_or_simulator(tmp_path: Path) -> None:
    code = ("import sys, io\n"
            "from opsbrain.cli import main\n"
            "sys.stdin = io.TextIOWrapper(io.BytesIO(b'[ERROR] RUNTIME(1,python):2024-03-11-02:22:34.958.800 "
            "rtKernelLaunch failed: 507053\\n'))\n"
            "try:\n    main(['diagnose', '--logs', '-'])\nexcept SystemExit:\n    pass\n"
            "top = ('pydantic', 'yaml', 'numpy', 'pandas', 'sklearn', 'scipy')\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in top "
            "or m in ('faultlib.params', 'faultlib.telemetry.hub', 'opsbrain.kb.loader', 'opsbrain.kb.schema'))\n"
            "print('IMPORTED', bad)\n")
    env = {"OPSBRAIN_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)  # compiles
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False).stdout
    assert "diagnosis:" in out and "IMPORTED []" in out, out


def test_screen_plans_are_pruned_to_the_ones_used_last(tmp_path: Path) -> None:
    import os

    from opsbrain.kb.compiled import SCREEN_PLANS_KEPT, screen_memo

    cache = tmp_path / "cache"
    keys = [f"{i:02d}" + "0" * 62 for i in range(SCREEN_PLANS_KEPT + 4)]
    for n, key in enumerate(keys):
        assert screen_memo(key, lambda n=n: {"n": n}, home=tmp_path) == {"n": n}
        path = cache / f"screen-{key[:32]}.json"
        os.utime(path, ns=(n * 10**9, n * 10**9))  # written in this order, one second apart
    plans = sorted(p.name for p in cache.glob("screen-*.json"))
    assert len(plans) == SCREEN_PLANS_KEPT  # the oldest were removed as new ones were written
    assert f"screen-{keys[0][:32]}.json" not in plans and f"screen-{keys[-1][:32]}.json" in plans
    oldest_kept = keys[len(keys) - SCREEN_PLANS_KEPT]
    assert screen_memo(oldest_kept, lambda: {"n": -1}, home=tmp_path) != {"n": -1}  # read from the cache, and
    screen_memo("ff" + "0" * 62, lambda: {"n": 99}, home=tmp_path)  # so kept when the next new plan is written
    names = {p.name for p in cache.glob("screen-*.json")}
    assert f"screen-{oldest_kept[:32]}.json" in names and len(names) == SCREEN_PLANS_KEPT


def test_the_second_diagnosis_finds_every_screen_plan_the_first_wrote(tmp_path: Path) -> None:
    """The first process after the knowledge base is compiled read the documented messages in codes.yaml's order, the
    next ones in the cache's (sorted): the messages' regex, and so the parsers' screen plan key, differed, and the
    second process built and wrote that plan again."""
    import os

    env = {**os.environ, "OPSBRAIN_HOME": str(tmp_path)}
    text = "[ERROR] RUNTIME(1,python):2024-03-11-02:22:34.958.800 rtKernelLaunch failed: 507053\n"
    plans = []
    for _run in range(2):
        subprocess.run([sys.executable, "-m", "opsbrain", "diagnose", "--logs", "-"], input=text, capture_output=True,
                       text=True, env=env, check=True)
        plans.append(sorted(p.name for p in (tmp_path / "cache").glob("screen-*.json")))
    assert plans[0] and plans[1] == plans[0]


def test_the_gate_translations_are_kept_and_equal_the_computed_ones(tmp_path: Path) -> None:
    """The RE2 translations of the line gate and the documented messages are computed once and kept beside the
    screen plans (keyed by the patterns and the translator's code): what a later process reads is what it would
    compute."""
    import os
    import re

    from opsbrain.ingest.parsers import GATE, messages
    from opsbrain.multiscan import re2_superset, superset_key

    assert superset_key([GATE]) != superset_key([re.compile(GATE.pattern + "|x", GATE.flags)])
    env = {**os.environ, "OPSBRAIN_HOME": str(tmp_path)}
    subprocess.run([sys.executable, "-m", "opsbrain", "diagnose", "--logs", "-"], input="RuntimeError: x\n",
                   capture_output=True, text=True, env=env, check=True)
    (kept,) = (tmp_path / "cache").glob("screen-re2-superset-*.json")
    rx = messages.catalog()[0]
    pats = [GATE] + ([rx.rx] if rx is not None else [])
    assert json.loads(kept.read_text(encoding="utf-8"))["plan"]["extras"] == [
        re2_superset(p) or "(?i)" + p.pattern for p in pats]


def test_the_kb_hash_covers_the_code_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a code table's message templates are read as codes (features of the model): editing one makes the model stale
    import shutil

    from opsbrain.kb import training

    real = Path(str(training.resources.files("knowledge_base")))
    copy = tmp_path / "knowledge_base"
    shutil.copytree(real, copy)
    monkeypatch.setattr(training.resources, "files", lambda pkg: copy if pkg == "knowledge_base" else real)
    before = training.kb_hash()
    table = copy / "code_tables" / "ge_error_codes.yaml"
    table.write_text(table.read_text().replace("is invalid", "is not valid", 1))
    assert training.kb_hash() != before
