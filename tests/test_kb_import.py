"""Vendor knowledge importers: MindCluster fault-level files and the ascend-fd knowledge graph.

Hand-written fixtures (tests/fixtures/vendor_small) always run; the real vendor files are used when the shared
reference directory is present (skipped otherwise) and are never copied into the repository.
"""

from __future__ import annotations

import json
import os
import random
import re
from datetime import datetime
from pathlib import Path

import pytest

from faultlib.telemetry import formats as fmt
from opsbrain.errors import KnowledgeBaseError
from opsbrain.kb import (
    SignatureMatcher,
    extract_codes,
    import_faultcode,
    import_kg,
    importers,
    kb_import,
    load_imported,
    load_kb,
)
from opsbrain.kb.importers import ImportedKnowledge, read_json

FIX = Path(__file__).parent / "fixtures" / "vendor_small"
VENDOR = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "vendor"
DT = datetime(2025, 3, 1, 10, 3, 20, 507053)


def vendor(name: str) -> Path:
    if not (VENDOR / name).is_file():
        pytest.skip(f"vendor reference file {name} not present")
    return VENDOR / name


@pytest.fixture(scope="module")
def kb():
    return load_kb()


# ---- fault-level files ------------------------------------------------------------------------------------------
def test_faultcode_import_levels_refusals_and_atomic_save(tmp_path: Path) -> None:
    r = import_faultcode(FIX / "faultcode_good.json", tmp_path)
    levels = {e["code"]: e["level"] for e in r.entries}
    assert levels["80E01801"] == "RestartBusiness" and levels["80E18402"] == "SeparateNPU"
    assert levels["8C204E00"] == "RestartBusiness"  # "0x8c204e00" normalised
    assert levels["110001024"] == "PreSeparateNPU"  # 9-digit codes exist in the real file
    assert levels["80E18401"] == "SubHealth"  # listed twice: the most severe level wins
    assert any("80E18401" in n and "kept SubHealth" in n for n in r.notes)
    assert r.imported == len(levels) == 13
    assert r.refused == 4
    assert r.refused_reasons["unknown level list 'MadeUpLevelCodes'"] == ["MadeUpLevelCodes[0]", "MadeUpLevelCodes[1]"]
    assert r.refused_reasons["not a string"] == ["RestartNPUCodes[2]"]
    assert len(r.refused_reasons["not a fault code (8-9 hex digits or [0xALARM,fault,peer,port])"]) == 1
    saved = Path(r.saved_to or "")
    assert saved.parent == tmp_path and json.loads(saved.read_text())["levels"] == levels
    assert [p.name for p in tmp_path.iterdir()] == [saved.name]  # no temporary file left behind
    again = import_faultcode(FIX / "faultcode_good.json", tmp_path)  # same file: replaced, not duplicated
    assert again.saved_to == r.saved_to and len(list(tmp_path.iterdir())) == 1
    json.dumps(r.as_dict())


def test_switch_fault_level_file(tmp_path: Path) -> None:
    r = import_faultcode(FIX / "faultcode_switch.json", tmp_path)
    levels = {e["code"]: e["level"] for e in r.entries}
    assert levels == {"[0x08520003,na,l2,na]": "NotHandle", "[0x00aa0001,1001,npu,na]": "SubHealth",
                      "[0x00aa0002,1002,cpu,na]": "RestartRequest", "[0x08520003,na,npu,na]": "SeparateNPU",
                      "[0x08520003,na,cpu,na]": "SeparateNPU"}
    assert r.refused == 0 and any("ResetFaultCodes" in n for n in r.notes)


@pytest.mark.parametrize("name,fn,path,reason", [
    ("not_json.json", import_faultcode, "line 1, column 1", "not valid JSON"),
    ("not_json.json", import_kg, "line 1, column 1", "not valid JSON"),
    ("faultcode_bad_shape.json", import_faultcode, "RestartBusinessCodes", "must be a list"),
    ("faultcode_no_levels.json", import_faultcode, "(top)", "no level list found"),
    ("kg_good.json", import_faultcode, "(top)", "no level list found"),
    ("kg_bad_shape.json", import_kg, "knowledge-repository", "must be an object of entries"),
    ("kg_missing_repository.json", import_kg, "(top)", "missing 'knowledge-repository'"),
    ("faultcode_good.json", import_kg, "(top)", "missing 'knowledge-repository'"),
])
def test_bad_files_name_file_and_json_path(tmp_path: Path, name: str, fn, path: str, reason: str) -> None:
    with pytest.raises(KnowledgeBaseError) as exc:
        fn(FIX / name, tmp_path)
    e = exc.value
    assert e.file == str(FIX / name) and e.path == path and reason in e.reason
    assert list(tmp_path.iterdir()) == []  # nothing saved


