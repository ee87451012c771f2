"""Failures a program recovered from at once, by its own account, and warnings that say their call did nothing: their
lines give no signal and are left out of the text the fallback reads (split from :mod:`opsbrain.ingest.benign`,
session 47: it had passed 500 lines)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from opsbrain.ingest.parsers.sigkill import KilledTracebackScan, may_carry_kill
from opsbrain.ingest.signal import Signal
from opsbrain.ingest.stopped import StopScan, may_stop
from opsbrain.ingest.testruns import UNITTEST_HEAD, UNITTEST_RAN, UNITTEST_VERDICT, unittest_cue
from opsbrain.ingest.unraisable import UnraisableScan, may_hold
from opsbrain.lazyre import lazy_compile

DCMI_V1_FAILED = lazy_compile(r"\bFailed to initialize DCMI(?!\s+through either API)\b")
"""gpustack-runtime's log line as its V1 ``dcmi_init`` fails (:class:`RecoveredScan`); the merged code's ``Failed to
initialize DCMI through either API, ...`` (both refused) is no such line."""
DCMI_EXCEPTION = lazy_compile(r"\bpydcmi\.DCMIError(?:_\w+)?: ")
"""The exception line that ends that failure's traceback (``gpustack_runtime.detector.pydcmi.DCMIError_NotSupport:
Not Supported``)."""
DCMI_V2_RECOVERED = lazy_compile(r"\bInitialized DCMI through the V2 API, the V1 API being unavailable\b")
"""gpustack-runtime's line once its V2 ``dcmiv2_init`` succeeded after the V1 call failed."""
RECOVERED_SPAN = 40
"""reason: the most lines from the V1 failure's log line to the V2 success line that are read as one attempt: the
traceback of the call (9 lines in gpustack/runtime#20's run) and a few lines another thread may print between; a
success further on is not this failure's recovery (a coarse bound, not fitted)."""
FINALIZED_TWICE = lazy_compile(r"\bNPU warning, error code is 100037\b")
"""torch_npu's warning of a repeated aclFinalize (ACL_ERROR_REPEAT_FINALIZE, :data:`opsbrain.ingest.benign.BENIGN`):
the head of a block whose lines run to the closing ``(function NAME)`` of c10's warning text
(:class:`RecoveredScan`)."""
WARNING_END = lazy_compile(r"\(function [\w:~<>]+(?:\(\))?\)\s*$")
"""The end of a c10 ``TORCH_WARN`` text as printed, ``... (function operator())``."""
FINALIZED_SPAN = 12
"""reason: the most lines from that warning's head to its closing line read as one block: the head, the code's two
lines and the ACL error message (6 lines in npu-nvme's README); a coarse bound, not fitted."""
CONVERTER_LINE = lazy_compile(r"\[(?:ERROR|WARNING)\] LITE\((\d+),(?:[0-9a-f]+,)?converter_lite\):")
"""MindSpore Lite's converter's own ERROR or WARNING log line, ``[ERROR] LITE(11206,converter_lite):2021-01-08-...``
(1.x) or ``[ERROR] LITE(30860,7f579d3f4f40,converter_lite):...`` (with the thread, 2.x): group 1 is its process id
(:class:`RecoveredScan`)."""
CONVERTED = lazy_compile(r"\bCONVERT RESULT SUCCESS:0\b")
"""The converter's verdict once the model was converted and saved (``std::cout << "CONVERT RESULT SUCCESS:" <<
status``, mindspore/lite/tools/converter/converter.cc); a failure prints ``CONVERT RESULT FAILED:<code>``."""
NOT_CONVERTED = lazy_compile(r"\bCONVERT RESULT FAILED:")
CONVERTER_SPAN = 200
"""reason: the most lines from a converter's log line to its success line read as one run: the readers it tries
print 2 ERROR lines (mindspore/mindspore#103's run, 4 lines in all), a large graph's warnings (a name-less tensor, an
unsupported fusion) more; a line further up is not this run's (a coarse bound, not fitted)."""

