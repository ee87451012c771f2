"""The runtime's inner error numbers and reason strings (hicann/runtime internal_error_define.hpp, errcode_manage.cc):
``is err:0x7010003``, ``InnerCode=0x7020023``, ``reason=[device id error]`` / ``reason=device retain error`` read as
the AscendCL code the runtime reports them as (``rt:<acl>``); the parser's tables are knowledge_base/codes.yaml's
``runtime_inner_codes`` and ``runtime_reasons`` rows (compiled, the one copy), each taking its AscendCL code's
category. Every line is copied from the source its comment names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from opsbrain.ingest import ingest_text
from opsbrain.ingest.parsers.rt_internal import RT_INTERNAL_TO_ACL, RT_REASON_TO_ACL, acl_maps
from opsbrain.kb.coverage import coverage, shipped_tables

KB = Path(__file__).resolve().parents[1] / "knowledge_base"


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


@pytest.mark.parametrize(("line", "kind"), [
    # vllm-ascend#672 (tests/data/real_logs corpus_e e013): RT_ERROR_DEVICE_ID 0x07010003, its reason 'device id error'
    ("[rank1]: EE9999: [PID: 540989] 2025-04-27-03:11:08.269.791 get error: phyid:0 realDeviceId:0 is "
     "err:0x7010003[FUNC:GetDeviceIndexByPhyId][FILE:api_error.cc][LINE:1918]", "rt:107001"),
    ("[rank1]:        rtGetDeviceIndexByPhyId execute failed, reason=[device id error][FUNC:FuncErrorReason]"
     "[FILE:error_message_manage.cc][LINE:53]", "rt:107001"),
    # hw-native-sys/PTOAS#341 (corpus_a a004): the later, unbracketed form; RT_ERROR_DEVICE_RETAIN -> 507033
    ("        rtSetDevice execution failed, reason=device retain error[FUNC:FuncErrorReason]"
     "[FILE:error_message_manage.cc][LINE:65]", "rt:507033"),
    # vllm-ascend#8186 (corpus_b b018): RT_ERROR_LOST_HEARTBEAT -> ACL_ERROR_RT_LOST_HEARTBEAT 507010
    ("        rtDeviceSynchronizeWithTimeout execution failed, reason=lost heartbeat[FUNC:FuncErrorReason]"
     "[FILE:error_message_manage.cc][LINE:65]", "rt:507010"),
    # InternLM/lmdeploy#2585 (corpus_g g019): the first commit's text of RT_ERROR_CONTEXT_NULL
    ("[ERROR] RUNTIME(1,python3.10):2024-10-14-07:24:13.025.157 [error_message_manage.cc:48]1 FuncErrorReason:"
     "rtGetDevMsg execute failed, reason=[context pointer null]", "rt:107002"),
    # hw-native-sys/PTOAS#948 (corpus_h h026): FuncErrorReason's own sentence for RT_ERROR_CONTEXT_NULL
    ("[ERROR] RecentErrMsg: [PID: 354370] 2026-07-21-09:16:41.017.602 Invalid_Argument(EE1001): The argument is "
     "invalid.Reason: rtGetDevMsg execution failed, the context is a null pointer.", "rt:107002"),
    # hicann/runtime docs/zh/FAQ/EE1023资源不足问题.md (corpus_m m021): RT_ERROR_DRV_NO_RESOURCES -> 207005
    ("[ERROR] RUNTIME(227839,rtstest_host):2026-07-13-11:39:20.982.681 [error_message_manage.cc:69]227839 "
     "FuncErrorReason:rtModelExecute execution failed, reason=driver error:resource alloc fail", "rt:207005"),
    # Ascend/pytorch#43 (corpus_a a052): RT_ERROR_TSFW_TASK_TIMEOUT -> ACL_ERROR_RT_TASK_TIMEOUT 107020
    ("worker-1:         rtDeviceSynchronize execute failed, reason=[task timeout][FUNC:FuncErrorReason]"
     "[FILE:error_message_manage.cc][LINE:53]", "rt:107020"),
])
def test_inner_numbers_and_reasons_read_as_their_acl_code(line: str, kind: str) -> None:
    assert kind in kinds(line)


@pytest.mark.parametrize("line", [
    # HCCL's own 'Reason:' (vllm-ascend#486): no runtime reason string
    "[rank1]: EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out. Reason: Remote Rank did "
    "not send the data in time. Please check the reason for the rank being stuck",
    # a reason the runtime's maps do not hold, and a number past its definitions
    "        rtSetDevice execution failed, reason=[no such reason text][FUNC:FuncErrorReason]",
    "        stream setup failed, retCode=0x7ff0001.[FUNC:SyncGetDevMsg][FILE:api_impl.cc][LINE:4643]",
])
def test_other_reasons_and_numbers_give_no_runtime_code(line: str) -> None:
    assert not {k for k in kinds(line) if k.startswith("rt:") and k[3:].isdigit()}


# GetErrorDesc's lines print the AscendCL code, the reason and the inner number together: the tables must agree with
# what the runtime printed (vllm-ascend#14347, vllm-ascend#2542, the EE1023 FAQ: corpus_a a033, j006, m021)
DESC_LINES = [
    "[ERROR] RUNTIME(212914,):2026-03-26-14:23:18.204.183 [api_c.cc:1097]212914 rtMemcpy:ErrCode=107030, desc=[the "
    "current capture mode does not support this operation], InnerCode=0x703001c",
    "[ERROR] RUNTIME(278,python3):2025-08-26-03:01:17.587.983 [api_c_device.cc:23]278 rtGetDeviceCount:ErrCode=507899, "
    "desc=[driver error:internal error], InnerCode=0x7020010",
    "[ERROR] RUNTIME(227839,rtstest_host):2026-07-13-11:39:20.982.674 [api_c.cc:1713]227839 rtModelExecute:"
    "ErrCode=207005, desc=[driver error:resource alloc fail], InnerCode=0x7020023",
]


@pytest.mark.parametrize("line", DESC_LINES)
def test_tables_agree_with_the_runtimes_own_lines(line: str) -> None:
    m = re.search(r"ErrCode=(\d+), desc=\[([^\]]+)\], InnerCode=0x([0-9a-f]+)", line)
    assert m is not None
    code, reason, inner = int(m.group(1)), m.group(2), int(m.group(3), 16)
    assert RT_INTERNAL_TO_ACL[inner] == code and RT_REASON_TO_ACL[reason.lower()] == code


def _codes() -> dict:
    return yaml.safe_load((KB / "codes.yaml").read_text(encoding="utf-8"))


def _pairs(doc: dict) -> tuple[dict[int, int], dict[str, int]]:
    """The rows' (inner number -> AscendCL code, lower-cased reason -> AscendCL code), read here from the YAML."""
    return ({int(str(r["code"]), 16): int(r["acl"]) for r in doc["runtime_inner_codes"]},
            {str(r["text"]).lower(): int(r["acl"]) for r in doc["runtime_reasons"]})


