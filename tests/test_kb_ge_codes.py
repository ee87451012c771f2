"""The graph engine's (GE / ATC) and DVPP's CANN error codes: knowledge_base/code_tables/ge_error_codes.yaml (the
codes of hicann/metadef error_manager/error_code.json @afc8ede2 that the runtime's table does not list) with their
codes.yaml rows. Lines in the format the error manager prints (``<code>: <ErrMessage>``) and the documented error
examples of hicann/ge docs/en/user_guides/error_codes (@ffdcbc9f)."""

from __future__ import annotations

from pathlib import Path

import yaml

from opsbrain.diagnosis.knowledge import default_table, documented_kinds
from opsbrain.ingest.parsers import parse_line
from opsbrain.kb.coverage import measure, read_table, tables_dir

ROOT = Path(__file__).resolve().parents[1]
KB = ROOT / "knowledge_base"
METADEF = ("https://github.com/hicann/metadef/blob/afc8ede246f7d1f9db99251f3afcdfa1e99c94a4/error_manager/"
           "error_code.json")


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_an_atc_e10001_line_reads_as_a_documented_kind() -> None:
    # https://github.com/zhiim/hugo-blog/blob/18c1321d0487218116e9fcb97ddc53a5218d8a59/content/post/
    # deploy-deep-learning-model-on-atlas/index.md (zhiim.github.io, corpus_y y015): atc
    # --framework=5 on an ONNX model whose input has an unknown batch dimension
    line = ("E10001: Value [-1] for parameter [input_2] is invalid. Reason: maybe you should set input_shape to "
            "specify its shape.")
    assert "err:E10001" in kinds(line)
    roles = dict(default_table().of("err:E10001"))
    assert roles.get("config_error") == "secondary" and roles.get("framework_error") == "secondary"
    assert "err:E10001" in documented_kinds()


def test_dvpp_en_codes_read_with_their_category() -> None:
    # the error manager's report line (the ecode probe's form) with EN0001's and EN0007's ErrMessage (values ours)
    got = kinds("EN0001: [PID: 4121] 2026-03-16-07:55:33.842.415 Value [0] for [width] is invalid. Reason: the width "
                "must be a multiple of 16.")
    assert "err:EN0001" in got and default_table().of("err:EN0001")
    assert "err:EN0007" in kinds("EN0007: [PID: 4121] 2026-03-16-07:55:33.842.415 acldvppVpcResizeAsync times out. "
                                 "Reason: the task was not finished within 3000 ms.")
    codes = {str(r["code"]): r for r in yaml.safe_load((KB / "codes.yaml").read_text())["cann_error_codes"]}
    assert codes["EN0001"]["category"] == "parameter_or_usage" and codes["EN0007"]["category"] == "timeout"


def test_a_ge_message_without_its_code_reads_as_the_code() -> None:
    # hicann/ge docs/en/user_guides/error_codes @ffdcbc9f, E10049-Invalid_Argument_Tensor_Input_Shape.md and
    # E10501-Not_Supported_Operator.md: the documented error examples, the code cut off
    assert "err:E10049" in kinds("Dimension count 3 configured in --input_shape does not match dimension count 4 of "
                                 "the node.")
    assert "err:E10501" in kinds("IR for Op custom_op with optype CustomOp is not registered.")
    assert dict(default_table().of("err:E10501")).get("framework_error") == "primary"  # Not_Supported_Operator


def test_the_table_is_the_sources_codes_the_runtime_table_lacks() -> None:
    table = read_table(tables_dir() / "ge_error_codes.yaml")
    runtime = {str(r["code"]) for r in read_table(tables_dir() / "cann_error_codes.yaml").rows}
    codes = [str(r["code"]) for r in table.rows]
    assert table.source == METADEF and table.probe == "ecode"
    assert not set(codes) & runtime and not any(c.startswith("W") for c in codes)  # warnings are not listed
    assert all(isinstance(r.get("template"), str) and r.get("name") for r in table.rows)
    cov = measure(table)
    assert cov.known == cov.total, cov.as_dict(missing=True)["missing"][:10]


TITLE_RULE = (("Invalid_Argument", "parameter_or_usage"), ("Not_Supported", "feature_unsupported"),
              ("Compilation_Error", "operator_error"), ("Config_Error", "config_or_environment"),
              ("Environment_Error", "config_or_environment"), ("Package_Error", "config_or_environment"),
              ("File_Operation_Error", "config_or_environment"), ("Directory_Operation_Error", "config_or_environment"))
INTERNAL = ("Inner_Error", "Execution_Error", "Resource_Error", "Initialization_Error")


def test_every_code_has_a_row_by_the_errtitle_rule() -> None:
    # codes.yaml's kbcover rule for the CANN table: the category follows the errTitle, not the single code
    table = read_table(tables_dir() / "ge_error_codes.yaml")
    rows = {str(r["code"]): r for r in yaml.safe_load((KB / "codes.yaml").read_text())["cann_error_codes"]}
    for t in table.rows:
        code, title = str(t["code"]), str(t["name"])
        row = rows[code]
        if code == "E19999":  # the GE inner error, documented earlier from error_manager.cc
            assert row["category"] == "internal" and row["ambiguous"]
            continue
        assert row["source"] == METADEF and row.get("title") == title, code
        if title.endswith("Timeout"):
            want, ambiguous = "timeout", False
        elif title.startswith(INTERNAL):
            want, ambiguous = "internal", True
        else:
            want, ambiguous = next(c for p, c in TITLE_RULE if title.startswith(p)), False
        assert (row["category"], bool(row.get("ambiguous"))) == (want, ambiguous), (code, title)
    documented = documented_kinds()
    assert all(f"err:{t['code']}" in documented for t in table.rows)


def test_atc_out_nodes_refusals_are_the_conversion_setting() -> None:
    """GE's catch-all E19999 with the converter's ``--out_nodes`` refusal is the conversion's command line (session
    43): Huawei's ATC fault case atc_case_00003 (https://www.hiascend.com/document/caselibrary/detail/atc_case_00003)
    quotes ``E19999 User specified tensor[p2o.Concat.38] is not output of graph.`` (the node named wrongly, without
    its output index), the ATC guide's atlasatc_16_0177 ``The input format of --out_nodes is invalid``."""
    from opsbrain.diagnosis.knowledge import default_table

    assert kinds("E19999 User specified tensor[p2o.Concat.38] is not output of graph.") == ["err:E19999", "cfg:env"]
    assert "cfg:env" in kinds("    User specified tensor[p2o.Concat.38] is not output of graph.[FUNC:x][FILE:y]")
    assert "cfg:env" in kinds("[ERROR] GE(1234,atc.bin):2024-01-01-10:00:00.000.000 [graph.cc:10]1234 The input "
                              "format of --out_nodes is invalid")
    assert kinds("E19999: Inner Error!") == ["err:E19999"]  # the catch-all alone names no setting
    assert any(c == "config_error" for c, _r in default_table().roles["cfg:env"])