SAMPLE_LINE = lazy_compile(r"^\[(?:INFO|WARN|ERROR)\]  \S")
"""A CANN runtime sample's own log line, as example/utils.h prints it (``INFO_LOG`` / ``WARN_LOG`` / ``ERROR_LOG``:
``[INFO]  ``, ``[WARN]  ``, ``[ERROR]  ``, two spaces; ``CHECK_ERROR`` / ``CHECK_ERROR_WITHOUT_RETURN`` print
``[ERROR]  Operation failed: CALL returned error code N``; hicann/runtime @681ef761): :class:`RecoveredScan`. A CANN
log line (``[ERROR] RUNTIME(pid,...)``, one space and a module) is not one."""
SAMPLE_PASSED = lazy_compile(r"^(?:\[INFO\]  (?:Run the \w+ sample successfully\.|\[SUCCESS\] \S.{0,300}|"
                             r"\[SKIP\] \S.{0,300})|\[SUCCESS\] \S.{0,300})\s*$")
"""The sample's verdict that it passed: ``[INFO]  Run the NAME sample successfully.`` (the last line of ``main``,
after every ``CHECK_ERROR``), ``[INFO]  [SUCCESS] ...`` / ``[INFO]  [SKIP] ...`` (a feature the product lacks, exit
code 0), or the run.sh's ``[SUCCESS] ...`` once it found that marker in the output."""
SAMPLE_FAILED = lazy_compile(r"^\[FAILURE\] \S")
"""run.sh's verdict that the sample failed (``[FAILURE] NAME sample failed.``): the lines above keep their reading."""
SAMPLE_SPAN = 200
"""reason: the most lines from a sample's own line to its verdict read as one run: the READMEs' outputs hold 3 to 20
lines, a sample that loops over devices more; a line further up is not this run's (a coarse bound, not fitted)."""
SAMPLE_GAP = 5
"""reason: the most other lines between two of a sample's own lines, or between its last line and the program's
verdict, in one run (a CANN log line printed to the console between them); a longer stretch (a rebuild's cmake
output before the next sample, the shell and another program) starts another run, and the lines of the run before
keep their reading: a sample that failed (``CHECK_ERROR`` returned, no verdict; Ascend/samples#16's ``[ERROR]  acl set
device 0 failed, errorCode = 507033``) is no part of a later sample's success (review49b; a coarse bound, not fitted).
run.sh's ``[SUCCESS] ...`` echo follows the program's output at once: it must come within 2 lines of its last line."""


FAILED_SCHEDULING = lazy_compile(r"\bFailedScheduling\b")
"""kube-scheduler's Warning event as it leaves a pod Pending (reason ``FailedScheduling``, its message the FitError's
``0/N nodes are available: ...`` and, since 1.24, the PostFilter's ``preemption: 0/N nodes are available: ...``:
kubernetes pkg/scheduler/schedule_one.go ``handleSchedulingFailure``, framework/types.go ``FitError.Error``), as
``kubectl describe pod`` or ``kubectl get events`` print it (:meth:`RecoveredScan._scheduling`)."""
NODES_UNAVAILABLE = lazy_compile(r"\b\d+/\d+ nodes are available\b")
"""That message's text (``0/1 nodes are available: 1 cannot allocate all claims.``), also on the wrapped lines of a
long event under its ``FailedScheduling`` line."""
POD_SCHEDULED = lazy_compile(r"\bSuccessfully assigned ([\w.-]+)/([\w.-]+) to \S")
"""The Normal event once the pod was bound to a node (reason ``Scheduled``, ``Successfully assigned %v/%v to %v``:
schedule_one.go ``bindingCycle``; Volcano's scheduler cache records the same text): group 2 is the pod's name."""
EVENT_POD = lazy_compile(r"\bpod/([\w.-]+)", re.I)
"""The object column of ``kubectl get events`` (``pod/NAME``, ``Pod/NAME`` in some tools' copies): the pod a
FailedScheduling event names, where it does."""
DESCRIBED = lazy_compile(r"Name:\s+([\w.-]+)\s*$")
"""The first line of ``kubectl describe``'s account of one object (``Name:`` at the line's start, its name; kubectl
pkg/describe/describe.go ``describePod``: ``w.Write(LEVEL_0, "Name:\\t%s\\n", pod.Name)``): ``kubectl describe pods``
prints one such account per pod, each with its own ``Events:``, whose FailedScheduling rows name no pod (review51)."""
SCHEDULING_SPAN = 400
"""reason: the most lines from a FailedScheduling event to the Scheduled event that ends the wait, read as one pod's
scheduling: a ``kubectl describe pod`` holds a few dozen lines, an events listing of a small namespace a few hundred
(a coarse bound, not fitted)."""
WRAP_GAP = 3
"""The most lines under a FailedScheduling line that may hold its wrapped message (``0/N nodes are available``,
``preemption: ...``): a further such line is no part of that event."""

