"""Cluster-management text from session 43's blind look (tester43b): a container's self-check under the Ascend
Docker Runtime, whose warnings say of themselves that they are normal there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.test_tester40b import failing, kinds

# pypto's container guide (hw-native-sys/pypto#2755, docs "prebuilt Ascend development container", checked on a card
# under --runtime=ascend with driver 26.0.rc1): pypto-doctor's two warnings "are expected under --runtime=ascend --
# neither means the environment is broken" (the driver's version.info stays on the host; npu-smi enumerates every
# board while only the exposed cards are in the container). Before: driver_firmware_error 0.59 from the first.
NOT_EXPOSED = "warn  driver libs present but version.info is not exposed (normal under --runtime=ascend)\n"
BOARD_TYPE = "warn  npu-smi: npu get board type failed. ret is -9005 \u2014 expected under --runtime=ascend\n"
DOCTOR = "\n".join([
    "ok    device access: aclrtSetDevice(0) ok, 62748MB HBM visible",
    "ok    import pypto -> /workspace/pypto/python/pypto/__init__.py",
    "ok    simpler binding matches its source tree",
    "environment looks good.",
]) + "\n" + NOT_EXPOSED + BOARD_TYPE


def test_a_warning_that_calls_itself_normal_is_no_signal() -> None:
    assert kinds(NOT_EXPOSED) == []
    assert kinds(BOARD_TYPE) == []
    assert failing(NOT_EXPOSED) == 0


def test_the_same_words_without_the_note_still_read() -> None:
    # the note, not the words, makes the line harmless: the driver line alone is still a driver call's failure
    assert kinds("warn  driver libs present but version.info is not exposed\n") == ["drv:api_error"]
    # an expectation about a value is no note on the line's own normalcy
    assert kinds("ERROR dcmi get chip info failed, value expected under 8\n") == ["drv:api_error"]


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_the_blind_excerpt_reads(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "paste.log"
    log.write_text(DOCTOR)
    assert diagnose_logs(str(log), engine)["diagnosis"]["fault_class"] == "unknown"
