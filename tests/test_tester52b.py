"""Session 52, tester52b (resilient training, elastic launch): an elastic launcher's launch-config block is no failure.

torchrun logs ``Starting elastic_operator with launch configs:`` and one field a line (pytorch
torch/distributed/launcher/api.py ``launch_agent``), DLRover's agent the same fields before its node check
(intelligent-machine-learning/dlrover @7c3e9648 dlrover/python/elastic_agent/torch/training.py ``_create_check_agent``).
The ``rdzv_configs`` field prints the rendezvous settings as a dict whose ``'timeout'`` key is the join timeout in
seconds: the text fallback counted it a failing line and read a healthy node-check start-up
(intelligent-machine-learning/dlrover#1622, the PR's training log) as config_error 0.60.
"""

from __future__ import annotations

import time

import pytest

from opsbrain.diagnosis.realtext import ERROR_WORDS, TextView
from opsbrain.ingest.readouts import quiet_field

DLROVER_LINE = "  rdzv_configs     : {'rank': 0, 'timeout': 600, 'node_unit': 1}"
"""intelligent-machine-learning/dlrover#1622 (the PR's "Training logs": a Moore Threads node-check start-up)."""
TORCHRUN_LINE = ("[2024-03-12 08:22:45,549] torch.distributed.launcher.api: [INFO]   rdzv_configs     : "
                 "{'timeout': 900}")
"""aws-samples/awsome-distributed-training, the PyTorch DDP on CPU test case's README (torchrun's per-line head)."""

DLROVER_BLOCK = ("[2025-09-01 20:00:52,947] [INFO] [training.py:1731:_create_check_agent] Starting node-check agent "
                 "with launch configs:\n") + """  entrypoint       : dlrover.trainer.torch.node_check.mthreads_gpu
  min_nodes        : 1
  max_nodes        : 1
  nproc_per_node   : 8
  run_id           : example-edl
  rdzv_backend     : dlrover-master
  rdzv_configs     : {'rank': 0, 'timeout': 600, 'node_unit': 1}
  max_restarts     : 0
  monitor_interval : 5
  log_dir          : None
  metrics_cfg      : {}
"""


def _view(text: str) -> TextView:
    view = TextView()
    for n, line in enumerate(text.splitlines(), 1):
        view(line, "x.log", n)
    return view


@pytest.mark.parametrize("line", [DLROVER_LINE, TORCHRUN_LINE])
def test_launch_config_field_is_quiet(line: str) -> None:
    assert quiet_field(line, ERROR_WORDS.search)
    assert _view(line).failing == 0


def test_dlrover_launch_block_has_no_failing_line() -> None:
    view = _view(DLROVER_BLOCK)
    assert view.failing == 0 and not view.fails()


@pytest.mark.parametrize("line", [
    "  rdzv_configs     : {'rank': 0, 'timeout': 'exceeded after 600s'}",  # a value in words that states a failure
    "  rdzv_configs     : {'timeout': {'join': 600}}",  # not a flat dict
    "  rdzv_configs     : TimeoutError: rendezvous timed out",  # not a dict at all
    "[ERROR] rendezvous failed, rdzv_configs     : {'timeout': 900}",  # another writer's failure before the field
    "RendezvousTimeoutError: rdzv_configs : {'timeout': 900}",
    "  rdzv_configs     : {'timeout': 900} and then a timeout",
])
def test_near_misses_keep_failing(line: str) -> None:
    assert not quiet_field(line, ERROR_WORDS.search)
    assert _view(line).failing == 1


def test_hostile_line_is_linear() -> None:
    for hostile in ("  rdzv_configs : {" + "'timeout': 1, " * 5000 + "}",
                    "[" * 65536, "  rdzv_configs" + " " * 65536 + "x",
                    "[2024] t: [INFO]" + " " * 65536 + "rdzv_configs : {'timeout': 1}" + "}" * 1000):
        start = time.perf_counter()
        quiet_field(hostile, ERROR_WORDS.search)
        _view(hostile)
        assert time.perf_counter() - start < 1.0