TEST_SPAN = 20000
"""reason: the most lines from a unittest run's first test head to its verdict read as one run (a suite of a few
hundred tests with their output; a line further up is not this run's: a coarse bound, not fitted)."""
TEST_VERDICT_GAP = 3
"""``Ran <n> tests in <t>s``, a blank line, then the verdict (``TextTestRunner.run``; a warning printed between them
at most): a count with no verdict soon after is no run's end."""


BARRIER_ERROR = lazy_compile(
    r"\[E(?:\d{3,4} [\d:.]+)?\s*ProcessGroupGloo\.cpp:\d+\] "
    r"(?:\[Rank (\d+)\]: Rank \d+ failed to pass monitoredBarrier in \d+ ms|"
    r"Rank (\d+) successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank \d+)")
"""c10's ERROR line as ``monitored_barrier`` times out in a rank (torch ProcessGroupGloo::monitoredBarrier): rank 0's
``[Rank 0]: Rank 1 failed to pass monitoredBarrier in 30000 ms`` and another rank's ``Rank 7 successfully reached
monitoredBarrier, but received errors while waiting for send/recv from rank 0``; group 1 or 2 is the rank that logs
it. A real hang prints it too: it is recovered only by that rank's join record (:data:`JOIN_END`)."""
JOIN_HEAD = lazy_compile(r"\bDetected uneven workload distribution\b")
JOIN_END = lazy_compile(r"\bBreak current worker to manually join all workers, world_size \d+, current rank (\d+)\b")
"""The head and the end of the record a training loop logs at INFO when its join barrier timed out and it leaves the
epoch on purpose (WeNet's ``wenet_join``, wenet-e2e/wenet wenet/utils/train_utils.py, copied by CosyVoice's
``cosyvoice_join`` and GPT-SoVITS ports: ``logging.info("Detected uneven workload distribution: {}\\n".format(e) +
"Break current worker to manually join all workers, world_size {}, current rank {}, current local_rank {}\\n")``
after ``dist.monitored_barrier(group=group_join, timeout=...)`` raised): the ranks with less data wait at the barrier,
time out, and every rank breaks out of the epoch together, by design ("we try to join all rank ... in case different
rank has different lr"). The record quotes the barrier's error and gloo's (``Original exception:``, ``Timed out
waiting 30000ms for recv operation to complete``, ``Connection closed by peer``) between its head and its end."""
JOIN_BODY = lazy_compile(r"^(?:\[rank\d{1,6}\]: ?)?(?:\s*Original exception:\s*|"
                         r"\[[^\]\n]{0,300}/gloo/[^\]\n]{1,300}:\d+\] [^\n]*|\s*)$")
"""A line of the record between its head and its end: the quoted exception's `` Original exception: `` line, gloo's
own ``[<path>/gloo/<file>:<line>] <message>`` (``Timed out waiting 30000ms for recv operation to complete``,
``Connection closed by peer [127.0.0.1]:63626``), a blank line; torchrun's ``[rankN]:`` prefix allowed. Any other
line printed among them is another writer's (eight ranks time out together and their line-buffered stderr
interleaves) and keeps its reading (session 52, review52: an NPU out-of-memory line there was recovered)."""
JOIN_RECORD_SPAN = 8
"""reason: the most lines from one line of the join records being printed to the next (WeNet's record is 4 lines:
the head, ``Original exception:``, gloo's line, the end; other writers' lines may come between); a coarse bound, not
fitted."""
JOIN_WAIT = 200
"""reason: the most lines from a rank's barrier error to its join record that are read as one join: eight ranks'
lines interleave (tester52j's and tester52l's WeNet runs on 910B3: within 30 lines); a coarse bound, not fitted."""


