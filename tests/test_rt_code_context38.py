"""Session 38: an AscendCL / runtime return code is read only where a program prints it as one, the number right
after its field or verb in the same clause (``ret=``, ``ret:``, ``ret[``, ``retCode=``, ``ErrCode=``, ``error code
is``, ``result = ``, ``failed: ``, ``returned``) or beside its ACL_ERROR_* name, not anywhere on a line where "ret"
occurs inside "retry" or "code" inside "decode". Each positive row is a shape a real program prints (cited) or one
the twin prints (faultlib.telemetry.formats); each negative row a six-digit number in the code ranges that is no
code."""

from __future__ import annotations

import re
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faultlib.telemetry import formats
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.parsers.cann import RT_CODE, RT_WORD

DT = datetime(2025, 3, 1, 10, 0, 0)


def rt_codes(line: str) -> set[str]:
    """The AscendCL / runtime / aclnn codes (``rt:NNNNNN``) a line gives."""
    return {s.kind[3:] for s in parse_line(line) if s.kind.startswith("rt:") and s.kind[3:].isdigit()}


READ = [
    # the twin's printers (faultlib.telemetry.formats): the runtime's plog line and torch_npu's two forms
    (formats.plog_runtime_error(DT, 1021, 1022, 507053, 0), "507053"),
    (formats.train_runtime_error(DT, 3, 507010), "507010"),
    (formats.npu_error_reason(DT, 507035, 0, 1021, "error_codes").splitlines()[0], "507035"),
    # hicann/runtime api_c.cc error lines (the ascend-fd plog fixtures' layout)
    ("[ERROR] RUNTIME(1,python3):2025-01-01-00:00:00.000.000 [api_c.cc:1]1 rtStreamSynchronize: ErrCode=507015, "
     "desc=[aicore exception]", "507015"),
    ("[ERROR] RUNTIME(23456,python):2025-03-01-10:03:20.450.000 [stream.cc:1044][23457]Stream synchronize failed, "
     "device_id=3, retCode=0x7bcad, ErrCode=507053, desc=[device memory uncorrectable ecc error (hbm uce)]",
     "507053"),
    ("[ERROR] RUNTIME(1,python):2024-03-11-02:22:34.958.800 rtKernelLaunch failed: 507053", "507053"),
    # hicann/runtime format strings: ret=%d, ret[%d], ret=[%d], ret: %d, ret:%d, ret = %d, ret is %d, ret is [%d,
    # RetCode=%d, retCode=%d, result[%d, result = %d, errorCode = %d, error code[%d, returned %d
    ("Sync stream failed, ret=507011.", "507011"),
    ("Malloc device memory failed, size[32212254720], ret[207001], Device 6 may be other processes occupying this "
     "card", "207001"),  # MindSpore ascend_memory_manager.cc
    ("Launch kernel failed, ret=[507015].", "507015"),
    ("[ERROR] GE(1234,python):2025-01-24-11:24:07.476.916 [ge_api.cc:100] Run graph failed, ret: 145021", "145021"),
    ("Get device info failed, ret:107002", "107002"),
    ("---Thread- --281468173898208: device=0, write_idx=1, read_idx=0, status=0, ret = 500000", "500000"),
    ("rtsStreamCreate failed, ret is 207000", "207000"),
    ("Notify wait failed, ret is [507048]", "507048"),
    ("Model execute failed, RetCode=507011", "507011"),
    ("Task launch failed, retCode=507035", "507035"),
    ("Graph run failed, result[145021].", "145021"),
    ("aclopCompileAndExecuteV2 failed, ret = 500002", "500002"),
    ("build op model failed, result = 500002", "500002"),
    ("Synchronize failed, errorCode = 507033", "507033"),
    ("Copy failed, error code[207001]", "207001"),
    ("Skip demo: aclrtMalloc returned 207001.", "207001"),
    ("Operation failed: aclrtSynchronizeStream(stream_) returned error code 507015", "507015"),
    ("RegisterAscendBinary aiv ret 107000", "107000"),
    ("ret=507053 failed", "507053"),
    ("ErrCode=207018 fail", "207018"),
    ("error code:507053 retcode:507011", "507011"),
    # AscendCL via ASCENDCL plog, samples and consoles
    ("[ERROR] ASCENDCL(20203,python3):2025-03-01-09:06:01.150.000 [stream.cpp:105]20203 aclrtSynchronizeStream: "
     "synchronize stream failed, runtime result = 507015", "507015"),
    ("[ERROR] aclrtSynchronizeStream(stream) failed: 507015", "507015"),
    ("[ERROR] aclopCompileAndExecute failed: 148050", "148050"),
    ("aclmdlExecute failed, error code is 545601", "545601"),
    ("runtime error 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION)", "207001"),
    ("device error 507899", "507899"),
    # torch_npu (Ascend/pytorch NPUException.h) as vLLM-ascend issues show it (#2800, #2763, #1972)
    ("RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:47 NPU function error: "
     "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507048", "507048"),
    ("RuntimeError: Worker failed with error 'ACL stream synchronize failed, error code:507035', please check the "
     "stack trace above for the root cause", "507035"),
    ("[W723 10:35:58.297759598 compiler_depend.ts:526] Warning: NPU warning, error code is 507034[Error]:", "507034"),
    # PaddleCustomDevice#1214's title
    ("ACL error, the error code is : 500001", "500001"),
    # the code beside its name (onnxruntime cann_call.cc) and aclnn statuses after their call
    ("CANN failure 507033: ACL_ERROR_RT_DEVICE_TASK_ABORT ; NPU=3 ; hostname=h ; expr=aclrtSynchronizeStream(s);",
     "507033"),
    ("107001 ACL_ERROR_RT_INVALID_DEVICEID", "107001"),
    ("NPU function error: call aclnnInplaceCopy failed, error code is 561103", "561103"),
    ("RuntimeError: aclnnCausalConv1dGetWorkspaceSize failed with aclnnStatus=561002.", "561002"),
]


