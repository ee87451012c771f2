"""The fault knowledge base: schema and validation errors, catalogue coverage, hash, and the signature matcher."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

import knowledge_base
from faultlib.engine import Simulation
from faultlib.faults.catalog import CATALOG, HANDLING_LEVELS
from faultlib.injection import FaultSpec
from faultlib.injection.selectors import TargetIndex
from faultlib.telemetry import formats as fmt
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.errors import KnowledgeBaseError
from opsbrain.kb import SignatureMatcher, extract_codes, kb_list, kb_show, load_kb, validate_kb
from opsbrain.kb.matcher import MAX_SCAN_CHARS
from opsbrain.kb.schema import LEVELS, LOCALIZATION_RULES
from opsbrain.recovery.schema import OBSERVED_ONLY_CLASSES

EXTRA_CLASSES: set[str] = set(OBSERVED_ONLY_CLASSES)  # real logs show them; the twin injects none
"""Classes beyond the fault kinds (none: every catalogue kind can be told apart by its own evidence; noise is
answered by abstention, not by a class)."""

DT = datetime(2025, 3, 1, 10, 3, 20, 507053)


@pytest.fixture(scope="module")
def kb():
    return load_kb()


@pytest.fixture(scope="module")
def matcher(kb):
    return SignatureMatcher(kb)


@pytest.fixture
def kb_copy(tmp_path: Path) -> Path:
    d = tmp_path / "classes"
    shutil.copytree(knowledge_base.classes_dir(), d)
    return d


def edit(path: Path, fn) -> None:
    data = yaml.safe_load(path.read_text())
    fn(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def errors_of(d: Path) -> list[tuple[str, str | None, str]]:
    return [(Path(e.file).name if e.file else "", e.path, e.reason) for e in validate_kb(d)]


# ---- the shipped knowledge base ------------------------------------------------------------------------------
def test_shipped_kb_is_valid_and_covers_every_fault_kind_exactly(kb) -> None:
    assert validate_kb() == []
    assert set(kb.ids()) == set(CATALOG) | EXTRA_CLASSES
    assert kb.missing_kinds() == []
    assert [p.stem for p in knowledge_base.class_files()] == sorted(kb.ids())


def test_classes_agree_with_the_catalogue_and_name_their_runbooks(kb) -> None:
    assert LEVELS == HANDLING_LEVELS == fmt.HANDLING_LEVELS
    for fc in kb:
        if fc.id in EXTRA_CLASSES:
            assert fc.signatures.signals and all(sig.source for sig in fc.signatures.signals), fc.id
            continue
        k = CATALOG[fc.id]
        assert (fc.handling, fc.llama3_category, fc.family, fc.self_heals) == (k.level, k.category, k.family,
                                                                               k.self_heals), fc.id
        assert fc.runbook == "rb-" + fc.id.replace("_", "-")
        assert fc.localization in LOCALIZATION_RULES
        assert fc.references and fc.symptoms
        for rule in fc.signatures.metric_rules:
            assert "facts.md" in rule.source or "reason" in rule.source, (fc.id, rule.metric)


def test_every_code_the_plant_renders_is_known_to_some_class(kb) -> None:
    known = {sig.code for fc in kb for _f, sig in fc.signatures.codes()}
    assert set(fmt.DEVICE_CODES) <= known
    assert {str(c) for c in fmt.RUNTIME_CODES} - {"507018"} <= known  # AI CPU exceptions: no class (software)
    assert {"EI0002", "EI0006", "EI0013", "EI9999"} <= known


def test_hash_is_stable_across_formatting_and_changes_with_content(kb, kb_copy: Path) -> None:
    h = kb.hash()
    assert h == load_kb().hash() and len(h) == 64
    for f in kb_copy.glob("*.yaml"):  # same content, other layout and key order
        data = yaml.safe_load(f.read_text())
        f.write_text("# reformatted\n" + yaml.safe_dump(dict(reversed(list(data.items()))), width=60))
    assert load_kb(kb_copy).hash() == h
    edit(kb_copy / "hbm_uce.yaml", lambda d: d.update(title="HBM UCE (edited)"))
    assert load_kb(kb_copy).hash() != h


def test_list_and_show_return_plain_data(kb) -> None:
    rows = kb_list()
    assert [r["id"] for r in rows] == sorted(set(CATALOG) | EXTRA_CLASSES)
    uce = next(r for r in rows if r["id"] == "hbm_uce")
    assert uce["handling"] == "RestartBusiness" and uce["runbook"] == "rb-hbm-uce" and uce["codes"] >= 3
    shown = kb_show("hbm_uce")
    json.dumps(rows), json.dumps(shown)  # plain data
    assert shown["signatures"]["device_codes"][0]["code"] == "80E01801"
    assert shown["file"].endswith("hbm_uce.yaml")
    with pytest.raises(KnowledgeBaseError, match="no class named 'nope'"):
        kb_show("nope")


# ---- validation errors name the file and the path inside it --------------------------------------------------
@pytest.mark.parametrize("mutate,path,reason", [
    (lambda d: d["signatures"]["device_codes"][0].update(code="XYZ"), "signatures.device_codes[0].code",
     "not a device fault code"),
    (lambda d: d["signatures"]["runtime_codes"][1].update(code="12"), "signatures.runtime_codes[1].code",
     "runtime device error code"),
    (lambda d: d["signatures"]["log_patterns"][0].update(pattern="(unclosed"), "signatures.log_patterns[0].pattern",
     "not a valid regular expression"),
    (lambda d: d["signatures"]["metric_rules"][0].update(op="~"), "signatures.metric_rules[0].op", "got '~'"),
    (lambda d: d["signatures"]["metric_rules"][0].pop("source"), "signatures.metric_rules[0].source", "required"),
    (lambda d: d.update(handling="Reboot"), "handling", "got 'Reboot'"),
    (lambda d: d.update(localization="rack"), "localization", "got 'rack'"),
    (lambda d: d.update(colour="red"), "colour", "unknown field"),
    (lambda d: d.pop("symptoms"), "symptoms", "required"),
    (lambda d: d.update(runbook="rb-other"), "runbook", "must be 'rb-hbm-uce'"),
    (lambda d: d.update(handling="SeparateNPU"), "handling", "disagrees with the fault catalogue"),
    (lambda d: d.update(id="hbm_other"), "id", "differs from the file name"),
    (lambda d: d["signatures"]["device_codes"].append(dict(d["signatures"]["device_codes"][0])),
     "signatures.device_codes", "code listed twice"),
])
def test_schema_errors_name_file_and_path(kb_copy: Path, mutate, path: str, reason: str) -> None:
    edit(kb_copy / "hbm_uce.yaml", mutate)
    errs = errors_of(kb_copy)
    assert any(f == "hbm_uce.yaml" and p == path and reason in r for f, p, r in errs), errs
    with pytest.raises(KnowledgeBaseError) as exc:
        load_kb(kb_copy)
    assert str(exc.value).startswith(str(kb_copy / "hbm_uce.yaml"))


def test_all_errors_of_all_files_are_reported_with_coverage(kb_copy: Path) -> None:
    (kb_copy / "node_hang.yaml").unlink()
    (kb_copy / "link_down.yaml").write_text("id: link_down\ntitle: [unclosed\n")
    (kb_copy / "qingtian_failure.yaml").write_text("- just\n- a list\n")
    edit(kb_copy / "hbm_uce.yaml", lambda d: d.update(handling="Reboot", colour="red"))
    errs = errors_of(kb_copy)
    assert any(f == "link_down.yaml" and "not valid YAML" in r and p and p.startswith("line ") for f, p, r in errs)
    assert any(f == "qingtian_failure.yaml" and "must be a YAML mapping" in r for f, _p, r in errs)
    assert {p for f, p, _r in errs if f == "hbm_uce.yaml"} == {"handling", "colour"}
    assert any(f == "classes" and "no class for fault kind 'node_hang'" in r for f, _p, r in errs)


def test_single_file_duplicate_and_hostile_files(kb_copy: Path, tmp_path: Path) -> None:
    assert validate_kb(kb_copy / "hbm_uce.yaml") == []  # one file: no coverage check
    shutil.copy(kb_copy / "hbm_uce.yaml", kb_copy / "zz_copy.yaml")
    errs = errors_of(kb_copy)
    assert any(f == "zz_copy.yaml" and p == "id" and "also defined in" in r for f, p, r in errs)
    (kb_copy / "zz_copy.yaml").unlink()
    (kb_copy / "hbm_uce.yaml").rename(tmp_path / "real.yaml")
    (kb_copy / "hbm_uce.yaml").symlink_to(tmp_path / "real.yaml")
    assert any(f == "hbm_uce.yaml" and "symbolic link" in r for f, _p, r in errors_of(kb_copy))
    (kb_copy / "hbm_uce.yaml").unlink()
    (kb_copy / "hbm_uce.yaml").write_bytes(b"\xff\xfe\x00junk")
    assert any(f == "hbm_uce.yaml" and "cannot read" in r for f, _p, r in errors_of(kb_copy))
    assert [e.reason for e in validate_kb(tmp_path / "missing")] == ["no such knowledge-base directory"]


# ---- the matcher on lines the plant renders ---------------------------------------------------------------
def classes(matcher, line: str, primary_only: bool = False) -> set[str]:
    return {m.class_id for m in matcher.match(line)
            if m.source == "kb" and m.class_id and (m.role == "primary" or not primary_only)}


@pytest.mark.parametrize("line,expected,exclusive", [
    (fmt.device_os_event(DT, 3, "80E01801"), "hbm_uce", False),
    (fmt.device_plugin_fault(DT, 3, "80E18402", "SeparateNPU"), "hbm_row_exhaustion", True),
    (fmt.device_os_event(DT, 1, "80E0020B"), "hbm_overtemp", True),
    (fmt.device_os_event(DT, 1, fmt.HBM_CE_CODE), "hbm_ce_storm", True),
    (fmt.device_os_event(DT, 0, "80FA4E00"), "aicore_hang", True),
    (fmt.device_os_event(DT, 0, "80E20207"), "npu_fail_slow", True),
    (fmt.device_os_event(DT, 2, "81078603"), "roce_port_down", True),
    (fmt.device_os_event(DT, 2, "81B18605"), "optical_degradation", True),
    (fmt.plog_runtime_error(DT, 100, 101, 507053, 3), "hbm_uce", True),
    (fmt.plog_runtime_error(DT, 100, 101, 507034, 3), "aicore_hang", True),
    (fmt.plog_cqe_error(DT, 100, 101, "10.0.0.4"), "roce_port_down", False),
    (fmt.plog_notify_wait(DT, 100, 101, "10.0.0.4"), "collective_timeout_sw", False),
    (fmt.train_runtime_error(DT, 12, 507053), "hbm_uce", True),
    (fmt.train_hccl_error(DT, 12, "EI0002", remote=3), "collective_timeout_sw", True),
    (fmt.switch_alarm(DT, "pod0-node3-l1sw2", "0x08520003", "L2", 7), "link_down", False),
    (fmt.switch_alarm(DT, "pod0-node3-l1sw2", "0x00f10509", "L2", 7, fault_id="132332"), "optical_degradation",
     True),
    (fmt.device_plugin_switch_fault(DT, "0x08520003", "L2", 7, "NotHandle"), "link_flap", False),
    (fmt.device_plugin_switch_fault(DT, "0x00f103b0", "na", 0, "SeparateNPU", fault_id="155907"),
     "l1_switch_failure", True),
    # an L2 chip's port down names no peer type in the switch OS's layout (session 45): a link down, not a crash
    (fmt.switch_alarm(DT, "pod0-l2plane1-sw03", "0x08520003", "L1", 3), "link_down", False),
    (fmt.syslog(DT, "pod0-node3", "Kernel panic - not syncing: Fatal machine check"), "node_crash", True),
    (fmt.syslog(DT, "pod0-node3", fmt.soft_lockup(17, 22, "python3", 4242)), "node_hang", True),
    (fmt.syslog(DT, "pod0-node3", fmt.nfs_not_responding("storage.vpc")), "qingtian_failure", True),
    (fmt.syslog(DT, "pod0-node3", fmt.pcie_aer("0000:83:00.0", 2, 2)), "npu_off_bus", True),
    (fmt.train_line(DT, "ERROR", "AssertionError: Rank 3: found NaN in local grad norm in backward pass before "
                    "data-parallel communication collective. Device: 3, node: pod0-node33"),
     "silent_data_corruption", True),
    (fmt.hccn_link_record(DT, 5, up=False), "roce_port_down", True),
])
def test_matcher_explains_rendered_lines(matcher, line: str, expected: str, exclusive: bool) -> None:
    found = matcher.match(line)
    mine = [m for m in found if m.class_id == expected]
    assert mine, (line, [m.class_id for m in found])
    m = mine[0]
    assert m.handling == CATALOG[expected].level and m.runbook == "rb-" + expected.replace("_", "-")
    assert m.cause and m.suggestion
    assert m.exclusive == exclusive or m.via == "pattern"


def test_codes_beat_patterns_and_benign_lines_match_nothing(matcher) -> None:
    line = fmt.device_os_event(DT, 3, "80E01801")
    assert all(m.via == "code" for m in matcher.match(line))  # patterns are only the fallback
    ms = matcher.match(line)
    assert ms[0].class_id == "hbm_uce" and ms[0].role == "primary"  # primary signals first
    for benign in [fmt.train_step(DT, 100, 1000, 1.2, 2.3, 1.5e5),
                   fmt.plog_hcom_init(DT, 1, 2, 384, 5, "10.0.0.1", 5),
                   fmt.switch_transceiver(DT, "pod0-node1-l1sw0", 3, 0, -2.1, -1.0, 7.5, 25.0),
                   fmt.syslog(DT, "pod0-node1", "systemd[1]: Started Session 42 of user root."),
                   fmt.device_plugin(DT, "INFO", "timestamp 10:03:20.507053 pid 507053x ok", "main.go:304"),
                   fmt.syslog(DT, "pod0-node1", "[  123.507053] usb 1-1: new device", uptime_s=123.507053)]:
        assert matcher.match(benign) == [], benign


@pytest.mark.parametrize("line,codes", [
    ("event_id=0x80e01801, assertion=occur", [("device", "80E01801")]),
    ("[ERROR] 2025 dev-os-3 fault_manager: event_id=0x80E01801, hbm", [("device", "80E01801")]),
    ("Event id=0x80c98000 and event_id:  [0x80fa4e00]", [("device", "80C98000"), ("device", "80FA4E00")]),
    # MindCluster's device plugin (ascend-device-plugin pkg/common/fault_code.go:1844 at 22bb3d98) and container-manager
    # (pkg/fault/app/faultmgr.go:145): EventID in decimal, the code in lower-case hex
    ("receive devFaultInfo: common.DevFaultInfo{EventID:2162263042, LogicID:3, ModuleType:0, ModuleID:0, "
     "SubModuleType:0, SubModuleID:0, Severity:2, Assertion:1, AlarmRaisedTime:1740823400123}, hex code: 80e18402",
     [("device", "80E18402")]),
    ("receive devFaultInfo: {EventID:2162169857 LogicID:3 ModuleType:0 ModuleID:0 SubModuleType:0 SubModuleID:0 "
     "Severity:2 Assertion:1 AlarmRaisedTime:1740823400123}, hex fault code: 80e01801, fault level: RestartBusiness",
     [("device", "80E01801")]),
    ("reported fault code 0x80E01801, handling level RestartBusiness", [("device", "80E01801")]),
    ("switch subscribe got fault:AlarmId: 0x08520003, FaultID: na, AssembledFaultCode: [0x08520003,na,L2,na], "
     "PeerPortDevice: 2, PeerPortId: 0, SwitchChipId: 1, SwitchPortId: 7, Assertion: 1, AlarmRaisedTime: 0, "
     "faultCode:[0x08520003,na,L2,na]",
     [("switch", "[0x08520003,na,l2,na]")]),
    ("UBSW [ERROR] alarm [0x08520003,na,L1,12] downlink port down", [("switch", "[0x08520003,na,l1,na]")]),
    ("ErrorCode[EI0002] notify wait timeout ... EZ9999 EE9999 EL0004 and XEI0002 EI00021",
     [("hccl", "EI0002"), ("hccl", "EZ9999"), ("hccl", "EE9999"), ("hccl", "EL0004")]),
    ("retCode=0x7bc8d, ErrCode=507053, error code is 507015.", [("runtime", "507053"), ("runtime", "507015")]),
    ("10:03:20.507053 [  123.507053] 5070531 x507053", []),
])
def test_code_extraction(line: str, codes: list[tuple[str, str]]) -> None:
    assert extract_codes(line) == codes


# ---- the plant's own telemetry: every fault kind's lines are explained by its class ---------------------------
def _sim_lines(topo: Topology, kind: str) -> list[str]:
    sim = Simulation(seed=3, topology=topo)
    if kind in ("silent_data_corruption", "collective_timeout_sw"):
        sim.add_workload(TrainingJob("job", [f"pod0/node{i}" for i in range(4)]))
        target = "pod0/node0/npu0" if kind == "silent_data_corruption" else "pod0/node0"
    else:
        target = TargetIndex(topo).candidates(CATALOG[kind].targets[0])[0].id
    sim.inject(FaultSpec(at_s=600, kind=kind, target=target))
    sim.run(until=600 + 3 * 86400)
    return [rec.text for rec in sim.telemetry.logs]


@pytest.mark.parametrize("kind", sorted(CATALOG))
def test_simulated_fault_lines_are_explained_by_their_class(topo1: Topology, matcher, kind: str) -> None:
    lines = _sim_lines(topo1, kind)
    assert lines, kind
    assert any(kind in classes(matcher, ln) for ln in lines), lines[:5]


# ---- junk never raises ----------------------------------------------------------------------------------------
JUNK = [b"\x00\xff\xfe" * 1000, "\x00" * 10, "événement inconnu ⚠️ 设备故障 エラー", "", None, 12345, 3.5,
        "E" * 10**6, "[0x" * 300_000, "event_id=0x" + "8" * 10**6, ("fault code [" * 50_000) + "80E01801]",
        "a" * (MAX_SCAN_CHARS - 20) + " Kernel panic - not syncing", bytearray(b"EI0002 in bytes")]


@pytest.mark.parametrize("junk", JUNK, ids=range(len(JUNK)))
def test_junk_input_never_raises(matcher, junk) -> None:
    out = matcher.match(junk)
    assert isinstance(out, list)
    assert extract_codes(junk) is not None


def test_long_lines_are_capped_and_bytes_decoded(matcher) -> None:
    far = "x" * (MAX_SCAN_CHARS + 10) + " Kernel panic - not syncing"
    assert matcher.match(far) == []  # beyond the scanned prefix
    assert classes(matcher, b"EI0002 notify wait timeout") == {"collective_timeout_sw"}
    assert classes(matcher, bytearray(b"EI0013")) == {"roce_port_down"}


@settings(max_examples=100, deadline=None)
@given(st.one_of(st.text(max_size=400), st.binary(max_size=400),
                 st.lists(st.sampled_from(["event_id=0x", "80e01801", "[0x08520003,", "na,", "L2,", "EI0002", "507053",
                                           "fault code [", "]", " ", "soft lockup - CPU#1 stuck", "\x00", "链路"]),
                          max_size=30).map("".join)))
def test_any_text_gets_an_answer(matcher, text) -> None:
    assert isinstance(matcher.match(text), list)


# ---- the literal gates of knowledge-base patterns are sound ---------------------------------------------------
@pytest.mark.parametrize("pattern,gate", [
    ("Kernel panic - not syncing", ("kernel panic - not syncing",)),
    ("ts heartbeat error|task scheduler not responding", ("s heartbeat error", "ask scheduler not responding")),
    (r"grad(ient)? norm (is )?inf", (" norm ",)),
    (r"^\[devid \d+\]\s+.{10,40}\s+LINK DOWN", ("link down",)),
    (r"\d+\s+\S+", ()),
])
def test_pattern_gate_literals(pattern: str, gate: tuple[str, ...]) -> None:
    from opsbrain.kb.matcher import _pattern_gate

    assert _pattern_gate(pattern) == gate


def test_every_shipped_pattern_has_a_gate(kb) -> None:
    from opsbrain.kb.matcher import _pattern_gate

    assert all(_pattern_gate(p.pattern) for fc in kb for p in fc.signatures.log_patterns)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_gated_patterns_never_miss_a_match(matcher, data) -> None:
    i = data.draw(st.integers(0, len(matcher._patterns) - 1))
    rx = matcher._patterns[i][0]
    text = data.draw(st.from_regex(rx))
    if rx.search(text):
        assert i in matcher._pattern_candidates(text, text.lower())


def test_validate_reports_a_broken_codes_table_instead_of_calling_the_kb_valid(tmp_path):
    """An unreadable codes.yaml silently empties every documented code at run time; validate must say so."""
    from opsbrain.kb.loader import validate_kb

    root = knowledge_base.classes_dir().parent
    shutil.copytree(root / "classes", tmp_path / "classes")
    for name in ("codes.yaml", "categories.yaml"):
        shutil.copy(root / name, tmp_path / name)
    assert validate_kb(tmp_path) == []
    (tmp_path / "codes.yaml").write_text((root / "codes.yaml").read_text() + "acl_runtime: [\n")
    errs = validate_kb(tmp_path)
    assert errs and "codes.yaml" in str(errs[0]) and "YAML" in str(errs[0])
    text = (root / "codes.yaml").read_text().replace("category: parameter_or_usage", "category: nosuch", 1)
    (tmp_path / "codes.yaml").write_text(text)
    assert any("'nosuch' is not in categories.yaml" in str(e) for e in validate_kb(tmp_path))
    (tmp_path / "codes.yaml").write_text((root / "codes.yaml").read_text())
    (tmp_path / "categories.yaml").write_text("memory_exhausted: {no_such_class: primary}\n")
    msgs = [str(e) for e in validate_kb(tmp_path)]
    assert any("no such class" in m for m in msgs) and any("is not in categories.yaml" in m for m in msgs)


def test_validate_reports_a_runtime_row_the_parser_cannot_read(tmp_path):
    """The runtime's inner-number and reason rows are the errnums parser's maps (compiled): a number that is not one
    is a validation error, not a traceback when the knowledge base is compiled."""
    from opsbrain.kb.loader import validate_kb

    root = knowledge_base.classes_dir().parent
    shutil.copytree(root / "classes", tmp_path / "classes")
    shutil.copy(root / "categories.yaml", tmp_path / "categories.yaml")
    text = (root / "codes.yaml").read_text()
    broken = (text.replace('- {code: "0x7010003", name: RT_ERROR_DEVICE_ID, acl: 107001,',
                           '- {code: "RT7010003", name: RT_ERROR_DEVICE_ID, acl: 107001,', 1)
              .replace('- {text: "device id error", acl: 107001,', '- {text: "device id error", acl: ACL107001,', 1))
    assert broken.count("RT7010003") == 1 and broken.count("ACL107001") == 1
    (tmp_path / "codes.yaml").write_text(broken)
    msgs = [str(e) for e in validate_kb(tmp_path)]
    assert len(msgs) == 2, msgs
    assert "runtime_inner_codes[" in msgs[0] and "].code: 'code' must be a hex number" in msgs[0]
    assert "runtime_reasons[" in msgs[1] and "].acl: 'acl' must be an integer AscendCL code" in msgs[1]