class RecoveredScan:
    """The lines of a program's failure it recovered from at once, by its own account, as it prints them: they give no
    signal and are left out of the text the fallback reads (:class:`opsbrain.ingest.text.LineReader`,
    :class:`opsbrain.diagnosis.realtext.TextView`; the bundle reader through :func:`recovered_in`). One such recovery
    is documented: gpustack-runtime's Ascend detector (``AscendDetector.is_supported``, gpustack/runtime#20, merged:
    "implement DCMI V2 API support") calls ``pydcmi.dcmi_init()`` first; a V2-only driver refuses the V1 entry point
    ("a probe result, not a verdict on the hardware -- as the operator's DetectDcmiApiVersion treats it", the code's
    comment, citing MindCluster ascend-common/devmanager/devmanager_common.go), and the detector then calls
    ``pydcmi.dcmiv2_init()`` and logs
    ``Initialized DCMI through the V2 API, the V1 API being unavailable`` (the merged code as a fork holds it:
    aiwantaozi/runtime @77fe1530 gpustack_runtime/detector/ascend.py). The PR's run (log level debug and
    ``GPUSTACK_RUNTIME_LOG_EXCEPTION=1``, the only case in which ``debug_log_exception`` logs a caught exception with
    its traceback, gpustack_runtime/logging.py) shows ``ERROR - Failed to initialize DCMI, loaded from libdcmi.so``, the
    traceback ending ``gpustack_runtime.detector.pydcmi.DCMIError_NotSupport: Not Supported``, then that success line,
    and goes on; the merged code prints the V1 failure only where V2 fails too ("on an A5 host a traceback here would
    sit right above the V2 success line"), as ``Failed to initialize DCMI through either API, ...``, which stays a
    failure. Session 45, tester45k: the run read config_error 0.60 from the traceback's words. Within one file, the V1
    failure's line through its exception line (the line alone where no traceback follows) is recovered when the success
    line comes within :data:`RECOVERED_SPAN` lines; without it, or before the failure, nothing is."""

    def __init__(self) -> None:
        self._open: tuple[int, int | None] | None = None
        """The open failure: its log line's number, and its exception line's once read."""
        self._twice: int | None = None
        """The head line of an open repeated-finalize warning (:data:`FINALIZED_TWICE`)."""
        self._converter: tuple[str, list[int]] | None = None
        """The converter process whose ERROR/WARNING lines wait for its verdict: its id and their numbers."""
        self._sample: list[int] = []
        """A CANN runtime sample's own lines that wait for its verdict (:data:`SAMPLE_LINE`)."""
        self._tests: list[int] | None = None
        """An open unittest run's lines, from its first test's head, waiting for its verdict (:meth:`_test_run`)."""
        self._ran: int | None = None
        """The number of that run's ``Ran <n> tests in <t>s`` line once read."""
        self._described: str | None = None
        """The object the last ``kubectl describe`` account is of (:data:`DESCRIBED`): the pod its events are of."""
        self._unscheduled: list[tuple[int, str | None]] = []
        """FailedScheduling event lines (and their wrapped message) waiting for a Scheduled event: (number, the pod
        the event names, or None where it names none: a ``kubectl describe pod``'s own events)."""
        self._barrier: dict[int, list[int]] = {}
        """Each rank's monitored-barrier error lines waiting for its join record (:data:`BARRIER_ERROR`)."""
        self._record: list[int] | None = None
        """The lines of the join records being printed (:data:`JOIN_HEAD`, :data:`JOIN_BODY`), several ranks' at once
        where their lines interleave; None where none is open."""
        self._heads = 0
        """How many of those records have not printed their end yet."""
        self._record_last = 0
        """The number of the last line of those records."""
        self.lines: set[int] = set()
        """The numbers of the lines recovered so far."""

    @property
    def busy(self) -> bool:
        """Whether a block is open: the next lines may belong to it (a caller that steps only cue lines steps all)."""
        return (self._open is not None or self._twice is not None or self._tests is not None
                or self._record is not None)

    def step(self, n: int, text: str) -> Sequence[int]:
        """One line (number ``n``) of the file: the numbers of the lines a success on it recovered (an empty range
        on any other line). A repeated-finalize warning's lines, head to closing line, are recovered as one block
        (the warning says its own call did nothing, :data:`opsbrain.ingest.benign.BENIGN`); so are a MindSpore Lite
        converter's own ERROR/WARNING lines once it says it converted the model (:meth:`_convert`)."""
        if (self._tests is not None or unittest_cue(text)) and (back := self._test_run(n, text)):
            return back
        if (self._record is not None or join_cue(text)) and (joined := self._join(n, text)) is not None:
            return joined
        if "converter_lite" in text or "CONVERT RESULT" in text:
            return self._convert(n, text)
        if scheduling_cue(text):
            return self._scheduling(n, text)
        if text[:1] == "[" and sample_cue(text):
            return self._sample_run(n, text)
        if self._twice is not None and n - self._twice > FINALIZED_SPAN:
            self._twice = None
        if self._twice is None and "100037" in text and FINALIZED_TWICE.search(text):
            self._twice = n
        if self._twice is not None:
            if not WARNING_END.search(text):
                return range(0)
            back, self._twice = range(self._twice, n + 1), None
            self.lines.update(back)
            return back
        if "DCMI" not in text:
            if self._open is not None and n - self._open[0] > RECOVERED_SPAN:
                self._open = None
            return range(0)
        if DCMI_V1_FAILED.search(text):
            self._open = (n, None)
            return range(0)
        if self._open is None or n - self._open[0] > RECOVERED_SPAN:
            self._open = None
            return range(0)
        start, end = self._open
        if end is None and DCMI_EXCEPTION.search(text):
            self._open = (start, n)
            return range(0)
        if not DCMI_V2_RECOVERED.search(text):
            return range(0)
        self._open = None
        back = range(start, (start if end is None else end) + 1)
        self.lines.update(back)
        return back

    def _join(self, n: int, text: str) -> Sequence[int] | None:
        """A line of a training loop's deliberate join (:data:`JOIN_END`): a rank's barrier error waits for that
        rank's join record; the record's end recovers the record's lines, those of the records printed at once with
        it, and the rank's waiting errors. None: not such a line (the other readings of :meth:`step` go on), e.g.
        another writer's line printed among the record's (review52: it keeps its reading)."""
        if self._record is not None and n - self._record_last > JOIN_RECORD_SPAN:
            self._record, self._heads = None, 0  # a head with no end: nothing is recovered
        if m := BARRIER_ERROR.search(text):
            rank = int(m.group(1) or m.group(2))
            self._barrier = {r: kept for r, ns in self._barrier.items()
                             if (kept := [k for k in ns if n - k <= JOIN_WAIT])}
            self._barrier.setdefault(rank, []).append(n)
            return range(0)
        end = JOIN_END.search(text)
        if JOIN_HEAD.search(text):
            if self._record is None:
                self._record, self._heads = [], 0
            self._heads += 1
        elif self._record is None or (end is None and JOIN_BODY.match(text) is None):
            return None
        self._record.append(n)
        self._record_last = n
        if end is None:
            return range(0)
        back = sorted(self._record + [k for k in self._barrier.pop(int(end.group(1)), []) if n - k <= JOIN_WAIT])
        self._heads -= 1
        self._record = [] if self._heads > 0 else None  # another record printed at once still waits for its end
        self.lines.update(back)
        return back

    def _convert(self, n: int, text: str) -> Sequence[int]:
        """A line of MindSpore Lite's converter: its own ERROR/WARNING lines (:data:`CONVERTER_LINE`) wait for its
        verdict; ``CONVERT RESULT SUCCESS:0`` (:data:`CONVERTED`) recovers those of the last process that printed one,
        within :data:`CONVERTER_SPAN` lines; ``CONVERT RESULT FAILED:<code>`` keeps them all. The converter tries the
        model readers in turn and logs each refusal at ERROR (``ReadProtoFromBinaryFile] Parse ... failed``,
        ``Read onnx model file failed, which is not a matched onnx model``) before one reads the model: on such a run,
        whose last line is that success, a maintainer answered that the model was converted and the error can be
        ignored (mindspore-ai/mindspore#103). A line of another process (a ``benchmark`` run, a later
        converter run) is not this run's: it is kept unless its own run succeeds."""
        if NOT_CONVERTED.search(text):  # (also in the ERROR line that logs it)
            self._converter = None
            return range(0)
        if (m := CONVERTER_LINE.search(text)) is not None:
            pid = m.group(1)
            if self._converter is None or self._converter[0] != pid:
                self._converter = (pid, [])  # another process: the earlier one's lines wait no more
            self._converter[1].append(n)
            return range(0)
        if self._converter is None or not CONVERTED.search(text):
            return range(0)
        back = [k for k in self._converter[1] if n - k <= CONVERTER_SPAN]
        self._converter = None
        self.lines.update(back)
        return back

    def _scheduling(self, n: int, text: str) -> Sequence[int]:
        """A line of Kubernetes scheduling events: a FailedScheduling event (:data:`FAILED_SCHEDULING`) and the
        wrapped lines of its message (:data:`NODES_UNAVAILABLE`, within :data:`WRAP_GAP` lines) wait; the pod's
        Scheduled event (:data:`POD_SCHEDULED`) within :data:`SCHEDULING_SPAN` lines recovers those of that pod, or of
        no named pod. The scheduler retries a Pending pod as the cluster changes (a device plugin registering its
        resource, a finished pod releasing an NPU) and binds it once one node fits: a wait that ended in a bind was no
        failure (session 51, tester51g: HAMi's lab 20 on a Kylin V10 310P3 node, a pod kept Pending 133 min by design
        until a claim was released, then ``Successfully assigned``, read framework_error 0.50). A FailedScheduling
        with no such event after it keeps its reading. Under a ``kubectl describe`` account (:data:`DESCRIBED`) an
        event that names no pod is that account's pod's: ``kubectl describe pods`` of a Pending pod and then of a
        running one is no bind of the first (review51: the running pod's ``Scheduled`` recovered the other's
        FailedScheduling)."""
        if text[:5] == "Name:":
            self._described = m.group(1) if (m := DESCRIBED.match(text)) is not None else None
            return range(0)
        if FAILED_SCHEDULING.search(text):
            pod = m.group(1) if (m := EVENT_POD.search(text)) is not None else self._described
            self._unscheduled.append((n, pod))
            return range(0)
        if (m := POD_SCHEDULED.search(text)) is None:
            if (self._unscheduled and NODES_UNAVAILABLE.search(text)
                    and n - self._unscheduled[-1][0] <= WRAP_GAP):  # the event's message, wrapped
                self._unscheduled.append((n, self._unscheduled[-1][1]))
            return range(0)
        pod = m.group(2)
        back = [k for k, p in self._unscheduled if (p is None or p == pod) and n - k <= SCHEDULING_SPAN]
        self._unscheduled = [(k, p) for k, p in self._unscheduled if k not in back and n - k <= SCHEDULING_SPAN]
        self.lines.update(back)
        return back

    def _sample_run(self, n: int, text: str) -> Sequence[int]:
        """A line of a CANN runtime sample (hicann/runtime example/): its own lines (:data:`SAMPLE_LINE`) wait for its
        verdict; a verdict that it passed (:data:`SAMPLE_PASSED`) recovers them, within :data:`SAMPLE_SPAN` lines,
        and itself, where no more than :data:`SAMPLE_GAP` other lines part them from each other and from it (else
        only itself); run.sh's ``[FAILURE] ...`` keeps them. The samples provoke errors to show an API's behaviour and
        log them with ``CHECK_ERROR_WITHOUT_RETURN`` (the stream failure-mode sample's ``aclrtSynchronizeStream``
        returning 507035 twice and, after ``aclrtStreamAbort``, once more "which is expected"; the callback sample's
        error task; a skip where the SOC lacks UVM, 207000), while ``CHECK_ERROR`` returns -1 before any verdict: a
        verdict says every check that mattered passed (the READMEs' "Sample Output"; session 49, tester49o: three
        such outputs read framework_error 0.54-0.60)."""
        if SAMPLE_FAILED.match(text):
            self._sample = []
            return range(0)
        if SAMPLE_PASSED.match(text):
            gap = 2 if text.startswith("[SUCCESS]") else SAMPLE_GAP + 1  # run.sh's echo: right after the output
            ours = bool(self._sample) and n - self._sample[-1] <= gap
            back = [k for k in self._sample if n - k <= SAMPLE_SPAN] if ours else []
            self._sample = []
            self.lines.update(back + [n])
            return back + [n]
        if SAMPLE_LINE.match(text):
            if self._sample and n - self._sample[-1] > SAMPLE_GAP + 1:
                self._sample = []  # another run: the earlier one's lines wait no more
            self._sample.append(n)
        return range(0)

    def _test_run(self, n: int, text: str) -> Sequence[int]:
        """A line of a unittest run (``python -m unittest -v``, ``TextTestRunner(verbosity=2)``): from its first test's
        head (:data:`opsbrain.ingest.testruns.UNITTEST_HEAD`) every line waits for the run's verdict; ``OK``
        (:data:`~opsbrain.ingest.testruns.UNITTEST_VERDICT`) within :data:`TEST_VERDICT_GAP` lines of ``Ran <n> tests in
        <t>s`` recovers them all, within :data:`TEST_SPAN` lines, and itself; ``FAILED (failures=...)`` keeps them.
        ``TextTestRunner.run`` writes ``OK`` only when ``wasSuccessful()`` (no failure, no error, no unexpected success:
        CPython Lib/unittest/runner.py, result.py), and the tests' own output sits between their heads and statuses
        (``_write_status``): what a passing test printed is its expected output (a test of an error path logs the
        error it provokes; tester50n's b50n-17, ``save barrier complete req=aborted`` of a test named
        ``test_abort_barrier_...``), as a CANN sample's provoked errors are (:meth:`_sample_run`)."""
        if self._tests is not None and n - self._tests[0] > TEST_SPAN:
            self._tests = self._ran = None  # too far: not one run (its lines keep their reading)
        if self._tests is None:
            if UNITTEST_HEAD.match(text):
                self._tests, self._ran = [n], None
            return range(0)
        if self._ran is not None and UNITTEST_VERDICT.match(text):
            back, passed = self._tests + [n], text.lstrip().startswith("OK")
            self._tests = self._ran = None
            if passed:
                self.lines.update(back)
                return back
            return range(0)
        if self._ran is not None and n - self._ran > TEST_VERDICT_GAP:
            self._tests = self._ran = None  # no verdict after the count: the run's lines keep their reading
            return range(0)
        if UNITTEST_RAN.match(text):
            self._ran = n
        self._tests.append(n)
        return range(0)

    def kept(self, signals: list[Signal]) -> list[Signal]:
        """``signals`` but those of a recovered line."""
        return [s for s in signals if s.line_no not in self.lines] if self.lines else signals