def test_hostile_paths_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(FIX / "kg_good.json")
    cases = {link: "symbolic link", tmp_path: "not a regular file", tmp_path / "missing.json": "no such file"}
    junk = tmp_path / "junk.json"
    junk.write_bytes(bytes(range(256)) * 4)
    cases[junk] = "not UTF-8"
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    cases[deep] = "nested too deeply"
    for p, reason in cases.items():
        for fn in (import_faultcode, import_kg):
            with pytest.raises(KnowledgeBaseError, match=reason):
                fn(p, tmp_path / "out")
    monkeypatch.setattr(importers, "MAX_IMPORT_BYTES", 100)
    with pytest.raises(KnowledgeBaseError, match="more than the 100 allowed") as exc:
        import_kg(FIX / "kg_good.json", tmp_path / "out")
    assert exc.value.file == str(FIX / "kg_good.json")
    assert read_json(FIX / "faultcode_switch.json", limit=10_000)["ResetFaultCodes"] == []


# ---- knowledge graph ----------------------------------------------------------------------------------------------
def test_kg_import_counts_and_groups_refusals(tmp_path: Path) -> None:
    r = import_kg(FIX / "kg_good.json", tmp_path)
    assert r.imported == 6 and r.refused == 9
    reasons = {k: sorted(v) for k, v in r.refused_reasons.items()}
    assert reasons["no log signature (raised by ascend-fd's own checks, not by a log line)"] == ["TEST_NO_SIGNATURE"]
    assert any(k.startswith("unsupported match rule 'all'") for k in reasons)
    assert any(k.startswith("unsupported match rule 'opt'") for k in reasons)
    assert reasons["'in' mixes substrings and groups"] == ["TEST_MIXED_IN"]
    assert reasons["'regex' has a nested quantifier (risk of catastrophic backtracking)"] == ["TEST_NESTED_QUANTIFIER"]
    assert reasons["'regex' does not compile"] == ["TEST_BAD_REGEX"]
    assert reasons["entry is not an object"] == ["TEST_NOT_AN_OBJECT"]
    assert reasons["no English cause or description"] == ["TEST_NO_TEXT"]
    assert any("empty substring" in k for k in reasons)
    ids = {e["id"]: e for e in r.entries}
    assert set(ids) == {"0x80E01801", "TEST_RUNTIME_UCE", "TEST_ORDERED", "TEST_REGEX", "0x81078603", "TEST_UNICODE"}
    assert ids["0x80E01801"]["code"] == "80E01801" and ids["0x80E01801"]["groups"] == 3
    assert ids["0x81078603"]["groups"] == 0  # a code-only entry: matched through its code
    assert kb_import("mindcluster-kg", FIX / "kg_good.json", tmp_path)["imported"] == 6
    with pytest.raises(KnowledgeBaseError, match="unknown import format 'csv'"):
        kb_import("csv", FIX / "kg_good.json", tmp_path)


@pytest.fixture
def imported(tmp_path: Path) -> ImportedKnowledge:
    import_kg(FIX / "kg_good.json", tmp_path)
    import_faultcode(FIX / "faultcode_good.json", tmp_path)
    import_faultcode(FIX / "faultcode_switch.json", tmp_path)
    return load_imported(tmp_path)


def entry_matches(m: SignatureMatcher, line: str) -> dict[str | None, object]:
    return {x.entry_id or x.code: x for x in m.match(line) if x.source == "imported"}


