"""A collector's head on every line of a file (opsbrain.ingest.wrappers; session 60, from probe59a's findings):
journalctl ``-o short-iso``, a syslog head before a traceback's lines, Jenkins' Timestamper, ``srun --label`` and a
fan-out tool's host, taken off every line that carries them, in pasted text, a bundle's files and followed files;
vLLM's ``(VllmWorker rank=1 pid=...)`` prefix; a journal's ISO head names its host."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest import where
from opsbrain.ingest.surface import plain
from opsbrain.ingest.wrappers import FORMS, plain_under, shared_head

HEADS = {
    "journal-iso": "2025-01-01T10:00:00+0800 host-7 python[1234]: ",
    "rsyslog-rfc3339": "2025-01-01T10:00:00.123456+08:00 host-7 python3[1234]: ",
    "syslog": "Jan  1 10:00:00 host-7 python[1234]: ",
    "jenkins": "[2025-01-01T10:00:00.123Z] ",
    "srun": "3: ",
    "srun-wide": " 3: ",
    "pdsh": "worker-1: ",
}

TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "train.py", line 12, in <module>',
    "    loss.backward()",
    "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total capacity)",
]


@pytest.mark.parametrize("name", sorted(HEADS))
def test_each_head_on_every_line_is_told_and_taken_off(name: str) -> None:
    head = HEADS[name]
    rows = [head + ln for ln in TRACEBACK]
    column = shared_head(rows)
    assert column is not None, name
    assert [plain_under(r, column)[0] for r in rows] == TRACEBACK
    assert all(plain_under(r, column)[1].startswith(head) for r in rows)


def test_no_head_is_told_from_a_few_lines_or_a_minority() -> None:
    assert shared_head(TRACEBACK) is None
    assert shared_head(["3: a", "4: b"]) is None  # fewer than MIN_LINES
    numbered = ["1: first step", "2: second step", "3: third step"] + TRACEBACK * 2
    assert shared_head(numbered) is None  # 3 of 11 lines
    # a journal's first line and a multi-line message's later lines carry no head
    rows = ["-- Logs begin at Wed 2025-01-01 09:00:00 CST. --"] + [HEADS["journal-iso"] + ln for ln in TRACEBACK]
    assert shared_head(rows + ["    continued"]) is FORMS["journal"]


def test_the_kernels_lines_keep_their_syslog_head() -> None:
    """The kernel parsers read the kernel's line with its head, whose host names the node (as before)."""
    rows = ["2025-01-01T10:00:00.123456+08:00 gz-c12 kernel: [ 12.3] EDAC MC0: 1 UE memory read error"] * 4
    assert shared_head(rows) is None
    assert plain(rows[0]) == (rows[0], "")
    assert where.host_in(rows[0]) == "gz-c12"


def test_a_journal_iso_head_names_its_host_and_an_applications_stamp_none() -> None:
    assert where.head_host(HEADS["journal-iso"]) == "host-7"
    assert where.host_in(HEADS["rsyslog-rfc3339"] + "x") == "host-7"
    assert where.host_in("2025-01-01T10:00:00.123Z ERROR main: started") is None


def test_a_journal_iso_head_comes_off_before_a_layout_on_any_line() -> None:
    body = "[ERROR] HCCL(5001,python):2025-03-01-10:03:20.500.000 [x.cc:1][5008]x"
    assert plain(HEADS["journal-iso"] + body) == (body, HEADS["journal-iso"])


def test_vllms_multiprocess_worker_prefix_is_taken_off() -> None:
    body = "ERROR 04-01 08:04:31 [multiproc_executor.py:383] EE9999: Inner Error!"
    line, prefix = plain("(VllmWorker rank=1 pid=97934) " + body)
    assert line == "EE9999: Inner Error!" and prefix.startswith("(VllmWorker rank=1 pid=97934) ")


def _blind_texts() -> dict[str, str]:
    blind = Path(__file__).resolve().parent / "data" / "blind"
    return {e["id"]: e["text"] for f in sorted(blind.glob("blind5[5-8]*.yaml")) for e in yaml.safe_load(f.read_text())}


