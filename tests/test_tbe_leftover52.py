"""The TBE compile workers' notice that their parent process is gone (session 52, the lead; tester52j's WeNet stop):
``[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!`` is printed by each of CANN's
operator-compile worker processes when the process that forked them exits, whatever ended it: a finished task
(vllm-project/vllm-ascend#1706, "When the task ends, print: ..."; ray-project/ray#49998, after ``Training result``),
a stop asked for, or a kill (msModelSlim's FAQ: ``Killed`` ... then this line). It names no cause: the failure, where
there is one, is in the lines before it, which keep their readings."""

import subprocess
import sys
import time

import pytest

from opsbrain.ingest.benign import BENIGN

LINE = "[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!"


def _diagnose(tmp_path, text):
    import json

    p = tmp_path / "in.log"
    p.write_text(text)
    out = subprocess.run([sys.executable, "-m", "opsbrain", "diagnose", "--logs", str(p), "--json"],
                         capture_output=True, text=True, env={"OPSBRAIN_HOME": str(tmp_path / "home"),
                                                              "PATH": "/usr/bin:/bin"}, check=True)
    return json.loads(out.stdout)["diagnosis"]


@pytest.mark.parametrize("line", [
    LINE,
    "(RayTrainWorker pid=82395) " + LINE,
    "(IntegratedWorker pid=61540) " + LINE + " [repeated 120x across cluster]",
    "Error:  TBE Subprocess[task_distribute] raise error[], main process disappeared!",
])
def test_the_workers_notice_is_benign(line):
    assert BENIGN.search(line)


@pytest.mark.parametrize("line", [
    "[ERROR] TBE Subprocess[task_distribute] raise error[compile failed: te_fusion op Add], main process disappeared!",
    "[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared! Killed",
    "[ERROR] TBE Subprocess[task_distribute] raise error[MemoryError]",
])
def test_a_worker_that_names_an_error_keeps_its_reading(line):
    assert not BENIGN.search(line)


def test_alone_the_notices_raise_no_alarm(tmp_path):
    d = _diagnose(tmp_path, "\n".join([LINE] * 8) + "\n")
    assert d["fault_class"] == "unknown"


def test_the_kill_before_them_keeps_its_reading(tmp_path):
    # msModelSlim's FAQ shape: the shell's Killed, then the workers' notices
    text = "Killed\n" + "\n".join([LINE] * 4) + "\n"
    alone = _diagnose(tmp_path, "Killed\n")
    assert _diagnose(tmp_path, text)["fault_class"] == alone["fault_class"] != "unknown"


def test_a_hostile_line_is_linear():
    line = "TBE Subprocess[task_distribute] raise error[" + "], " * 20000 + "x"
    t = time.perf_counter()
    BENIGN.search(line)
    assert time.perf_counter() - t < 2.0