def may_recover(data: bytes | bytearray) -> bool:
    """Whether a file's bytes may hold a failure :class:`RecoveredScan` reads as recovered (its cue lines name DCMI or
    ACL's code 100037, or a converter's success, or a pod's Scheduled event, or a loop's join record): a search in C,
    the bundle walk's cue to run :func:`recovered_in` over the file's lines."""
    return (b"DCMI" in data or b"100037" in data or b"CONVERT RESULT SUCCESS" in data
            or b" sample successfully." in data or b"[SUCCESS] " in data or b"[SKIP] " in data
            or (b") ... " in data and b"Ran " in data) or b"Successfully assigned " in data
            or b"manually join all workers" in data)


def join_cue(text: str) -> bool:
    """Whether a line may open a deliberate join's lines (:meth:`RecoveredScan._join`): a cheap test."""
    return "monitoredBarrier" in text or "uneven workload" in text


def scheduling_cue(text: str) -> bool:
    """Whether a line may be a Kubernetes scheduling event :meth:`RecoveredScan._scheduling` reads: a cheap test."""
    return ("FailedScheduling" in text or "nodes are available" in text or "Successfully assigned " in text
            or text[:5] == "Name:")


def sample_cue(text: str) -> bool:
    """Whether a line may be a CANN runtime sample's own line or verdict (:meth:`RecoveredScan._sample_run`): a cheap
    test of its head."""
    return text[6:8] == "  " or text[7:9] == "  " or text[:10] in ("[SUCCESS] ", "[FAILURE] ")