def test_a_wrapped_paste_reads_as_the_bare_one(engine: Any) -> None:
    """probe59a's excerpts whose class these heads turned (a socket wait read config_error at its waiter, healthy
    runs read framework_error or config_error): each reads as its bare text under each head."""
    texts = _blind_texts()

    def read(text: str) -> tuple[Any, ...]:
        d = diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]
        return d["fault_class"], round(d["confidence"], 2), (d.get("root") or {}).get("device")

    for run in ("b56c-04", "b55d-01", "b55g-06", "b57b-06"):
        bare = read(texts[run])
        for name in ("journal-iso", "srun", "jenkins"):
            head = HEADS[name]
            wrapped = "".join(head + ln for ln in texts[run].splitlines(keepends=True))
            got = read(wrapped)
            assert got[0] == bare[0] and got[2] == bare[2] and abs(got[1] - bare[1]) <= 0.05, (run, name, bare, got)


def test_a_bundles_labelled_console_reads_as_the_bare_one(tmp_path: Path) -> None:
    """A rank's console that ``srun --label`` or a journal wrote (a bundle's file) reads as the bare file: an HCCL
    socket wait whose root is an unknown peer (b56c-04) read config_error at its waiting device behind the heads."""
    text = _blind_texts()["b56c-04"]
    answers = []
    for name, head in (("bare", ""), ("srun", "0: "), ("journal", HEADS["journal-iso"])):
        job = tmp_path / name / "node-1"
        job.mkdir(parents=True)
        (job / "rank0.stdout").write_text("".join(head + ln for ln in text.splitlines(keepends=True)))
        res = CliRunner().invoke(cli, ["diagnose", "--bundle", str(tmp_path / name), "--json", "--data-dir",
                                       str(tmp_path / "d")])
        assert res.exit_code == 0, res.output
        d = json.loads(res.output)["diagnosis"]
        answers.append((d["fault_class"], round(d["confidence"], 2), (d.get("root") or {}).get("device")))
    assert answers[1:] == answers[:1] * 2, answers


@pytest.mark.parametrize("gutter", ["{:>4} | ", "{}:", "{:>7} ", "{:>4}  ", "{:>3} \u2502 "])
def test_line_numbers_in_order_are_taken_off(gutter: str) -> None:
    """An editor's, a pager's or a viewer's line numbers (session 60, probe60a): taken off, the line's own indent
    kept."""
    rows = [gutter.format(i + 12) + ln for i, ln in enumerate(TRACEBACK)]
    column = shared_head(rows)
    assert column is not None
    assert [plain_under(r, column)[0] for r in rows] == TRACEBACK


def test_numbers_out_of_order_are_no_gutter() -> None:
    """A clock at each line's start or srun's task numbers are not line numbers."""
    assert shared_head([f"10:00:0{i} step {i} done" for i in range(6)]) is None
    labelled = [f"{r}: {ln}" for r, ln in zip((3, 0, 3, 1), TRACEBACK, strict=True)]
    assert shared_head(labelled) is FORMS["label"]


def test_a_numbered_grep_line_keeps_its_file() -> None:
    from opsbrain.ingest.surface import grep_file

    rows = [f"{i + 1}:device-0/device-109652_20240913141212740.log:25{i}8:[ERROR] AICPU(24515,aicpu_scheduler):x"
            for i in range(4)]
    column = shared_head(rows)
    assert column is not None
    line, prefix = plain_under(rows[0], column)
    assert line.startswith("[ERROR] AICPU") and grep_file(prefix) == "device-0/device-109652_20240913141212740.log"


def test_the_words_around_a_fenced_paste_are_not_read() -> None:
    from opsbrain.ingest.wrappers import fence_prose

    paste = ["It fails after a few steps. Here is the log:", "```text", *TRACEBACK, "```", "Any idea? Thanks!"]
    assert fence_prose(paste) == {0, len(paste) - 1}
    assert fence_prose(TRACEBACK) == set()
    assert fence_prose(["```", *TRACEBACK]) == set()  # a fence left open: nothing outside it
    # a log whose own lines come before a fence (a served model's Markdown answer printed in it): no paste
    log = [f"INFO 03-01 10:00:{i:02d} [engine.py:1] step {i}" for i in range(12)]
    assert fence_prose(log + ["```python", "print(1)", "```"] + log) == set()


