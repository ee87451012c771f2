"""A process killed by SIGKILL (session 45, killed45): the shell's ``Killed``, torchrun's ``exitcode: -9``, DeepSpeed's
``return code = -9``, the DataLoader's ``killed by signal: Killed``, ModelArts' ``return code: 137`` and Kubernetes'
``Exit Code: 137`` give the symptom ``os:sigkill``, which leans to npu_oom (the host's OOM killer) only where nothing
else names a cause; Kubernetes' ``OOMKilled`` is the OOM killer itself. Every line is copied from the source its
comment names (docs/formats.md)."""

from __future__ import annotations

from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


KILLED = [
    # the shell's report of a foreground job killed by SIGKILL (OpenShift "Diagnosing an OOM kill", docs.openshift.com
    # container-platform/3.9/dev_guide/application_memory_sizing.html: ``sed -e '' </dev/zero`` prints it)
    "Killed",
    # a non-interactive bash's note (bash jobs.c notify_of_job_status), as an SGE job script printed it
    "/var/spool/sge/cluster-cn-244/job_scripts/9505996: line 8: 21792 Killed                  python3 "
    "~/returnn-parnia/tools/get-attention-weights.py",
    # torchrun's agent (ChatGLM2-6B#520; newer torch heads the line with glog's, roboMamba#10)
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 31631) of binary: "
    "/usr/bin/python3",
    "E0325 20:57:27.620000 2606 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed "
    "(exitcode: -9) local_rank: 5 (pid: 2630) of binary: /root/miniconda3/bin/python",
    # the ChildFailedError table (lzhxmu/CPPO#6)
    "  exitcode  : -9 (pid: 14750)",
    "  traceback : Signal 9 (SIGKILL) received by PID 14750",
    # torch.multiprocessing.spawn (ZegFormer#19)
    "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGKILL",
    # DeepSpeed's launcher (deepspeedai/DeepSpeed#3232, the command list shortened)
    "[2023-04-14 13:11:27,885] [ERROR] [launch.py:434:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py', "
    "'--local_rank=0'] exits with return code = -9",
    # PyTorch's DataLoader worker (torch/csrc/DataLoader.cpp, strsignal(SIGKILL))
    "RuntimeError: DataLoader worker (pid 12345) is killed by signal: Killed.",
    # ModelArts (support.huaweicloud.com trouble-modelarts/modelarts_13_0074: 137 or 247, memory overflow)
    "[Modelarts Service Log]Training end with return code: 137",
    "[Modelarts Service Log]Training end with return code: 247",
    # kubectl describe pod (docs.e2enetworks.com kubernetes troubleshoot oomkilled.md)
    "      Exit Code:    137",
]


@pytest.mark.parametrize("line", KILLED)
def test_a_process_killed_by_sigkill_is_read(line: str) -> None:
    assert "os:sigkill" in kinds(line)


def test_the_dataloader_line_is_the_kill_not_a_second_error() -> None:
    """Session 46 (the lead): the RuntimeError is the DataLoader's report of the kill (tests/test_kill_raised46.py);
    until then the line also gave ``py:RuntimeError``."""
    assert kinds("RuntimeError: DataLoader worker (pid 12345) is killed by signal: Killed.") == ["os:sigkill"]


@pytest.mark.parametrize("line", [
    "    Reason:       OOMKilled",  # kubectl describe pod (docs.e2enetworks.com, OpenShift "Diagnosing an OOM kill")
    "test      0/1       OOMKilled   0          1m",  # oc get pod (OpenShift, the same page)
])
def test_kubernetes_oomkilled_is_the_oom_killer(line: str) -> None:
    assert kinds(line) == ["os:oom_killer"]


@pytest.mark.parametrize("line", [
    # torchrun stopping the other ranks after the first failure (torch/distributed/elastic/multiprocessing/api.py
    # _close; Firefly#171, and a rank that ignored SIGTERM)
    "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 899505 closing signal SIGTERM",
    "W0810 15:47:06 ... Unable to shutdown process 188 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL",
    # DeepSpeed's launcher killing the others (deepspeedai/DeepSpeed#3232)
    "[2023-04-14 13:11:27,879] [INFO] [launch.py:428:sigkill_handler] Killing subprocess 13266",
    # another signal in the same table (torch's ProcessFailure: SIGABRT)
    "  exitcode  : -6 (pid: 187)",
    "  traceback : Signal 6 (SIGABRT) received by PID 187",
    # the kernel's OOM killer is read as itself, not as a bare kill
    "[ 99.1] Out of memory: Killed process 4242 (python3) total-vm:1000kB",
    "Killed process 4242 (python3) total-vm:1000kB",
])
def test_the_launchers_own_kills_and_other_signals_are_no_sigkill(line: str) -> None:
    assert "os:sigkill" not in kinds(line)