def recovery_cue(text: str, scan: RecoveredScan | None) -> bool:
    """Whether a line must be stepped through ``scan``: one that may open or close what it reads, or any line while a
    block is open (a caller that skips the rest keeps :class:`RecoveredScan` cheap)."""
    return ("DCMI" in text or "100037" in text or "converter_lite" in text or "CONVERT RESULT" in text
            or (text[:1] == "[" and sample_cue(text)) or (scan is not None and scan.busy) or unittest_cue(text)
            or scheduling_cue(text) or join_cue(text))


def recovered_in(lines: Iterable[str], line_no: Callable[[int], int] | None = None) -> set[int]:
    """The numbers of the lines of one file, given in order, that :class:`RecoveredScan` finds recovered (``line_no``:
    line k's number in the file as written, k from 1; default k): the rule ``--logs``' reader applies as it reads
    (:meth:`opsbrain.ingest.text.LineReader.feed`), for a reader that holds a file's lines (the bundle reader,
    :mod:`opsbrain.bundle.reader`: their signals are dropped, session 46)."""
    scan = RecoveredScan()
    for k, text in enumerate(lines, 1):
        if recovery_cue(text, scan):  # (the scan's other lines only close an open DCMI failure, as its next DCMI
            scan.step(line_no(k) if line_no is not None else k, text)  # line does too)
    return scan.lines


