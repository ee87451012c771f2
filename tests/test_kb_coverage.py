"""`opsbrain kb coverage`: the share of each documented code table the knowledge base reads, computed through the
ingestion layer from the stored tables (tests/data/code_tables: documented codes, each with its source and the
outcome its documented meaning calls for)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.diagnosis.knowledge import KindTable
from opsbrain.kb.coverage import (
    KNOWN,
    OUTCOMES,
    TableCoverage,
    coverage,
    faultlevel_table,
    measure,
    read_table,
    shipped_tables,
    tables_dir,
)

DATA = Path(__file__).parent / "data" / "code_tables"
SAMPLES = sorted(DATA.glob("*.yaml"))
VENDOR = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "vendor"


@pytest.fixture(scope="module")
def shipped() -> list[TableCoverage]:
    return coverage(shipped_tables())


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_documented_codes_read_as_their_meaning_says(path: Path) -> None:
    table = read_table(path)
    cov = measure(table)
    for row in table.rows:
        code = str(row["code"])
        assert row["source"].startswith("https://"), code
        assert cov.outcome[code] == row["expect"], (code, row["name"], cov.outcome[code], cov.classes[code])
        for cls in row.get("classes", []):
            assert cls in cov.classes[code], (code, cov.classes[code])
    assert cov.known == sum(1 for r in table.rows if r["expect"] in KNOWN)
    assert cov.total == len(table.rows)


def test_the_figure_comes_from_the_knowledge_base() -> None:
    """With no knowledge, every code the parsers read is unknown: the share is measured, not stored."""
    table = read_table(DATA / "cann_sample.yaml")
    empty = measure(table, KindTable({}), documented=set())
    assert empty.known == 0
    assert empty.counts()["unknown"] == sum(1 for r in table.rows if r["expect"] != "not read")
    assert measure(table).known > 0


def test_a_generic_code_is_never_class_exclusive(shipped: list[TableCoverage]) -> None:
    """Codes the tables call internal or inner errors stay ambiguous (no class takes them as primary or secondary)."""
    for cov in shipped:
        table = cov.table
        for row in table.rows:
            name = str(row.get("name", ""))
            if name in ("Inner_Error", "ACL_ERROR_RT_INTERNAL_ERROR", "ACL_ERROR_GE_INTERNAL_ERROR",
                        "ACL_ERROR_INTERNAL_ERROR", "HCCL_E_INTERNAL", "ACLNN_ERR_INNER"):
                assert cov.outcome[str(row["code"])] == "ambiguous", (table.id, row)


def test_shipped_tables_are_well_formed_and_mostly_known(shipped: list[TableCoverage]) -> None:
    tables = [c.table for c in shipped]
    assert {t.id for t in tables} >= {"cann_error_codes", "ge_error_codes", "acl_runtime_codes", "acl_error_codes",
                                      "acl_ge_codes", "torch_npu_error_codes", "hccl_results", "dcmi_return_codes",
                                      "aclnn_status_codes"}
    for t in tables:
        codes = [str(r["code"]) for r in t.rows]
        assert len(codes) == len(set(codes)), t.id
        assert t.source.startswith("https://github.com/"), t.id
        doc = yaml.safe_load((tables_dir() / f"{t.id}.yaml").read_text(encoding="utf-8"))
        assert len(doc["rows"]) == len(t.rows)
    by_id = {c.table.id: c for c in shipped}
    # the CANN and AscendCL tables are covered; a lost codes.yaml row shows here
    for tid in ("cann_error_codes", "ge_error_codes", "acl_runtime_codes", "acl_error_codes", "acl_ge_codes",
                "torch_npu_error_codes", "hccl_results", "aclnn_status_codes"):
        assert by_id[tid].known / by_id[tid].total >= 0.95, by_id[tid].as_dict(missing=True)["missing"][:10]


def test_cli_prints_every_table_and_json_matches() -> None:
    runner = CliRunner()
    res = runner.invoke(cli, ["kb", "coverage", "--json", "--missing"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    rows = {d["table"]: d for d in data["tables"]}
    for t in shipped_tables():
        d = rows[t.id]
        assert d["rows"] == len(t.rows)
        assert d["known"] == sum(d[o] for o in OUTCOMES if o in KNOWN)
        assert len(d["missing"]) == d["rows"] - d["known"]
    assert data["known"] == sum(d["known"] for d in data["tables"])
    text = runner.invoke(cli, ["kb", "coverage", "--table", str(DATA / "acl_sample.yaml")])
    assert text.exit_code == 0 and "acl_sample" in text.stdout and "cann_error_codes" not in text.stdout


def test_bad_table_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "t.yaml"
    bad.write_text("table: x\nsource: s\nprobe: nosuch\nrows: []\n")
    res = CliRunner().invoke(cli, ["kb", "coverage", "--table", str(bad)])
    assert res.exit_code == 2, res.output
    assert "probe" in res.stderr and "Traceback" not in res.output and len(res.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(not (VENDOR / "faultCode.json").is_file(), reason="shared vendor reference absent")
def test_fault_level_file_is_measured_from_the_users_copy() -> None:
    raw = json.loads((VENDOR / "faultCode.json").read_text(encoding="utf-8"))
    table = faultlevel_table(VENDOR / "faultCode.json")
    assert len(table.rows) == len({c.upper() for v in raw.values() for c in v})
    cov = measure(table)
    assert cov.outcome["80E01801"] == "class" and "hbm_uce" in cov.classes["80E01801"]  # HBM multi-bit ECC


@pytest.mark.parametrize(("line", "kind"), [
    ("[ERROR] GE(1234,python):2025-01-24-11:24:07.476.916 [ge_api.cc:100] Run graph failed, ret: 145021", "rt:145021"),
    ("aclmdlExecute failed, error code is 545601", "rt:545601"),
    ("[ERROR] aclopCompileAndExecute failed: 148050", "rt:148050"),
])
def test_graph_engine_return_codes_are_read(line: str, kind: str) -> None:
    from opsbrain.ingest import parse_line

    assert kind in {s.kind for s in parse_line(line)}  # ge_error_codes.h / acl_base_rt.h codes


def test_a_process_id_is_no_return_code() -> None:
    from opsbrain.ingest import parse_line

    line = "[ERROR] PRE_ACT(145615,python):2025-01-12-09:48:13.703.514 [graph.cc:392] build failed"
    assert not any(s.kind.startswith("rt:") for s in parse_line(line))