def test_imported_codes_and_patterns_explain_lines(kb, imported: ImportedKnowledge) -> None:
    assert len(imported.sources) == 3 and imported.levels["80E01801"] == "RestartBusiness"
    m = SignatureMatcher(kb, imported)
    # a code entry: matched by the code however the line spells it, with the imported level
    for line in (fmt.device_os_event(DT, 3, "80E01801"), fmt.device_plugin_fault(DT, 3, "80E01801", "RestartBusiness"),
                 "[ERROR] dev-os-3 fault_manager: event_id=0x80E01801, hbm"):
        hit = entry_matches(m, line)["0x80E01801"]
        assert hit.cause == "Test: uncorrectable HBM ECC error"
        assert hit.suggestion == "1. Isolate the damaged address. 2. Redo the step."
        assert hit.handling == "RestartBusiness" and hit.via == "code"
    # the knowledge base still answers next to the imports
    assert "hbm_uce" in {x.class_id for x in m.match(fmt.device_os_event(DT, 3, "80E01801"))}
    # substrings in order
    rt = entry_matches(m, fmt.plog_runtime_error(DT, 1, 2, 507053, 3))
    assert rt["TEST_RUNTIME_UCE"].cause == "Test: runtime saw a device memory error"
    assert rt["TEST_RUNTIME_UCE"].handling is None and rt["TEST_RUNTIME_UCE"].via == "pattern"
    assert "TEST_ORDERED" in entry_matches(m, "x alpha-marker y omega-marker z")
    assert "TEST_ORDERED" not in entry_matches(m, "x omega-marker y alpha-marker z")
    assert "TEST_ORDERED" not in entry_matches(m, "ALPHA-MARKER OMEGA-MARKER")  # case-sensitive, as ascend-fd
    # OR of groups; regex; another script; a code-only entry; an imported level without an entry
    assert "0x80E01801" in entry_matches(m, "hbm multi-bit ecc, uncorrectable")
    assert "TEST_REGEX" in entry_matches(m, fmt.syslog(DT, "pod0-node1", "qingtian: dpu card heartbeat lost"))
    assert "TEST_UNICODE" in entry_matches(m, "内核: 链路中断, 端口 7")
    assert entry_matches(m, fmt.device_os_event(DT, 1, "81078603"))["0x81078603"].handling == "NotHandle"
    lvl = entry_matches(m, fmt.device_os_event(DT, 1, "80E0020B"))["80E0020B"]
    assert lvl.entry_id is None and lvl.handling == "SeparateNPU" and "80E0020B" in lvl.cause
    sw = entry_matches(m, fmt.device_plugin_switch_fault(DT, "0x08520003", "npu", 7, "SeparateNPU"))
    assert sw["[0x08520003,na,npu,na]"].handling == "SeparateNPU"
    assert entry_matches(m, fmt.train_step(DT, 1, 10, 1.0, 2.0, 3.0)) == {}


def test_load_imported_empty_and_damaged(tmp_path: Path, imported: ImportedKnowledge) -> None:
    assert not load_imported(tmp_path / "nothing")
    assert imported and len(imported.entries) == 6
    d = tmp_path / "imports"
    import_kg(FIX / "kg_good.json", d)
    (d / "zz-broken.json").write_text('{"levels": {"80E01801": "Reboot"}}')
    with pytest.raises(KnowledgeBaseError) as exc:
        load_imported(d)
    assert exc.value.file == str(d / "zz-broken.json") and exc.value.path == "levels.80E01801"
    lenient = load_imported(d, strict=False)
    assert len(lenient.entries) == 6 and len(lenient.warnings) == 1 and "Reboot" in lenient.warnings[0]
    (d / "zz-broken.json").write_text("[1, 2")
    assert "not valid JSON" in load_imported(d, strict=False).warnings[0]


# ---- the indexed matcher agrees with a naive one ------------------------------------------------------------------
def naive_entries(imp: ImportedKnowledge, line: str) -> set[str]:
    """ascend-fd's semantics written the slow, obvious way."""
    text = line[:8192]
    codes = {c for _f, c in extract_codes(text)}
    out = set()
    for e in imp.entries.values():
        hit = e.code in codes if e.code else False
        for g in e.groups:
            pos, ok = 0, True
            for s in g:
                i = text.find(s, pos)
                if i < 0:
                    ok = False
                    break
                pos = i + len(s)
            hit = hit or ok
        hit = hit or bool(e.regex and re.search(e.regex, text))
        if hit:
            out.add(e.id)
    return out