def may_quiet(data: bytes | bytearray) -> bool:
    """Whether a file's bytes may hold lines read as no failure of their own: a failure recovered from
    (:func:`may_recover`) or a traceback that carries a kill's report
    (:func:`opsbrain.ingest.parsers.sigkill.may_carry_kill`), a stop's leftovers
    (:func:`~opsbrain.ingest.stopped.may_stop`) or an exception CPython printed and went on
    (:func:`~opsbrain.ingest.unraisable.may_hold`); the bundle walk's cue to run :func:`quiet_lines_in`."""
    return may_recover(data) or may_carry_kill(data) or may_stop(data) or may_hold(data)


def quiet_lines_in(lines: Iterable[str], line_no: Callable[[int], int] | None = None) -> set[int]:
    """The numbers of the lines of one file, given in order, that give no signal under ``--logs``: those
    :class:`RecoveredScan` finds recovered and those of a traceback that carried a kill's report
    (:class:`~opsbrain.ingest.parsers.sigkill.KilledTracebackScan`), a stop's leftovers
    (:class:`~opsbrain.ingest.stopped.StopScan`) and an exception CPython printed and went on
    (:class:`~opsbrain.ingest.unraisable.UnraisableScan`), in one pass (a packed file is unpacked once;
    session 47's second read: the bundle reader walked such a file twice). For a reader that holds a file's lines
    (the bundle reader, whose signals of these lines are dropped)."""
    scan, killed, stopped, ignored = RecoveredScan(), KilledTracebackScan(), StopScan(), UnraisableScan()
    for k, text in enumerate(lines, 1):
        n = line_no(k) if line_no is not None else k
        if recovery_cue(text, scan):
            scan.step(n, text)
        killed.step(n, text)
        stopped.step(n, text)
        ignored.step(n, text)
    return scan.lines | killed.lines | stopped.lines | ignored.lines