def test_the_parsers_tables_are_the_codes_yaml_rows_which_inherit_the_acl_category() -> None:
    doc = _codes()
    acl = {int(r["code"]): r for r in doc["acl_runtime"]}
    inner, reasons = doc["runtime_inner_codes"], doc["runtime_reasons"]
    assert list(doc)[-3:] == ["runtime_inner_codes", "runtime_reasons", "runtime_reason_texts"]  # they close the file
    assert _pairs(doc) == (RT_INTERNAL_TO_ACL, RT_REASON_TO_ACL) == acl_maps()
    assert (len(RT_INTERNAL_TO_ACL), len(RT_REASON_TO_ACL)) == (len(inner), len(reasons))  # no number or text twice
    for row in inner + reasons:
        assert row["source"].startswith("https://github.com/hicann/runtime/blob/"), row
        own = acl.get(int(row["acl"]))
        if own is None:  # an AscendCL code without a documented row: internal, and ambiguous
            assert row["category"] == "internal" and row.get("ambiguous") is True, row
        else:
            assert row["category"] == own["category"], row
            assert bool(row.get("ambiguous")) == bool(own.get("ambiguous")), row
    assert RT_INTERNAL_TO_ACL[0x7030027] == 107041  # a define split over two lines (ACL_ERROR_RT_CAPTURE_MODE_...)
    assert RT_INTERNAL_TO_ACL[0x7100006] == 507000  # not in the map: the runtime's internal error


