"""Session 45 (tester45j): a blind look at MindSpore launches and data pipelines. One reading fix: msrun's line
for each worker it starts, ``Start worker process with rank id:N, log file:.... Environment variable [RANK_ID=N] is
exported.`` (mindspore-ai/mindspore mindspore/python/mindspore/parallel/cluster/process_entity/_api.py,
``_ProcessManager.start_worker_processes``: logger.warning after exporting RANK_ID for the worker; older releases
print ``Environment variable [RANK_ID] is exported.``), is a variable the launcher set for its workers, not one the
job lacks. MindSpore Transformers' quick start shows the eight lines as the sign the task has started."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

# https://github.com/mindspore-ai/docs/blob/b63ba2654dcbbba8b41768ce7a92bbe1eb0c51c6/docs/mindformers/docs/
# source_en/quick_start/source_code_start.md ("It indicates that the fine-tuning task is started")
MSRUN_START = "".join(
    f"Start worker process with rank id:{i}, log file:output/msrun_log/worker_{i}.log. "
    f"Environment variable [RANK_ID={i}] is exported.\n" for i in range(8))


@pytest.mark.parametrize("line", [
    MSRUN_START.splitlines()[0],
    # the older form with the source position (TeleChat2's MindFormers README, the same msrun call site)
    "[mindspore/parallel/cluster/process_entity/_api.py:224] Start worker process with rank id:0, log file:"
    "output/msrun_log/worker_0.log. Environment variable [RANK_ID] is exported.",
])
def test_msrun_exporting_rank_id_is_no_missing_environment(line: str) -> None:
    assert "cfg:env" not in [s.kind for s in parse_line(line)]


def test_the_msrun_start_is_no_fault(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "console.log"
    f.write_text(MSRUN_START)
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert d["fault_class"] in ("unknown", None)


# https://github.com/mindspore-ai/docs/blob/9e844dc65dc5ef4381574e8b6ec2f93f9681f720/docs/serving/docs/source_en/faq.md
# (the server's max_msg_mb_size, 100 MB by default, and the client's 512 MB limit)
@pytest.mark.parametrize("line", [
    "Received message larger than max (419429033 vs. 104857600)",
    "Sent message larger than max (838858033 vs. 536870912)",
])
def test_a_grpc_message_over_its_size_limit_is_a_setting(line: str) -> None:
    assert "cfg:env" in [s.kind for s in parse_line(line)]
