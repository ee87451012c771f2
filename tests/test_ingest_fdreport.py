"""MindCluster FaultDiag (ascend-fd) report rows as evidence (opsbrain/ingest/parsers/fdreport.py).

Rows are written from the tool's own format (Ascend/mind-cluster @22bb3d987bc0208c3eb7395e222b661276133c58,
component/ascend-faultdiag/src/ascend_fd/wrapper/print_wrapper.py: ``_format_rows`` gives ``[title, indicator,
description]``, ``_format_fault_class`` the ``{label_type}:{class} {component}:{c} {module}:{m}`` cell; the labels
are utils/i18n.py's ``label_zh`` / ``label_en``). The older English labels (``Fault type``, ``Fault``, ``Faulty
device``) and the older Chinese ``类别:`` are those of the MindCluster documentation's example reports."""

from __future__ import annotations

import io
import json
from pathlib import Path

from opsbrain.ingest import ingest_text, parse_line

ZH_BLOCK = """\
| 疑似根因故障 |   状态码   | Comp_Switch_L1_01 |
|              |  故障分类  | 类型:Network 组件:Switch 模块:Chip |
|              |  故障设备  | ['LCNE:10.0.0.5'] |
|              |  故障名称  | 转发引擎模块功能失效 |
|              |  故障描述  | LANSWITCH芯片不稳定。 |
|              |  建议方案  | 1. 请联系华为工程师处理； |
"""

EN_BLOCK = """\
| Suspected Root Cause Fault | Status Code | AISW_MindIE_LLM_01 |
|              | Fault Category | Type:Software Component:MindIE Module:LLM |
|              | Faulty Device(s) | ['worker-0 device-2'] |
|              | Fault Name | BackendConfig verification failure |
|              | Fault Description | The configured parameter is invalid. |
"""


def _kinds(text: str) -> list[str]:
    return [s.kind for s in parse_line(text)]


def test_category_rows_in_both_languages_are_fd_kinds() -> None:
    assert _kinds("|              |  故障分类  | 类型:Network 组件:Switch 模块:Chip |") == \
        ["fd:network/switch/chip", "fd:network"]
    assert _kinds("|              |  故障分类  | 类别:Network 组件:Switch 模块:Chip          |") == \
        ["fd:network/switch/chip", "fd:network"]  # the older Chinese label
    assert _kinds("|  | Fault Category | Type:Software Component:AI Framework Module:MindData |") == \
        ["fd:software/ai_framework/minddata", "fd:software"]
    assert _kinds("|  |  Fault type | Type: Software Component: MindIE Module: LLM        |") == \
        ["fd:software/mindie/llm", "fd:software"]  # the documentation's older English report
    assert _kinds("|  | Fault Category | Type:Software/Hardware Component:CANN Module:RUNTIME/DRV |") == \
        ["fd:software+hardware/cann/runtime+drv", "fd:software+hardware"]


def test_device_rows_place_the_category_and_are_no_signal_of_their_own() -> None:
    sigs, _ = ingest_text(EN_BLOCK)
    assert [(s.kind, s.component) for s in sigs] == [("fd:software/mindie/llm", "worker-0/npu2"),
                                                      ("fd:software", "worker-0/npu2")]
    sigs, _ = ingest_text(ZH_BLOCK)
    assert {s.component for s in sigs} == {"LCNE:10.0.0.5"} and len(sigs) == 2


def test_root_cause_node_places_a_fault_whose_device_row_names_none() -> None:
    text = ("|  | 根因节点 | ['worker-3'] |\n"
            "|  | 故障分类 | 类型:Hardware 组件:NPU 模块:HBM |\n"
            "|  | 故障设备 | ['xxxxxx'] |\n")
    sigs, _ = ingest_text(text)
    assert [(s.kind, s.component) for s in sigs] == [("fd:hardware/npu/hbm", "worker-3"), ("fd:hardware", "worker-3")]


def test_the_reports_own_words_are_no_fault() -> None:
    words = "The NPU HBM has a multi-bit ECC error, link down on port 3."
    assert _kinds(words)  # as a log line these words are hardware evidence ...
    assert _kinds(f"|              | Fault Description | {words} |") == []  # ... as the report's words, none
    assert _kinds(f"|              |  故障描述  | {words} |") == []
    assert _kinds("|  | Fault Name | Heartbeat lost, device offline |") == []
    assert _kinds("|              |  现象描述  | 所有Plog中无超时信息，疑似存在进程异常退出或卡死的节点。 |") == []


def test_key_log_rows_are_still_read_as_log_lines() -> None:
    row = ("|  | Key log  | [2025-06-17 16:59:10.282+08:00] [97] [147] [server] [WARN] [llm_infer_engine.cpp:117] : "
           "MIE05E040000[llm_backend] get model instance processing request failed |")
    assert "err:MIE05E040000" in _kinds(row)


def test_kb_maps_the_switch_chip_triple_to_l1_and_software_to_ambiguous() -> None:
    from opsbrain.diagnosis.knowledge import KindTable
    from opsbrain.kb import load_kb

    table = KindTable.from_kb(load_kb())
    assert table.of("fd:network/switch/chip") == [("l1_switch_failure", "primary")]
    assert table.of("fd:software") and all(r == "ambiguous" for _, r in table.of("fd:software"))
    assert not any(c.startswith(("hbm", "npu", "l1", "l2", "link", "roce", "optical"))
                   for c, _ in table.of("fd:software"))