def test_a_healthy_run_with_the_writers_words_around_its_fence_stays_healthy(engine: Any) -> None:
    """probe60a: ``... fails after a few steps. Here is the log:`` before a fenced healthy run (b55d-01, a verl run
    that ended well) read framework_error, the sentence its evidence."""
    text = _blind_texts()["b55d-01"]
    bare = diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]
    paste = ("My training job with verl on 910B fails after a few steps. Here is the log:\n```text\n" + text +
             "```\nAny idea what is wrong? Thanks!\n")
    d = diagnose_logs("-", engine, stdin=io.BytesIO(paste.encode()))["diagnosis"]
    assert (d["fault_class"], round(d["confidence"], 2)) == (bare["fault_class"], round(bare["confidence"], 2))


def test_fence_lines_do_not_count_toward_a_long_input() -> None:
    from opsbrain.diagnosis.realtext import LONG_INPUT, excerpt_view

    rows = [f"step {i} loss {2 - i / 100:.2f}" for i in range(LONG_INPUT - 2)] + ["RuntimeError: boom"]
    bare = excerpt_view("\n".join(rows))
    assert "step 0 loss" in bare  # an excerpt's whole view (a long input's: its stated lines and their neighbours)
    assert excerpt_view("\n".join(["```text", *rows, "```"])) == bare


def test_a_devices_name_on_every_line_is_no_host() -> None:
    """review60: a loop over a host's devices that prints each one's answer (``npu-3: link status: DOWN``)."""
    rows = [f"npu-{i}: link status: {'DOWN' if i == 3 else 'UP'}" for i in range(8)]
    assert shared_head(rows) is None
    assert shared_head([f"worker-{i}: x" for i in range(4)]) is FORMS["fan-out"]


def test_an_applications_iso_stamp_and_level_are_no_journal_head() -> None:
    rows = [f"2025-01-01T10:00:0{i}.123Z INFO trainer: step {i}" for i in range(5)]
    assert shared_head(rows) is None
    assert where.host_in("2025-01-01T10:00:00.123Z ERROR trainer[1234]: x") is None


def test_a_followed_file_written_a_line_a_poll_is_told(tmp_path: Path) -> None:
    """review60: the head is told from the first lines gathered over the polls, not from one poll's (a file written a
    line a poll was never told, its heads never taken off)."""
    import time

    from opsbrain.sources.follow import LogFollower

    log = tmp_path / "train.log"
    log.write_text("")
    follower = LogFollower(tmp_path)
    got: list[Any] = []
    for ln in [f"step {i} loss 2.3" for i in range(6)] + TRACEBACK:
        with log.open("a") as h:
            h.write(HEADS["journal-iso"] + ln + "\n")
        got += follower.poll(time.time())
    assert follower._tails["train.log"].column is FORMS["journal"]
    assert "npu_oom" in {s.kind for s in got} or any("oom" in s.kind for s in got), [s.kind for s in got]


@pytest.mark.parametrize("name", sorted(HEADS))
def test_plain_lines_reads_as_plain_under_each_line(name: str) -> None:
    """A bundle's file read in one scan (wrappers.plain_lines) gives each line what plain_under gives it, lines
    without the head, with other heads and with colours among them."""
    from opsbrain.ingest.wrappers import plain_lines

    head = HEADS[name]
    rows = [head + ln for ln in TRACEBACK] + ["", "    continued", "[rank1]: " + head + "x",
                                              head + "\x1b[31mERROR\x1b[0m y",
                                              head + "[pod/p/c] [ERROR] HCCL(1,python):z", "> quoted"]
    column = shared_head(rows)
    assert column is not None
    assert plain_lines(rows, column) == ([plain_under(r, column)[0] for r in rows],
                                         [plain_under(r, column)[1] for r in rows])