@pytest.mark.parametrize(("line", "code"), READ)
def test_a_printed_code_is_read(line: str, code: str) -> None:
    assert code in rt_codes(line)


NOT_READ = [
    # the words the old gate found inside others: retry, return, decode, stderr, terror, result-less counts
    "[ERROR] HCCL(1,python):2025-03-01-10:00:00.000.000 [transport.cc:1][2]connect timeout, retry 100000",
    "task id 100000 timeout, stream id 3, retry",
    "[WARNING] blocks returned to pool: 207001",
    "return to pool 100000 bytes, tokens decode 500000",
    "decode step 507015 done",
    "tail -f stderr 107000 lines",
    "terror 100000",
    # a number before the word, or another field between them: no code
    "count[506754] error",
    "stream id 507015 error",
    "pid 507011 exited with failure",
    "port 100001 connect failed",
    "failed for task id 100000",
    "exec failed, device_id=0, stream_id=207001",
    # the runtime's own non-code numbers beside error words (hicann/runtime format strings)
    "Dequeue error, queue id:[100000]",
    "Task exception, errorStreamId=507011, errorTaskId=100000",
    "halMemAlloc failed: drvRetCode=207001",  # a driver code (small), never an ACL one
]


@pytest.mark.parametrize("line", NOT_READ)
def test_a_number_that_is_no_code_is_not_read(line: str) -> None:
    assert rt_codes(line) == set()


CODES = st.from_regex(rf"\A(?:{RT_CODE})\Z")
IS_WORD = re.compile(RT_WORD, re.I)
WORDS = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9).filter(lambda w: not IS_WORD.fullmatch(w))
SEPS = st.sampled_from([" ", ", ", ": ", "=", " = ", "[", " id ", " for task "])


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=8), st.integers(0, 8), CODES, SEPS)
def test_a_number_without_its_word_is_never_a_code(words: list[str], at: int, code: str, sep: str) -> None:
    """Words none of which says "return code" (retry, decode, count, pid, port ... or any other), the number
    anywhere among them: no code."""
    at = min(at, len(words))
    line = " ".join(words[:at]) + (sep if at else "") + code + " " + " ".join(words[at:])
    assert rt_codes(line) == set()


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["ret", "err", "error", "code", "result", "fail", "failed", "errcode", "retcode"]),
       st.text("abcdefghijklmnopqrstuvwxyz", max_size=4), st.text("abcdefghijklmnopqrstuvwxyz", max_size=4),
       st.sampled_from([" ", "=", ": ", " = ", "["]), CODES)
def test_a_word_inside_another_word_is_no_context(word: str, pre: str, post: str, sep: str, code: str) -> None:
    """"ret" inside "retry", "code" inside "decode", "err" inside "stderr": the longer word says nothing of a code."""
    longer = pre + word + post
    if IS_WORD.fullmatch(longer):  # "errorcode", "failure", "returned": still a word of their own
        return
    assert rt_codes(f"step {longer}{sep}{code}") == set()


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["ret", "retCode", "RetCode", "ErrCode", "errorCode", "error_code", "error code", "result",
                        "runtime result", "returned", "failed", "error"]),
       st.sampled_from(["=", ": ", ":", " = ", "[", "=[", " is ", " is [", " ", " is : "]), CODES)
def test_a_code_right_after_its_word_is_read(word: str, sep: str, code: str) -> None:
    assert rt_codes(f"aclrtSynchronizeStream failed, {word}{sep}{code}") == {code}  # "failed": a gate word


def kinds(line: str) -> set[str]:
    return {s.kind for s in parse_line(line)}


def test_an_hccl_line_leaves_a_code_to_the_cann_parser_only_where_that_parser_reads_one() -> None:
    """The HCCL parser ends a line unless it holds a CANN / runtime code: tied to its word as the CANN parser reads
    it (a 10xxxx code after "error code is" is one; a task id 500000 is none)."""
    line = "RuntimeError: EI0002: The wait execution of the Notify register times out. error code is 107020"
    assert {"hccl:EI0002", "rt:107020"} <= kinds(line)
    line = ("[ERROR] HCCL(1,python):2025-03-01-10:00:00.000.000 [transport.cc:1][2]EI0006: connect timeout, task id "
            "500000 failed, retry")
    assert "hccl:EI0006" in kinds(line) and not rt_codes(line)


def test_a_dcmi_return_code_follows_its_own_word() -> None:
    assert "cfg:device" in kinds("npu-smi: get card list failed, ret is -8020")
    assert "cfg:device" not in kinds("dcmi_get_device_info failed, secret -8020")  # "ret" inside "secret"


def test_a_message_template_with_a_task_id_still_stands_for_its_code() -> None:
    """A line that prints a documented message without its code is read as that code unless it prints a code of
    its own: a stream id is none (before, any [125]0xxxx number was), a ``ret=`` code is one."""
    msg = ("Value /npu/abc for configuration item dump_path in configuration file acl.json is invalid. Reason: The "
           "value is a path without read and write permissions.")
    assert "err:EP0003" in kinds(msg)
    assert "err:EP0003" in kinds("stream id 100000: " + msg)
    got = kinds("ret=100000 " + msg)
    assert "rt:100000" in got and "err:EP0003" not in got
