"""The reviewed vendor map (knowledge_base/vendor_map.yaml) on a small knowledge graph built here: entries of the
vendor's id families with cause shapes of our own words (no vendor text), imported as a user would. Checks the
order of the rules (id families before broad words, the environment before the program) and how much a mapped
entry weighs against the log's own signals."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from opsbrain.diagnosis.knowledge import load_vendor_rules, vendor_mapping

OP_LINE = "RuntimeError: call aclnnMatmul failed, detail:EZ1001: the dtype DT_INT8 of input self is not supported"


def _entry(cause: str, category: str, words: list[str], description: str = "") -> dict[str, Any]:
    return {"attribute": {"cause_en": cause, "description_en": description or cause, "class": category},
            "regex": {"in": words}}


GRAPH = {
    # an operator family whose text says its input was invalid: the program's error, not the environment's
    "AISW_CANN_AICPU_91": _entry("The kernel got an invalid parameter value", "Software", ["zqx aicpu kernel refused"],
                                 "An invalid parameter reached the kernel; the configuration of the op is wrong."),
    # a framework family naming installed versions that do not match: the environment
    "AISW_MindSpore_lite_91": _entry("Model load failed", "User", ["zqx model load failed"],
                                     "The installed CANN version does not match the framework version."),
    # a chip event whose description lists software configuration among possible causes: no job set-up error
    "0x80AB8003": _entry("Block misbehaves", "Hardware", ["zqx block misbehaves"],
                         "a. The software configuration is incorrect. b. The block is faulty."),
    # a quantisation-tool entry about its configuration file: no class of ours
    "AISW_CANN_AMCT_ACL_91": _entry("The configuration file has an unknown key", "Software", ["zqx amct key"]),
    # a torch_npu entry that only names the API that failed: raises, never decides
    "AISW_PyTorch_Train_91": _entry("Failed to call torch.npu.zqx", "Software", ["zqx call failed"]),
    # an operator entry whose category names two parties: raises, never decides
    "AISW_CANN_GE_91": _entry("Graph build failed", "Software/Hardware", ["zqx graph build"]),
    # device set-up in torch_npu: the job's set-up
    "AISW_PyTorch_Init_91": _entry("set_device got a device that is not there", "User", ["zqx set device"]),
    # a serving configuration item against a serving request's invalid input
    "AISW_MindIE_LLM_LLMBackend_91": _entry("Failed to verify a configuration parameter of the backend", "Software",
                                            ["zqx backend config"]),
    "AISW_MindIE_LLM_TextGenerator_91": _entry("Request failed: invalid sampling parameter", "Software",
                                               ["zqx sampling"]),
    # a multi-bit ECC error in a chip block that is not the HBM: supports npu_off_bus, never decides it
    "0x80AB8008": _entry("Multi-bit ECC error in the zqx block", "Hardware", ["zqx block ecc"]),
    # the HBM's own, and a count of isolated HBM rows (which carries the same words)
    "0x80AB1801": _entry("Multi-bit ECC error reading the HBM", "Hardware", ["zqx hbm ecc"]),
    "0x80AB8401": _entry("Too many multi-bit ECC isolation lines of the HBM", "Hardware", ["zqx hbm rows"]),
    # an operator entry whose description lists memory among possible causes: the operator family's class
    "AISW_MindSpore_Operator_93": _entry("Operator compile failed", "User", ["zqx op compile"],
                                         "a. Insufficient memory on the device. b. An unsupported shape."),
    # two entries that match the operator line and map elsewhere (environment words, decisive)
    "AISW_MindSpore_lite_92": _entry("Inference failed", "User", ["call aclnnMatmul failed"],
                                     "The CANN and framework versions do not match."),
    "AISW_PyTorch_Env_92": _entry("The environment check failed", "User", ["is not supported"]),
}

WANT = {
    "AISW_CANN_AICPU_91": ("framework_error", True),
    "AISW_MindSpore_lite_91": ("config_error", True),
    "0x80AB8003": (None, False),
    "AISW_CANN_AMCT_ACL_91": (None, False),
    "AISW_PyTorch_Train_91": ("framework_error", False),
    "AISW_CANN_GE_91": ("framework_error", False),
    "AISW_PyTorch_Init_91": ("config_error", True),
    "AISW_MindIE_LLM_LLMBackend_91": ("config_error", True),
    "AISW_MindIE_LLM_TextGenerator_91": ("framework_error", True),
    "0x80AB8008": ("npu_off_bus", False),
    "0x80AB1801": ("hbm_uce", True),
    "0x80AB8401": ("hbm_row_exhaustion", True),
    "AISW_MindSpore_Operator_93": ("framework_error", True),
    "AISW_MindSpore_lite_92": ("config_error", True),
    "AISW_PyTorch_Env_92": ("config_error", True),
}


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb

    d = tmp_path_factory.mktemp("kg")
    (d / "kg.json").write_text(json.dumps({"knowledge-repository": GRAPH}), encoding="utf-8")
    import_kg(d / "kg.json", d)
    return SignatureMatcher(load_kb(), load_imported(d))


def test_the_rules_put_id_families_before_broad_words(graph: Any) -> None:
    rules = load_vendor_rules()
    got = {eid: vendor_mapping(graph.imported_entry(eid), rules) for eid in GRAPH}
    assert got == WANT


def _diagnose(graph: Any, text: str, text_fallback: bool = True) -> dict[str, Any]:
    from opsbrain.diagnosis.engine import Engine
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.diagnosis.params import DiagnosisParams
    from opsbrain.kb.training import load_engine

    engine = load_engine()
    if not text_fallback:  # the vendor mechanism alone (the real-text fallback reads words, not entries)
        engine = Engine(engine.model, DiagnosisParams(text_fallback=False))
    return diagnose_logs("-", engine, graph, stdin=io.BytesIO(text.encode()))


@pytest.mark.parametrize("eid", ["AISW_CANN_AICPU_91", "AISW_MindSpore_lite_91", "AISW_PyTorch_Init_91"])
def test_an_excerpt_known_only_to_a_deciding_entry_gets_the_mapped_class(graph: Any, eid: str) -> None:
    line = "[ERROR] " + GRAPH[eid]["regex"]["in"][0]
    res = _diagnose(graph, line)
    assert [(v["entry"], v["counted"]) for v in res["vendor_entries"]] == [(eid, True)]
    assert res["diagnosis"]["fault_class"] == WANT[eid][0]


@pytest.mark.parametrize("eid", ["AISW_PyTorch_Train_91", "AISW_CANN_GE_91"])
def test_an_entry_that_may_only_raise_does_not_answer_alone(graph: Any, eid: str) -> None:
    res = _diagnose(graph, "[ERROR] " + GRAPH[eid]["regex"]["in"][0], text_fallback=False)
    assert [(v["entry"], v["class"], v["counted"]) for v in res["vendor_entries"]] == [(eid, WANT[eid][0], False)]
    assert res["diagnosis"]["fault_class"] == "unknown"  # not counted


def test_a_vendor_entry_does_not_overturn_what_the_log_says(graph: Any) -> None:
    res = _diagnose(graph, OP_LINE)
    assert {(v["entry"], v["class"]) for v in res["vendor_entries"]} >= {("AISW_MindSpore_lite_92", "config_error"),
                                                                        ("AISW_PyTorch_Env_92", "config_error")}
    assert res["diagnosis"]["fault_class"] == "framework_error"  # the log's own operator error
    assert not any(v["counted"] for v in res["vendor_entries"] if v["class"] == "config_error")



def test_kb_eval_real_takes_the_vendor_files_without_writing_the_data_dir(tmp_path: Any, runner: Any) -> None:
    """``kb eval --real --vendor-kg FILE``: the with-import figure in one command; the imports go to a temporary
    directory, not the data directory."""
    import yaml

    from opsbrain.cli import cli
    from opsbrain.store import default_home

    (tmp_path / "kg.json").write_text(json.dumps({"knowledge-repository": GRAPH}), encoding="utf-8")
    excerpt = {"id": "zz1", "source": "built here", "label": "framework_error", "confidence": "firm",
               "basis": "the test's own entry", "trap": False, "root": None,
               "text": "[ERROR] " + GRAPH["AISW_CANN_AICPU_91"]["regex"]["in"][0]}
    (tmp_path / "corpus.yaml").write_text(yaml.safe_dump([excerpt]), encoding="utf-8")
    args = ["kb", "eval", "--real", str(tmp_path / "corpus.yaml"), "--split", "all", "--json", "--no-text-fallback"]
    without = runner.invoke(cli, args)
    got = runner.invoke(cli, [*args, "--vendor-kg", str(tmp_path / "kg.json")])
    assert json.loads(without.output)["rows"][0]["predicted"] == "unknown"
    assert json.loads(got.output)["rows"][0]["predicted"] == "framework_error", got.output
    imports = default_home() / "kb_imports"
    assert not any("AISW_CANN_AICPU_91" in f.read_text(errors="replace") for f in imports.glob("*") if f.is_file())
