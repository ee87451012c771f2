"""GE error codes beyond hicann/metadef @afc8ede2 (session 44, codes44): the graph engine's current table
(hicann/ge base/common/error_registry/error_registry.cc @ffdcbc9f, knowledge_base/code_tables/
ge_registry_error_codes.yaml) and the older model-converter codes E19xxx / E10015 that Ascend/parser @a87083b
reports (knowledge_base/code_tables/parser_error_codes.yaml) and hiascend's version-pinned "GE Errors" pages document.
Lines in the error manager's form (``<code>: <ErrMessage>``), the documented error examples where the source has one."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from opsbrain.diagnosis.knowledge import default_table, documented_kinds
from opsbrain.ingest.parsers import parse_line
from opsbrain.kb.coverage import measure, read_table, tables_dir

KB = Path(__file__).resolve().parents[1] / "knowledge_base"
GE = "https://github.com/hicann/ge/blob/ffdcbc9f7496c17a98c1d12762c61ed608ef3503/base/common/error_registry/error_registry.cc"
PARSER = "https://github.com/Ascend/parser/blob/a87083b2cdc57bc1af1bad274f8e35156df62f2c"


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def rows() -> dict[str, dict]:
    return {str(r["code"]): r for r in yaml.safe_load((KB / "codes.yaml").read_text())["cann_error_codes"]}


@pytest.mark.parametrize(("line", "code", "klass"), [
    # hicann/ge docs/en/user_guides/error_codes/E10062-Invalid_Argument_API_Call_Sequence.md @ffdcbc9f (its example)
    ("E10062: Failed to call RunGraphAsync. Reason: Graph 1 has been compiled by calling CompileGraph. RunGraphAsync "
     "and CompileGraph are mutually exclusive and cannot be used together.", "E10062", "framework_error"),
    # E10063-Environment_Error.md @ffdcbc9f (its example)
    ("E10063: Failed to call the localtime API of the system or third-party software. Reason: [Errno 75] Value too "
     "large for defined data type.", "E10063", "config_error"),
    # the converter's unknown op type (Ascend/parser pre_checker.cc CheckTypeSupported): hiascend's E19010 page's
    # message (CANNCommunityEdition/83RC1alpha003 atlaserrorcode_15_0103), op name and type ours
    ("E19010: No parser is registered for Op [/GridSample, optype [ai.onnx::16::GridSample]].", "E19010",
     "framework_error"),
    # hiascend canncommercial/83RC1 atlaserrorcode_15_0110 (E19025's message); the reason a GE input check gives
    ("E19025: Input tensor is invalid. Reason: Data index must be set continuous from 0 when data shape range "
     "enabled!", "E19025", "framework_error"),
    # hiascend canncommercial/83RC1 atlaserrorcode_15_0101 (E19005's message)
    ("E19005: Failed to parse file [/home/user/model.prototxt].", "E19005", "config_error"),
])
def test_a_new_ge_code_reads_as_its_documented_category(line: str, code: str, klass: str) -> None:
    assert f"err:{code}" in kinds(line)
    assert f"err:{code}" in documented_kinds()
    assert klass in dict(default_table().of(f"err:{code}"))


def test_e19010_is_the_same_unsupported_operator_as_ez9010() -> None:
    got = rows()
    assert got["E19010"]["category"] == got["EZ9010"]["category"] == "feature_unsupported"
    assert dict(default_table().of("err:E19010")).get("framework_error") == "primary"


def test_the_registry_table_is_the_ge_sources_error_codes_and_all_read() -> None:
    table = read_table(tables_dir() / "ge_registry_error_codes.yaml")
    assert table.source == GE and table.probe == "ecode"
    codes = [str(r["code"]) for r in table.rows]
    assert len(codes) == len(set(codes)) == 119 and not any(c.startswith("W") for c in codes)
    cov = measure(table)
    assert cov.known == cov.total, cov.as_dict(missing=True)["missing"]


def test_new_registry_rows_follow_the_errtitle_rule() -> None:
    got = rows()
    want = {"E10059": "parameter_or_usage", "E10060": "parameter_or_usage", "E10061": "parameter_or_usage",
            "E10062": "parameter_or_usage", "E10063": "config_or_environment"}
    titles = {str(r["code"]): r["name"] for r in read_table(tables_dir() / "ge_registry_error_codes.yaml").rows}
    for code, cat in want.items():
        row = got[code]
        assert row["category"] == cat and row["title"] == titles[code] and row["source"].startswith(GE), code


def test_the_parser_table_lists_what_the_parser_reports_and_each_new_row_cites_it() -> None:
    table = read_table(tables_dir() / "parser_error_codes.yaml")
    assert table.source.startswith(PARSER) and table.probe == "ecode"
    listed = {str(r["code"]) for r in table.rows}
    assert len(listed) == 52 and {"E19010", "E19005", "E19000", "E10015"} <= listed
    got = rows()
    for code in ("E19000", "E19001", "E19002", "E19004", "E19005", "E19010", "E19015", "E10015"):
        assert PARSER in got[code]["source"] and "hiascend.com" in got[code]["source"], code
    cov = measure(table)
    assert cov.known >= 48, cov.as_dict(missing=True)["missing"]
