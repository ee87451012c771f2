"""MindIE's ATB Models refusing a checkpoint's model type is the installed version's (``cfg:version``), not an operator
the program lacks (session 51, tester51h). ``atb_llm.models.get_model`` raises ``NotImplementedError("unsupported
model type: X；请确认atb_llm.models路径下是否存在名为X的文件夹。")`` for a model folder the installed atb_llm does not
carry (Ascend/MindIE-LLM examples/atb_models/atb_llm/models/__init__.py @8b4871ad). The lines below are verbatim:
gpustack#5317 (https://github.com/gpustack/gpustack/issues/5317, qwen3_vl_moe on 310P; blind b51h-04 read
framework_error 0.66 before) and the hiascend forum thread
https://www.hiascend.com/forum/thread-0262186656288704064-1-1.html (xlm-roberta on MindIE 2.0.RC1, posted with an
ASCII semicolon and the exception name broken by a space)."""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.parsers import parse_line

GPUSTACK = ("[2026-05-14 18:06:16.762] [34] [281473586159104] [llm] [ERROR] [model_deploy_config.cpp:101] Failed "
            "to get vocab size from tokenizer wrapper with exception: NotImplementedError: unsupported model type: "
            "qwen3_vl_moe；请确认atb_llm.models路径下是否存在名为qwen3_vl_moe的文件夹。")
CONFIG_MANAGER = ("[2026-05-14 18:06:16.762] [34] [281473586159104] [llm] [ERROR] [llm_manager_impl.cpp:846] Config "
                  "manager init exception: NotImplementedError: unsupported model type: qwen3_vl_moe；请确认atb_llm."
                  "models路径下是否存在名为qwen3_vl_moe的文件夹。")
FORUM = ("rerank服务找不到 [llm] [ERROR] [model_deploy_config.cpp:102] Failed to get vocab size from tokenizer wrapper "
         "with exception: NotImplementedErro r: unsupported model type: xlm-roberta;"
         "请确认atb_llm.models路径下是否存在名为xlm-roberta的文件夹")
EXCERPT = "\n".join([
    "2026-05-14 18:05:49.055972+08:00 - gpustack.worker.backends.ascend_mindie - INFO - Starting Ascend MindIE model "
    "instance: qwen3-vl-30b-a3b-instruct-car6o",
    "[INFO] PROFILING(34,mindieservice_daemon_):2026-05-14-18:06:16.212.507 [prof_atls_plugin.cpp:222] (tid:36) "
    "Module[0] register callback of ctrl handle.",
    GPUSTACK,
    "At:",
    "  /usr/local/Ascend/atb-models/atb_llm/models/__init__.py(71): get_model",
    "  /usr/local/Ascend/atb-models/atb_llm/runner/tokenizer_wrapper.py(30): __init__",
    CONFIG_MANAGER,
]) + "\n"


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_the_model_type_atb_llm_lacks_is_the_installed_version() -> None:
    for line in (GPUSTACK, CONFIG_MANAGER, FORUM):
        got = kinds(line)
        assert "cfg:version" in got and "op:unsupported" not in got and "py:NotImplementedError" not in got, got


def test_another_unsupported_model_type_keeps_its_reading() -> None:
    got = kinds("ValueError: unsupported model type: foo")
    assert "op:unsupported" in got and "cfg:version" not in got, got


def test_the_issue_excerpt_reads_config_error(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(EXCERPT.encode()))["diagnosis"]
    assert d["fault_class"] == "config_error", (d["fault_class"], d["confidence"], d.get("evidence_lines"))