def sample_lines(imp: ImportedKnowledge, n: int, seed: int) -> list[str]:
    """Lines built from the entries' own substrings (whole groups, partial groups, shuffled, glued) plus noise."""
    rng = random.Random(seed)
    subs = [s for e in imp.entries.values() for g in e.groups for s in g]
    groups = [g for e in imp.entries.values() for g in e.groups]
    out = []
    for _ in range(n):
        k = rng.random()
        if k < 0.4 and groups:
            g = list(rng.choice(groups))
            if rng.random() < 0.3:
                rng.shuffle(g)
            out.append(" ".join(("x" if rng.random() < 0.5 else "") + s for s in g))
        elif k < 0.8 and subs:
            out.append("".join(rng.choice(subs) for _ in range(rng.randint(1, 4))))
        else:
            out.append(fmt.device_os_event(DT, rng.randrange(8), rng.choice(list(fmt.DEVICE_CODES))))
    return out


def test_indexed_matching_equals_naive_on_fixtures(kb, imported: ImportedKnowledge) -> None:
    m = SignatureMatcher(kb, imported)
    for line in sample_lines(imported, 400, seed=1) + ["alpha-marker omega-marker", "内核: 链路中断, 端口 7"]:
        assert {x.entry_id for x in m.match(line) if x.entry_id} == naive_entries(imported, line), line


# ---- the real vendor files (skipped when the shared reference directory is absent) ------------------------------
@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[ImportedKnowledge, dict, dict]:
    d = tmp_path_factory.mktemp("vendor_imports")
    kg = import_kg(vendor("kg-config.json"), d).as_dict()
    fc = import_faultcode(vendor("faultCode.json"), d).as_dict()
    return load_imported(d), kg, fc


def test_real_knowledge_graph_import(real) -> None:
    imp, kg, fc = real
    assert kg["imported"] + kg["refused"] == 1050
    assert kg["imported"] >= 1000
    assert any(r.startswith("unsupported match rule 'opt'") for r in kg["refused_reasons"])
    assert fc["imported"] >= 800 and fc["refused"] == 0
    # the levels facts.md §3 quotes
    for code, level in {"80E01801": "RestartBusiness", "80E18402": "SeparateNPU", "80E0020B": "SeparateNPU",
                        "81078605": "SubHealth"}.items():
        assert imp.levels[code] == level, code


@pytest.fixture(scope="module")
def real_matcher(kb, real) -> SignatureMatcher:
    return SignatureMatcher(kb, real[0])


def test_real_imports_explain_rendered_lines(real_matcher: SignatureMatcher) -> None:
    m = real_matcher
    hit = entry_matches(m, fmt.device_os_event(DT, 3, "80E01801"))["0x80E01801"]
    assert "ECC" in hit.cause and hit.handling == "RestartBusiness" and hit.suggestion
    notify = entry_matches(m, fmt.train_hccl_error(DT, 4, "EI0002", remote=3))
    assert any("notify" in x.cause.lower() for x in notify.values())  # type: ignore[attr-defined]
    assert entry_matches(m, fmt.device_os_event(DT, 1, "81078603"))["0x81078603"].handling == "NotHandle"


def test_real_indexed_matching_equals_naive(real, real_matcher: SignatureMatcher) -> None:
    imp = real[0]
    for line in sample_lines(imp, 200, seed=2):
        assert {x.entry_id for x in real_matcher.match(line) if x.entry_id} == naive_entries(imp, line), line


def test_saved_imports_hold_no_vendor_file_copy(real, tmp_path: Path) -> None:
    d = tmp_path / "x"
    r = import_kg(vendor("kg-config.json"), d)
    saved = json.loads(Path(r.saved_to or "").read_text())
    assert set(saved) == {"format", "version", "source", "source_sha256", "imported_at", "levels", "entries",
                          "refused"}
    assert "knowledge-repository" not in saved and not any("cause_zh" in e for e in saved["entries"])
    assert os.path.getsize(r.saved_to or "") < os.path.getsize(vendor("kg-config.json"))
