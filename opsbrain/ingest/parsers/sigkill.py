"""A process ended by SIGKILL (signal 9), as the programs around it report it (session 45, killed45).

SIGKILL cannot be caught: the process writes nothing itself, and only its parent or its platform says what happened.
The texts read (``os:sigkill``, a symptom; sources in docs/formats.md):

- the shell: a bare ``Killed`` (bash prints ``strsignal(SIGKILL)`` for a foreground job killed by a signal;
  OpenShift's "Diagnosing an OOM kill": ``sed -e '' </dev/zero`` prints ``Killed``, exit status 137), a
  non-interactive shell's ``<script>: line N: <pid> Killed   <command>`` (bash jobs.c, ``notify_of_job_status``) and an
  interactive one's job line ``[1]+  Killed   <command>``;
- torchrun (torch.distributed.elastic): the agent's ``failed (exitcode: -9) local_rank: 0 (pid: N) of binary: ...``
  (multiprocessing/api.py) and the ``ChildFailedError`` table's ``exitcode  : -9 (pid: N)`` with ``traceback : Signal
  9 (SIGKILL) received by PID N`` (multiprocessing/errors/__init__.py, ``ProcessFailure``); torch.multiprocessing's
  ``process 1 terminated with signal SIGKILL`` (spawn.py, ``ProcessExitedException``);
- DeepSpeed's launcher: ``[ERROR] [launch.py:434:sigkill_handler] [...] exits with return code = -9``
  (deepspeed/launcher/launch.py: the return code of the rank that ended first);
- Open MPI's launcher: ``mpirun noticed that process rank 0 with PID 21183 on node host01 exited on signal 9
  (Killed).`` (orterun's help text ``[orterun:proc-aborted-strsignal]``, PRRTE's ``[prun:proc-aborted-strsignal]``
  "%s noticed that process rank %lu with PID %lu on node %s exited on signal %d (%s)."; session 49, tester49m:
  open-mpi/ompi#2661: ranks on nodes without the memory they needed, 98 GB a rank on 64 GB nodes). Only signal 9:
  another signal (11, 6) is the program's own crash, not a kill from outside;
- PyTorch's DataLoader: ``DataLoader worker (pid N) is killed by signal: Killed.`` (torch/csrc/DataLoader.cpp);
- ModelArts: ``[Modelarts Service Log]Training end with return code: 137`` (and 247; Huawei Cloud "Training Job
  Process Exits Unexpectedly", modelarts_13_0074: "Exit code: 137 or 247 [...] The possible cause is that the
  memory overflows");
- Kubernetes' container state: ``Exit Code:    137`` (128 + 9);
- docker compose's status line for a container that ended, ``server-1 exited with code 137`` (v2, pkg/compose/
  printer.go ``exited with code %d`` and ``... (restarting)``, printed after the container's name by cmd/formatter/
  logs.go; v1's ``georchestra_smtp_1 exited with code 137``, compose/cli/log_printer.py ``wait_on_exit``). Only
  137 is read: 143 (SIGTERM) is a stop asked for, 0 and a program's own codes are no signal (session 46).

What killed it the line does not say. Huawei's ModelArts page above names host memory, but an operator's ``kill -9``,
an eviction or preemption, a liveness probe, a timeout watchdog and a launcher stopping ranks that ignore SIGTERM send
it too (CoreWeave's "What do training job exit codes 137, 139, and 143 mean?": "137 (SIGKILL: out of memory, a
liveness probe kill, or a preemption)"). So the knowledge base gives ``os:sigkill`` an ambiguous role toward npu_oom
only: alone it leans to the host's memory, any real evidence of a cause decides over it.

A compose 137 is no more telling than Kubernetes': ``docker stop`` (and compose's stop on Ctrl+C or
``--abort-on-container-exit``) sends SIGTERM, then SIGKILL after the grace period (10 s), so a main process that
ignores SIGTERM (a PID 1 without a handler) ends with 137 on a stop asked for (georchestra/georchestra#1178: a Ctrl+C
stop listing 143, 0 and 137 lines). The line cannot tell; the reading is the same ambiguous symptom.

Not read: the launcher's own kill of the other ranks after one failed -- torchrun's ``Sending process N closing signal
SIGTERM`` and ``Unable to shutdown process N via Signals.SIGTERM, forcefully exiting via Signals.SIGKILL``
(multiprocessing/api.py, ``_close``), DeepSpeed's ``Killing subprocess N`` -- which follow the first failure (the one
``Root Cause (first observed failure)`` names) and say nothing of its cause. Nor, for the same reason, the kills of
that table's ``Failures:`` section (session 48, tester48g): ``ChildFailedError.format_msg`` (torch/distributed/elastic/
multiprocessing/errors/__init__.py) prints every other rank's exit there and the first one under ``Root Cause``; a
``-9`` among the others is ``_close``'s SIGKILL after its 30 s timeout (vllm-project/speculators#1115: root cause an
exit code 1 at 13:02:58, ranks 0 and 2 ended by SIGKILL and SIGTERM at 13:03:29). A SIGKILL the root entry names is
read as before (:class:`KilledTracebackScan` holds the section's lines).

Kubernetes' ``OOMKilled`` (the container's ``Reason: OOMKilled``, a pod's STATUS column) says the memory cgroup's OOM
killer ended it: read as the kernel's OOM-killer lines are (``os:oom_killer``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened

KIND = "os:sigkill"
RE_SIGKILL = screened(
    r"^\s*(?:\[\d+\][+-]?\s+)?Killed(?:\s{2,}\S.*)?\s*$"  # the shell: bare, or a job line (status column padded)
    r"|:\s*line \d+:\s+\d+\s+Killed\b"  # a non-interactive bash's note of a killed job
    r"|\bfailed \(exitcode: -9\) local_rank:|\bexitcode\s*:\s*-9 \(pid: \d+\)"  # torchrun's agent and its table
    r"|\bSignal 9 \(SIGKILL\) received by PID\b|\bterminated with signal SIGKILL\b"
    r"|\bexits with return code = -9\b"  # DeepSpeed's launcher
    r"|\bnoticed that process rank \d+ with PID \d+ on node \S+ exited on signal 9\b"  # Open MPI's mpirun / prterun
    r"|\bis killed by signal: Killed\b"  # PyTorch's DataLoader worker
    r"|\bTraining end with return code: (?:137|247)\b"  # ModelArts
    r"|^\s*Exit Code:\s+137\s*$"  # Kubernetes' container state (kubectl describe pod)
    r"|^\s*[A-Za-z0-9][\w.-]*\s+exited with code 137(?: \(restarting\))?\s*$")  # docker compose's status line
RE_KILL_RAISED = screened(r"\bDataLoader worker \(pid\(?s?\)? [\d, ]+\) is killed by signal: Killed\.?\s*$"
                          r"|\bProcessExitedException: process \d+ terminated with signal SIGKILL\s*$")
"""The exception a Python caller sees for the kill itself (session 46, the lead): PyTorch's DataLoader raises
``RuntimeError: DataLoader worker (pid N) is killed by signal: Killed.`` when it finds a worker ended by a signal
(torch/csrc/DataLoader.cpp, ``_error_if_any_worker_fails``), torch.multiprocessing raises ``ProcessExitedException:
process 1 terminated with signal SIGKILL`` (spawn.py). The exception is the report of the kill, not a failure of the
program's own: the line is fully explained by ``os:sigkill`` and its ``RuntimeError`` is not read again as a
program's error (which would count the one event twice, once for the generic software class). Only where the
exception ends the line (spawn.py's message is ``process %d terminated with signal %s``): what a line holds after it (a
code, another writer's message) is read by the other parsers as before (session 46, review46)."""
RE_OOMKILLED = screened(r"\bOOMKilled\b")
"""Kubernetes' reason for a container the memory cgroup's OOM killer ended (``Reason: OOMKilled``, ``test 0/1
OOMKilled 0 1m``; OpenShift "Diagnosing an OOM kill"): explicit, the kernel's OOM killer (``os:oom_killer``)."""

_ANY = group_of(globals())

OTHER_FAILURES_CUE = "Failures:"
RE_OTHER_FAILURES = re.compile(r"^\s*Failures:\s*$")
"""The head of a ``ChildFailedError`` table's section of the ranks that ended after the first failure."""
RE_OTHERS_END = re.compile(r"^\s*(?:Root Cause \(first observed failure\):|-{20,}|={20,})\s*$")
"""What ends that section: the root entry's head, or the table's rules (``-`` * 60 between the sections)."""
TABLE_SPAN = 400
"""Lines a ``Failures:`` section may take (9 a rank: 44 ranks), a head with no end within them is left as read."""

RE_EXCEPTION_LINE = re.compile(r"^\s*(?:\[rank\d+\]:\s*)?(?:[A-Za-z_]\w*\.)*[A-Z]\w*"
                               r"(?:Error|Exception|Interrupt|Exit|Fault)(?::|\s*$)")
"""A traceback's last line, the exception it ends with (``RuntimeError: ...``, ``torch.multiprocessing.spawn.
ProcessExitedException: ...``), not a frame's source line (``    raise RuntimeError(...)``)."""
TRACEBACK_HEAD = "Traceback (most recent call last)"
TRACEBACK_SPAN = 400
"""Lines a traceback's frames may take before its exception line: a header with no exception line within them is
left as read (a cut paste)."""
RE_FRAME_LINE = re.compile(r"^(?:\[rank\d+\]: )?(?:\s|$|File \"|\[Previous line repeated \d+ more times\]|[~^]+\s*$)")
"""A line of a traceback's frames as Python prints them: indented (a frame, its source, 3.11's carets, a blank line),
or the same lines pasted without their indent: a ``File "..."`` line, the line right after it (its source), carets;
after torchrun's ``[rank0]: `` alike. Any other line (one right after an indented ``File`` line too) is another
writer's (a second process in the same stream: review47, a CANN error line between the frames was dropped with them)
and ends the traceback as read."""
RE_BARE_FILE = re.compile(r"^(?:\[rank\d+\]: )?File \"")
"""A frame's ``File "..."`` line pasted without its indent: the line after it is its source, whatever it holds."""


SELF_KILL_CUE = "Failed to init endpoint!"
RE_SELF_KILL = re.compile(r"\bFailed to init endpoint! Please check the service log or console output\.")
"""MindIE's daemon as it gives up starting (Ascend/MindIE-LLM src/server/daemon/llm_daemon.cpp ``RunEP``, @8b4871ad):
it logs ``ERR: Failed to init endpoint! Please check the service log or console output.`` and then kills its own
process group, ``killpg(getpgrp(), SIGKILL)``; the shell that started ``mindieservice_daemon`` prints ``Killed``
(public pastes: hiascend forum thread-02104167047335054008, a MindIE notes gist of 2.0.T3.1). That kill is the
daemon's own ending, the failure is in the lines before it: the shell's ``Killed`` after it says nothing of memory
(session 48, the lead; tester47l's b47l-01 read npu_oom's weight from it)."""
RE_SHELL_KILLED = re.compile(r"^\s*(?:\[\d+\][+-]?\s+)?Killed(?:\s{2,}\S.*)?\s*$|:\s*line \d+:\s+\d+\s+Killed\b")
"""The shell's report of a job it started ended by SIGKILL (the shell forms of :data:`RE_SIGKILL`)."""
SELF_KILL_SPAN = 20
"""reason: the most lines from the daemon's announcement to the shell's ``Killed`` read as that kill: the kill
follows the log line at once, and other processes of the group may print a few lines first (a coarse bound, not
fitted)."""


class KilledTracebackScan:
    """The lines of the Python tracebacks that end with the exception raised for a kill (:data:`RE_KILL_RAISED`),
    from the header to the line before the exception: the traceback is how the kill reached the program (PyTorch's
    ``_error_if_any_worker_fails`` from its SIGCHLD handler, torch.multiprocessing's ``join``), where the program was
    when it learnt of it, not a failure of its own. Its lines give no signal (the header no ``py:traceback``) and are
    left out of the text the fallback reads; the exception's line is read (``os:sigkill``). Session 47, the lead:
    blind45's b45g-09, a DataLoader worker killed while host memory grew, read framework_error 0.5 with its traceback
    and npu_oom 0.5 from its last line alone. Any other exception line ends the traceback as read. Fed every line of
    one file in order (:meth:`step`); :attr:`lines` holds the lines found."""

    def __init__(self) -> None:
        self._open: int | None = None
        self._others: int | None = None  # the line of an open ``Failures:`` section's head
        self._source = False  # the next line may be a frame's source line pasted without its indent
        self._announced: int | None = None  # the line of MindIE's announcement of its own kill (RE_SELF_KILL)
        self.lines: set[int] = set()

    def step(self, n: int, text: str) -> range:
        """One line (number ``n``): the numbers of the lines a kill's exception on it found, or the line itself where
        it is the shell's ``Killed`` of a kill MindIE's daemon announced (:data:`RE_SELF_KILL`; else an empty
        range). So is a SIGKILL in a ``ChildFailedError`` table's ``Failures:`` section (the agent's teardown): its
        line alone."""
        if self._others is not None:
            if n - self._others > TABLE_SPAN or RE_OTHERS_END.match(text):
                self._others = None
            elif RE_SIGKILL.search(text):
                self.lines.add(n)
                return range(n, n + 1)
        elif RE_OTHER_FAILURES.match(text):
            self._others = n
        if SELF_KILL_CUE in text and RE_SELF_KILL.search(text):
            self._announced = n
        elif self._announced is not None:
            if n - self._announced > SELF_KILL_SPAN:
                self._announced = None
            elif RE_SHELL_KILLED.search(text):
                self._announced = None
                self.lines.add(n)
                return range(n, n + 1)
        if TRACEBACK_HEAD in text:
            self._open, self._source = n, False
        elif self._open is not None:
            source, self._source = self._source, False
            if n - self._open > TRACEBACK_SPAN:
                self._open = None
            elif RE_KILL_RAISED.search(text):
                back, self._open = range(self._open, n), None
                self.lines.update(back)
                return back
            elif RE_EXCEPTION_LINE.search(text) or not (source or RE_FRAME_LINE.match(text)):
                self._open = None  # the traceback ended in another exception, or another writer's line came
            else:
                self._source = RE_BARE_FILE.match(text) is not None
        return range(0)


def may_carry_kill(data: bytes | bytearray) -> bool:
    """Whether a file's bytes may hold lines :class:`KilledTracebackScan` finds, a kill's traceback, MindIE's own
    kill or a table's kill under ``Failures:`` (one search in C each)."""
    return ((b"Traceback" in data and (b"is killed by signal" in data or b"with signal SIGKILL" in data))
            or (SELF_KILL_CUE.encode() in data and b"Killed" in data)
            or (b"Failures:" in data and (b"-9 (pid:" in data or b"Signal 9 (SIGKILL)" in data)))


def killed_tracebacks_in(lines: Iterable[str], line_no: Callable[[int], int] | None = None) -> set[int]:
    """:class:`KilledTracebackScan`'s lines among the lines of one file, given in order (``line_no``: line k's
    number as written, k from 1; default k): for a reader that holds a file's lines (the bundle reader)."""
    scan = KilledTracebackScan()
    for k, text in enumerate(lines, 1):
        scan.step(line_no(k) if line_no is not None else k, text)
    return scan.lines


def parse(ctx: LineCtx) -> bool:
    """``os:oom_killer`` for Kubernetes' OOMKilled, else ``os:sigkill`` for a SIGKILL the line reports. The line is
    fully explained by it only where it is the exception raised for the kill (:data:`RE_KILL_RAISED`); the other
    parsers still read the rest (a launcher's line naming the rank, a shell's job line)."""
    if not _ANY.may(ctx.text):
        return False
    if RE_OOMKILLED.search(ctx.text):
        ctx.add("os:oom_killer", ctx.node, 2)
    elif RE_SIGKILL.search(ctx.text):
        ctx.add(KIND, ctx.node, 2)
        return RE_KILL_RAISED.search(ctx.text) is not None
    return False


__all__ = ["KIND", "OTHER_FAILURES_CUE", "RE_KILL_RAISED", "RE_OOMKILLED", "RE_SELF_KILL", "RE_SIGKILL",
           "SELF_KILL_CUE", "KilledTracebackScan", "killed_tracebacks_in", "may_carry_kill", "parse"]