def _diagnose(engine: Any, lines: list[str]) -> Any:
    sigs = [s for i, line in enumerate(lines) for s in parse_line(line, t=float(i))]
    return engine.diagnose_signals(sigs, float(len(lines)))


def test_a_lone_kill_leans_to_the_hosts_memory(engine: Any) -> None:
    for line in ("[Modelarts Service Log]Training end with return code: 137", "Killed"):
        d = _diagnose(engine, [line])
        assert d.fault_class == "npu_oom" and 0.4 <= d.confidence < 0.8, (line, d.fault_class, d.confidence)


DEVICE_FAULT = [
    # the device black box's driver record of an HBM multi-bit error (ascend-fd test fixture, Ascend/mind-cluster
    # component/ascend-faultdiag/test/st_testcase/modelarts-job-testdt/ascend/device_log/hisi_logs/.../driver.txt)
    "device_id = 2, fail info: device_id-2 appeared multi ecc err, the physical address is 0x400cd8d202e0",
]
LAUNCHER_KILLS = [
    # torchrun stopping the other ranks, one of which ignored SIGTERM (torch api.py _close), and its table listing
    # a rank the agent saw killed (lzhxmu/CPPO#6's lines)
    "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 899505 closing signal SIGTERM",
    "W0810 15:47:06 ... Unable to shutdown process 188 via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL",
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
    "  exitcode  : -9 (pid: 14750)",
    "  traceback : Signal 9 (SIGKILL) received by PID 14750",
    "[Modelarts Service Log]Training end with return code: 137",
]


def test_a_launchers_kill_after_a_device_fault_does_not_make_it_an_oom(engine: Any) -> None:
    alone = _diagnose(engine, DEVICE_FAULT)
    d = _diagnose(engine, DEVICE_FAULT + LAUNCHER_KILLS)
    assert alone.fault_class == "hbm_uce"
    assert d.fault_class == "hbm_uce", (d.fault_class, d.confidence, d.evidence)


def test_the_oom_killers_line_decides_beside_a_kill(engine: Any) -> None:
    oom = "[ 99.1] Out of memory: Killed process 4242 (python3) total-vm:1000kB"  # test_ingest_real12's line
    d = _diagnose(engine, [oom, "Killed"])
    assert d.fault_class == "npu_oom"


def test_the_triage_leans_a_lone_kill_to_the_hosts_memory_and_no_further() -> None:
    """Model-free: the knowledge base's role (ambiguous for npu_oom only) and the triage's lean
    (:func:`opsbrain.diagnosis.triage.ambiguous_lean`)."""
    from opsbrain.diagnosis.features import incident_features
    from opsbrain.diagnosis.params import TriageParams, VoteParams
    from opsbrain.diagnosis.triage import software_classes, triage
    from opsbrain.kb.compiled import compiled_kb

    software, classes = software_classes(compiled_kb()), tuple(compiled_kb().ids())

    def triaged(lines: list[str]) -> str | None:
        sigs = [s for i, line in enumerate(lines) for s in parse_line(line, t=float(i))]
        t = triage(incident_features(sigs, float(len(lines))), TriageParams(), VoteParams(), software, classes,
                   signals=sigs)
        return t.cls if t else None

    assert triaged(["[Modelarts Service Log]Training end with return code: 137"]) == "npu_oom"
    # the DataLoader's kill is one event: its RuntimeError is the report of the kill (session 46), so it leans as a
    # lone kill does; a bare RuntimeError beside a kill is printed for three classes and leans nowhere
    assert triaged(["RuntimeError: DataLoader worker (pid 12345) is killed by signal: Killed."]) == "npu_oom"
    assert triaged(["Killed", "RuntimeError: step failed"]) is None
    assert triaged(DEVICE_FAULT + LAUNCHER_KILLS) is None  # hardware evidence: no triage at all
