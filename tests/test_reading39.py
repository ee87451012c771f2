"""Session 39: readings session 38 left open, each from the public source that prints the line."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> set[str]:
    return {s.kind for s in parse_line(line)}


# 1. onnxruntime's CANN execution provider: CannCall prints "%s failure %d: %s ; NPU=%d ; hostname=%s ; expr=%s; %s"
# with libName "CANN" for an aclError (cann_call.h CANN_CALL) and CannErrString's placeholder for a code its switch
# does not list (https://github.com/microsoft/onnxruntime/blob/main/onnxruntime/core/providers/cann/cann_call.cc).
# The real line: https://github.com/microsoft/onnxruntime/issues/15677
ORT_UNNAMED = ("CANN failure 507013: (look for ACL_ERROR_xxx in acl. h); NPU=0 ; hostname=davinci-mini ; "
               "expr=aclrtSynchronizeStream(GetStream(kCannStreamDefault)); ")


def test_onnxruntime_head_names_an_acl_code_without_its_name() -> None:
    assert "rt:507013" in kinds(ORT_UNNAMED)
    logged = "2023-04-25 10:11:12.131415161 [E:onnxruntime:Default, cann_call.cc:139 CannCall] " + ORT_UNNAMED
    assert "rt:507013" in kinds(logged)


@pytest.mark.parametrize("line", [
    # CANN_GRAPH_CALL's head: a ge::graphStatus, not an aclError
    "CANNGRAPH failure 507013: (look for graphStatus in ge_error_codes.h) ; NPU=0 ; hostname=h ; expr=f()",
    # another word before "CANN", or another head: the colon after the number still refuses it (session 38)
    "ICANN failure 507013: NPU=0",
    "step failure 507013: NPU=0",
])
def test_other_numbers_before_a_colon_stay_no_code(line: str) -> None:
    assert not {k for k in kinds(line) if k.startswith("rt:") and k[3:].isdigit()}