def test_validate_catches_a_bad_fd_category_row(tmp_path: Path) -> None:
    from opsbrain.kb.tables import table_errors

    (tmp_path / "fd_categories.yaml").write_text(
        "rows:\n  - {kind: network/switch/chip, classes: {l1_switch_failure: main}, reason: x}\n"
        "  - {kind: Software, classes: {config_error: ambiguous}}\n", encoding="utf-8")
    errs = [str(e) for e in table_errors(tmp_path, {"l1_switch_failure", "config_error"})]
    assert any("role must be" in e for e in errs) and any("reason" in e for e in errs)
    assert any("lower case" in e for e in errs)


def _kg(tmp_path: Path) -> Path:
    """A knowledge graph of our own making, in kg-config.json's shape (one entry with a log signature no line of
    these tests prints)."""
    kg = {"knowledge-repository": {"Test_FD_OOM_01": {
        "attribute": {"class": "Software", "component": "CANN", "module": "RUNTIME", "cause_zh": "设备内存不足",
                      "cause_en": "Device out of memory", "description_en": "The device ran out of memory.",
                      "suggestion_en": ["1. Lower the batch size."]},
        "rule": [], "source_file": "", "regex": {"in": [["opsbrain-test-never-printed"]]}}}}
    p = tmp_path / "kg-config.json"
    p.write_text(json.dumps(kg, ensure_ascii=False), encoding="utf-8")
    return p


def test_a_fault_name_equal_to_an_imported_entry_name_matches_that_entry(tmp_path: Path) -> None:
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb

    import_kg(_kg(tmp_path), tmp_path / "dd")
    matcher = SignatureMatcher(load_kb(), load_imported(tmp_path / "dd"))
    for row in ("|  | 故障名称 | 设备内存不足 |", "|  | Fault Name | Device out of memory |",
                "|  |  Fault | device out of memory. |",
                "| Suspected Root Cause Fault | Status Code | Test_FD_OOM_01 |"):
        assert [m.entry_id for m in matcher.match(row)] == ["Test_FD_OOM_01"], row
        assert [m.entry_id for m in matcher.match_lines([row])[0]] == ["Test_FD_OOM_01"], row
    assert matcher.match("|  | Fault Name | Device out of memory on the host |") == []
    # the report's description is its own words: an entry's log signature in it is no match
    assert matcher.match("[ERROR] opsbrain-test-never-printed")
    assert matcher.match("|  | Fault Description | opsbrain-test-never-printed |") == []


def test_a_named_vendor_entry_decides_through_the_vendor_map(tmp_path: Path) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb
    from opsbrain.kb.training import load_engine

    import_kg(_kg(tmp_path), tmp_path / "dd")
    matcher = SignatureMatcher(load_kb(), load_imported(tmp_path / "dd"))
    res = diagnose_logs("-", load_engine(), matcher, stdin=io.BytesIO("|  | 故障名称 | 设备内存不足 |\n".encode()))
    assert [v["entry"] for v in res["vendor_entries"]] == ["Test_FD_OOM_01"]
    assert res["diagnosis"]["fault_class"] == "npu_oom"  # the shipped vendor map's out-of-memory title rule


def test_the_reports_faulty_device_is_the_root_of_a_switch_chip_verdict() -> None:
    from opsbrain.diagnosis.localize import localize

    sigs, _ = ingest_text(ZH_BLOCK)
    assert localize("l1_switch", sigs) == "LCNE:10.0.0.5"


JSON_FAULT = """\
            {
                "code": "Comp_Switch_L1_01",
                "class": "Network",
                "component": "Switch",
                "module": "Chip",
                "cause_en": "Forwarding engine function failure",
                "description_en": "A link down error on an NPU network port.",
"""
"""A fault of diag_report.json as json_wrapper.py writes it (``json.dumps(..., indent=4)``: one key a line; the
fault is the code then the knowledge-graph entry's attributes, kg_diag_job.py)."""


def test_diag_report_json_category_keys_join_into_the_category_kinds() -> None:
    sigs, _ = ingest_text(JSON_FAULT)
    assert [(s.kind, s.line_no) for s in sigs] == [("fd:network/switch/chip", 3), ("fd:network", 3)]
    assert _kinds('    "description_en": "A link down error on an NPU network port.",') == []  # the entry's words
    # a lone "class" key (any JSON log) or keys far apart are no category
    assert ingest_text('{"class": "Network"}\n"component": "Switch",\n')[0] == []
    far = '"class": "Network",\n' + '"x": 1,\n' * 10 + '"component": "Switch",\n"module": "Chip",\n'
    assert [s.kind for s in ingest_text(far)[0]] == []


def test_diag_report_json_name_and_code_lines_match_the_imported_entry(tmp_path: Path) -> None:
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb

    import_kg(_kg(tmp_path), tmp_path / "dd")
    matcher = SignatureMatcher(load_kb(), load_imported(tmp_path / "dd"))
    for line in ('                "cause_zh": "设备内存不足",', '    "cause_en": "Device out of memory",',
                 '                "code": "Test_FD_OOM_01",'):
        assert [m.entry_id for m in matcher.match(line)] == ["Test_FD_OOM_01"], line
        assert [m.entry_id for m in matcher.match_lines([line])[0]] == ["Test_FD_OOM_01"], line
    assert [m.code for m in matcher.match('    "code": "EI0006",') if m.source == "kb"]  # a log's JSON code: as before
