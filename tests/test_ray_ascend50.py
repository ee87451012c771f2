"""Ray-based runtimes on Ascend (session 50, tester50d): Ray's canned list of what may have ended a worker is not
what happened, MindSpeed's log head states a level, and torch_npu's legacy torch.save warning is harmless."""

from __future__ import annotations

from opsbrain.diagnosis.realtext import BELOW_WARNING, FAILURE_STATED, WARNING_STATED, TextView
from opsbrain.ingest import ingest_text
from opsbrain.ingest.benign import BENIGN

RAY_WORKER_DIED = (
    "A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the problem, "
    "check the logs for the dead worker. RayTask ID: ffffffffffffffff308b51161c6df986f5e8ce0502000000 Worker ID: "
    "ecb9585c3a722865f339a86d7d9ae9abb131b502d1452edadee7b0e3 Node ID: "
    "ed9580448251cc916430246358f4b61106db8cf2a06ff38a04a51eb1 Worker IP address: 10.0.0.1 Worker port: 10074 Worker "
    "PID: 27499 Worker exit type: SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error "
    "code 2. End of file. There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer "
    "due to high memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV "
    "or other unexpected errors.")
"""verl#472: the raylet's line for a worker whose connection closed (ray src/ray/raylet/node_manager.cc
HandleClientConnectionError: the same three possible causes on every such exit)."""

RAY_OOM_KILLS = (
    "(raylet) [2025-12-07 09:57:19,206 E 393463 393463] (raylet) node_manager.cc:3277: 2 Workers (tasks / actors) "
    "killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at ")
"""WM-PO/WMPO#3: the raylet's memory monitor reporting the workers it killed (this one did happen)."""


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


def test_rays_list_of_possible_causes_is_not_an_oom() -> None:
    assert "mem:oom" not in kinds(RAY_WORKER_DIED)
    assert "mem:oom" not in kinds("The actor is dead because its worker process has died. Worker exit type: "
                                  + RAY_WORKER_DIED.split("Worker exit type: ", 1)[1])


def test_the_memory_monitors_own_kill_is_still_an_oom() -> None:
    assert "mem:oom" in kinds(RAY_OOM_KILLS)


def test_mindspeed_log_head_states_its_level() -> None:
    """MindSpeed's formatter ``[Rank {RANK} | Local Rank {LOCAL_RANK}] %(asctime)s %(levelname)s
    [%(name)s:%(lineno)d] => %(message)s`` (Ascend/MindSpeed mindspeed/log_config.py), as verl-ascend-recipe's
    committed 100-step log prints it."""
    info = ('[Rank 0 | Local Rank 0] 2026-09-10 20:05:15,023 INFO [httpx:1025] => HTTP Request: HEAD '
            'https://s3.amazonaws.com/datasets.huggingface.co/datasets/datasets/parquet/parquet.py '
            '"HTTP/1.1 404 Not Found"')
    warning = ("[Rank 0 | Local Rank 0] 2026-09-10 20:04:34,442 WARNING [fla.utils:66] => Current Triton version "
               "3.2.0 is below the recommended 3.3.0 version. Errors may occur and these issues will not be fixed. "
               "Please consider upgrading Triton.")
    assert BELOW_WARNING.search(info)
    assert WARNING_STATED.search(warning) and not BELOW_WARNING.search(warning)
    assert FAILURE_STATED.search("[Rank 3 | Local Rank 3] 2026-09-10 20:04:34,442 ERROR [x:1] => y")
    view = TextView()
    for n, line in enumerate((info, warning), 1):
        view(line, "f", n)
    assert view.failing == 0


def test_torch_npus_legacy_save_warning_is_harmless() -> None:
    """torch_npu warns on every torch.save(..., _use_new_zipfile_serialization=False) (Ascend/pytorch
    torch_npu/utils/serialization.py ``save``); healthy runs print it (verl-ascend-recipe's 100-step log, vLLM
    Ascend runs with sleep mode)."""
    line = ("('Warning: torch.save with \"_use_new_zipfile_serialization = False\" is not recommended for npu "
            "tensor, which may bring unexpected errors and hopefully set \"_use_new_zipfile_serialization = True\"', "
            "'if it is necessary to use this, please convert the npu tensor to cpu tensor for saving')")
    assert BENIGN.search(line)