DEVICE_ID_LINE = ("[rank1]: EE9999: [PID: 540989] 2025-04-27-03:11:08.269.791 get error: phyid:0 realDeviceId:0 is "
                  "err:0x7010003[FUNC:GetDeviceIndexByPhyId][FILE:api_error.cc][LINE:1918]")
"""vllm-ascend#672 (corpus_e e013), as in the first test above."""


def test_a_row_removed_from_codes_yaml_is_gone_from_the_parsers_tables(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    from opsbrain.ingest.parsers import rt_internal
    from opsbrain.kb import compiled

    kb = tmp_path / "knowledge_base"
    shutil.copytree(KB, kb, ignore=shutil.ignore_patterns("model", "__pycache__"))
    lines = (kb / "codes.yaml").read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [x for x in lines if not x.startswith(('- {code: "0x7010003",', '- {text: "device id error",'))]
    assert len(kept) == len(lines) - 2
    (kb / "codes.yaml").write_text("".join(kept), encoding="utf-8")
    caches = (compiled.content_key, compiled._load, rt_internal.acl_maps)
    try:
        with monkeypatch.context() as m:
            m.setattr(compiled, "_kb_dir", lambda: kb)
            m.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))
            for c in caches:
                c.cache_clear()
            inner, reasons = rt_internal.acl_maps()
            whole_inner, whole_reasons = _pairs(_codes())
            assert inner == {k: v for k, v in whole_inner.items() if k != 0x7010003}
            assert reasons == {k: v for k, v in whole_reasons.items() if k != "device id error"}
            assert "rt:107001" not in kinds(DEVICE_ID_LINE)
    finally:
        for c in caches:
            c.cache_clear()
    assert "rt:107001" in kinds(DEVICE_ID_LINE)  # the shipped knowledge base again


def test_coverage_reads_every_inner_number() -> None:
    tables = [t for t in shipped_tables() if t.id == "runtime_inner_codes"]
    assert len(tables) == 1 and len(tables[0].rows) == len(RT_INTERNAL_TO_ACL)
    cov = coverage(tables)[0]
    assert cov.counts()["not read"] == 0, cov.as_dict(missing=True)["missing"][:5]


EE1019_EXAMPLE = "Allocating task info failed. Reason: The number of pending tasks in the stream exceeds the limit."
"""The runtime's EE1019 reference page (hicann/runtime docs/en/error_code_ref/RTS-Errors/EE1019-Execution_Error.md;
corpus_l l010): the message as a console relays it, without its code."""


def test_a_runtime_reason_text_stands_for_its_code_only_where_the_code_is_not_printed() -> None:
    assert "msg:internal" in kinds(EE1019_EXAMPLE)  # EE1019's category
    # the error manager's report form (the coverage probe 'ecode': vllm-ascend#7310) with the same message
    coded = kinds("EE1019: [PID: 30776] 2026-03-16-07:55:33.842.415 " + EE1019_EXAMPLE)
    assert "err:EE1019" in coded and "msg:internal" not in coded  # there the code decides


def test_reason_text_rows_take_their_codes_category() -> None:
    doc = _codes()
    cann = {str(r["code"]): r for r in doc["cann_error_codes"]}
    rows = doc["runtime_reason_texts"]
    assert rows
    for row in rows:
        own = cann[str(row["code"])]
        assert row["category"] == own["category"] and len(str(row["text"])) >= 26, row
        assert "%" not in str(row["text"]) and row["source"].startswith("https://github.com/hicann/runtime/blob/")


@pytest.mark.parametrize(("line", "kind"), [
    # vllm-ascend#8981 (corpus_g g011): the driver's invalid-value return as the runtime maps it (107000)
    ("(EngineCore pid=471424)         rtsPointerGetAttributes execution failed, reason=driver error:invalid value"
     "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:61]", "rt:107000"),
    # the EE1023 FAQ's plog (corpus_m m021): RT_ERROR_DRV_NO_RESOURCES, a scheduling resource (207005)
    ("[ERROR] RUNTIME(227839,rtstest_host):2026-07-13-11:39:20.982.681 [error_message_manage.cc:69]227839 "
     "FuncErrorReason:rtModelExecute execution failed, reason=driver error:resource alloc fail", "rt:207005"),
])
def test_a_driver_error_reason_string_is_its_code_not_a_driver_fault(line: str, kind: str) -> None:
    got = kinds(line)
    assert kind in got and "drv:api_error" not in got
