"""Excerpts as operators paste them (opsbrain.kb.perturb): the diagnosis of a DEV-split excerpt does not change
with the wrapper around its lines, and the reading layer takes each wrapper off. The TEST split is never read."""

from __future__ import annotations

from typing import Any

import pytest

from opsbrain.ingest import ingest_text
from opsbrain.ingest.surface import plain
from opsbrain.ingest.where import device_in
from opsbrain.kb.perturb import WRAPPERS, disagreements, wrapped
from opsbrain.kb.realeval import default_corpus_dir, load_corpus

HOSTED = ("syslog", "journalctl", "journalctl-zh", "journal-json", "loki-jsonl", "logcli", "compose", "ray")
"""Heads that name a host the bare excerpt lacks: the root names it, and where a device-less signal then sits on
that node, localisation's vote can name the node instead of the device (2 DEV excerpts today): a device, not a
class, that changes; the class is asserted for them as for every wrapper. ``docker compose logs``' container and
Ray's ``ip=`` of a remote worker name the line's host since session 31, and so does the zh_CN syslog head (the same
2 excerpts)."""
ONE_ROW = ("wrap80",)
"""A line wrapped into one full row and its rest is not told from a line of 80 characters (pasterows.WRAP_LOOK): a
device number cut at the row's end is then lost (1 DEV excerpt); the class is asserted."""


LEVELLED = ("vllm",)
"""A wrapper that states a level: vLLM's worker head says ERROR on every line (an exception's record). Since session 54
a line stated at ERROR is a failing line (realtext.stated_error), so an excerpt that abstained for want of one may be
answered under it (9 dev excerpts, each its label's class); a class answered bare still must not change."""


@pytest.fixture(scope="module")
def table() -> dict[str, Any]:
    from opsbrain.kb import SignatureMatcher, load_kb
    from opsbrain.kb.training import load_engine

    dev = [e for e in load_corpus(default_corpus_dir()) if e["split"] == "dev"]
    return disagreements(dev, load_engine(), SignatureMatcher(load_kb()))


MODEL_FLIPS = {"m025-oam-tools-asys-faq-rerun-segfault-leftover-process",
               "x001-cann-troubleshooting-moe-combine-mte-out-of-range-network",
               "n002-runtime-faq-setdevice-107001-driver-not-loaded",
               "t010-pytorch-porting-guide-memcopysync-drvmemcpy-stack-dtype-mismatch",
               "b012-hiascend-aicore-timeout-hw",
               "p005-lmdeploy-4722-dp-ranks-same-devices-hccl-bind-port",
               "v001-vllm-ascend-2629-aclgraph-capture-alloc-sqcq-207005"}
"""Known changes that are the model's, not the reading's, under a head that names a host (:data:`HOSTED`; the signals
are the same but for that host):
with a host, the shipped model's best guess for a shell's segfault and a Python traceback, qingtian_failure (its
family feature ``fam:os`` and one node), crosses the 0.4 bar at 0.42; bare, it stays below. Recorded (session 13), not
hidden: any other change fails.
x001 (session 17): bare, the model's best guess for a MoE kernel's MTE error beside a notify wait and a remote memory
error is framework_error at 0.40, on the bar; with a host it falls just under and the fallback stays out (the remote
memory error, 507057's text, is hardware evidence).
n002 (session 33, after the aclnn table's refit): bare, the engine reads config_error at 0.545, just under the text
fallback's second-opinion bar (0.55), and the words overrule it (driver_firmware_error); with a host it reads 0.551,
just over, and stands.
t010 (session 34, after the refit for the twin's crashed-host and CE-log changes): bare, the engine reads npu_oom at
0.557, just over the text fallback's second-opinion bar (0.55); with a host 0.537, under it, and the words read
framework_error at 0.60.
b012 (session 44, after the refit for link44's case changes): bare, the model reads aicore_hang at 0.408, on the 0.4
bar; with a host (a node of one device) 0.3998, just under, and it abstains with aicore_hang its best guess (before
the refit, 0.37 both ways: an abstention).
p005 (session 45, after the refit for the SIGKILL reading's knowledge-base change): bare, the engine reads config_error
at 0.5497, just under the text fallback's second-opinion bar (0.55), and the words overrule it (framework_error 0.58);
with a host, 0.5512, just over, and it stands.
v001 (session 56, after the refit for 507057's knowledge-base change): bare, the engine reads npu_oom at 0.5489, just
under the second-opinion bar (0.55), and the words overrule it (framework_error 0.60, the label); with a syslog or
journal head, 0.5606, just over, and it stands (the model before the refit read 0.5375 both ways).
"""


def test_no_wrapper_changes_the_class_or_abstention_of_a_dev_excerpt(table: dict[str, Any]) -> None:
    assert table["excerpts"] >= 150
    for name, row in table["per_wrapper"].items():
        assert row["pairs"] >= 90, name  # every wrapper applies to most excerpts (tabs: to those with spaces)
        changed = [c for c in table["changed"] if c["wrapper"] == name and c["was"][0] != c["now"][0]
                   and not (c["id"] in MODEL_FLIPS and name in HOSTED)
                   and not (name in LEVELLED and c["was"][0] == "unknown")]
        assert not changed, (name, changed)


def test_the_root_device_is_kept_but_where_a_head_names_a_host(table: dict[str, Any]) -> None:
    moved = [c for c in table["changed"] if c["wrapper"] not in HOSTED + ONE_ROW
             and not (c["wrapper"] in LEVELLED and c["was"][0] == "unknown")]
    assert not moved, moved


def test_every_wrapper_changes_the_text() -> None:
    text = ("[ERROR] HCCL(80812,python3):2026-06-17-02:21:43.853.226 [transport_manager.cc:954] [86231]Transport "
            "init error! createLink para:rank[7]-localUserrank[7]-localIpAddr[80.5.5.39/7], remoteRank[15]: x\n"
            "|  0  |  0   |  4   |  LINK_DOWN  | Mon Feb 9 21:45:47 2026 |\n")
    got = wrapped(text, "k")
    assert set(got) == set(WRAPPERS)
    assert all(v != text for v in got.values())


@pytest.mark.parametrize(("line", "body"), [
    ("> > [ERROR] HCCL(1,p):2025-01-01-00:00:00.000.000 [a.cc:1] x", "[ERROR] HCCL(1,p):2025-01-01-00:00:00.000.000 "
                                                                     "[a.cc:1] x"),
    ("\ufeff[INFO] HCCL(1,p):x", "[INFO] HCCL(1,p):x"),
    ("    [ERROR] HCCL(1,p):x", "[ERROR] HCCL(1,p):x"),
    ("\t|  0  |  0   |  4   |  LINK_UP    |", "|  0  |  0   |  4   |  LINK_UP    |"),
    ("[rank1]: EI0006: [PID: 1] x", "EI0006: [PID: 1] x"),
    ("[rank7]:[W723 10:35:57.462407611 compiler_depend.ts:57] Warning: EZ9999: Inner Error!",
     "[W723 10:35:57.462407611 compiler_depend.ts:57] Warning: EZ9999: Inner Error!"),
    ("(Worker_DP0_TP5_EP5 pid=818) ERROR 08-13 15:31:21 [multiproc_executor.py:945] [ERROR] 2026-08-13-15:31:21 x",
     "[ERROR] 2026-08-13-15:31:21 x"),
    ("(NPURayWorkerWrapper pid=45464) ERROR 06-09 06:57:48 worker_base.py:581] RuntimeError: NPU out of memory.",
     "RuntimeError: NPU out of memory."),
    ("(EngineCore_DP0 pid=1102)     raise ValueError(x)", "    raise ValueError(x)"),
    ("vllm-ascend-1     | [ERROR] RUNTIME(1,p):x", "[ERROR] RUNTIME(1,p):x"),
    ("May-1   | RuntimeError: x", "RuntimeError: x"),  # a compose service named like a month
    ("Dec  2 10:00:00 node-01 kernel: [ERROR] HCCL(1,p):x", "[ERROR] HCCL(1,p):x"),
    ("Mar 19 14:31:09 dell-63 kubelet[1067]: E0319 14:31:09.987111    1067 endpoint.go:107] x",
     "E0319 14:31:09.987111    1067 endpoint.go:107] x"),
    ("> 2025-01-01T00:00:00.000000000Z [rank0]: |  0  |", "|  0  |"),
    ("【BUG】：RuntimeError：NPU out of memory", "【BUG】: RuntimeError: NPU out of memory"),
    ("8月 18 16:33:56 kylin10-6018 kubelet[176281]: E0818 16:33:56.754985  176281 client.go:90] x",
     "E0818 16:33:56.754985  176281 client.go:90] x"),
    ("(RayWorkerWrapper pid=45464, ip=10.0.0.2) RuntimeError: NPU out of memory. [repeated 6x across cluster]",
     "RuntimeError: NPU out of memory."),
    ('{"log":"[rank1]: EI0006: x \\u003e y\\n","stream":"stderr","time":"2024-05-01T10:11:12.123456789Z"}',
     "EI0006: x > y"),  # Docker's json-file record (Go escapes <, >, &)
    ('{"__REALTIME_TIMESTAMP": "1714558272000000", "_HOSTNAME": "worker-3", "MESSAGE": "[ERROR] HCCL(1,p):x"}',
     "[ERROR] HCCL(1,p):x"),  # journalctl -o json
    ('{"_HOSTNAME": "w-1", "MESSAGE": [104, 105]}', "hi"),  # a MESSAGE that was not UTF-8: its bytes
    ('{"labels":{"host":"w-2"},"line":"EI0006: x","timestamp":"2024-05-01T10:11:12.5+08:00"}', "EI0006: x"),  # logcli
    ('2024-05-01T10:11:12+08:00 {host="w-2", job="train"}  [ERROR] HCCL(1,p):x', "[ERROR] HCCL(1,p):x"),  # logcli
    ("2024-05-01T10:11:12Z {}  EI0006: x", "EI0006: x"),  # logcli, a stream without labels
    ('2024-05-01T10:11:12.123456789+08:00 {host="w-2"}  EI0006: x', "EI0006: x"),  # --timestamp-format RFC3339Nano
    ('{"@timestamp":"2024-05-01T02:11:12.500Z","message":"EI0006: x","host":{"name":"w-3"}}', "EI0006: x"),  # ECS
])
def test_paste_heads_come_off(line: str, body: str) -> None:
    assert plain(line)[0] == body


@pytest.mark.parametrize("line", [
    ">>> torch.ones(2).to(3)",  # Python's prompt is no quote
    "Dec  2 10:00:00 dn360 kernel: [ 12.3] EDAC MC0: 1 UE multi-bit ECC",  # the kernel's own text keeps its head
    "Mar 15 03:40:50 host kernel: Out of memory: Kill process 6033 (java)",
    "Status code | NORMAL_OR_UNSUPPORTED",  # no compose column: no replica number
    "        TraceBack (most recent call last):",  # an indent before text is the line's own
    "[drv api] halCqReportRecv failed: device_id=0",
])
def test_lines_that_carry_no_paste_head_stay(line: str) -> None:
    assert plain(line) == (line, "")


@pytest.mark.parametrize("line", [
    '{"@timestamp":"2024-05-01T02:11:12Z","message":"step failed","error":{"message":"EI0006: x"}}',  # kept whole
    '{"message":"no time: an application\'s own JSON"}', '{"line":"x","labels":{},"timestamp":"t","extra":1}',
    '{"a": 1}', '{"log": 3, "time": "x"}', '{"log":"cut at MAX_LINE',
                                  '{"MESSAGE": [300]}', '["log", "MESSAGE"]'])
def test_json_that_is_no_log_record_stays_a_line(line: str) -> None:
    assert plain(line) == (line, "")


def test_a_journal_record_gives_its_host_and_time() -> None:
    from opsbrain.ingest.timestamps import parse_stamp
    from opsbrain.ingest.where import head_host

    line, head = plain('{"__REALTIME_TIMESTAMP": "1714558272500000", "_HOSTNAME": "worker-3", "_PID": "42", '
                       '"SYSLOG_IDENTIFIER": "python3", "MESSAGE": "RuntimeError: NPU out of memory."}')
    assert line == "RuntimeError: NPU out of memory." and head_host(head) == "worker-3"
    ts, dated = parse_stamp(head)
    assert dated and ts is not None and abs(ts - parse_stamp("2024-05-01T10:11:12.500000")[0]) < 1e-6
    assert plain('{"_HOSTNAME": "worker-3", "MESSAGE": "x"}') == ("x", "")  # no time: no head made up


@pytest.mark.parametrize(("line", "host"), [
    ('{"labels":{"job":"t","node_name":"w-4"},"line":"x","timestamp":"2024-05-01T10:11:12.5+08:00"}', "w-4"),
    ('2024-05-01T10:11:12+08:00 {hostname="w-5"}  x', "w-5"),
    ('{"@timestamp":"2024-05-01T02:11:12.500Z","message":"x","host":{"hostname":"w-6"}}', "w-6"),
    ('{"@timestamp":"2024-05-01T02:11:12.500Z","message":"x","kubernetes":{"node":{"name":"w-7"}}}', "w-7"),
    ('{"@timestamp":"2024-05-01T02:11:12.500Z","message":"x","host":"w-8"}', "w-8"),  # Logstash
    ('2024-05-01T10:11:12+08:00 {job="t", instance="10.0.0.1:9100"}  x', None),  # no host label: no host guessed
])
def test_a_collectors_record_names_its_host(line: str, host: str | None) -> None:
    from opsbrain.ingest.where import head_host

    body, head = plain(line)
    assert body == "x" and head_host(head) == host and head.startswith("2024-05-01T")


def _kinds(text: str) -> list[tuple[str, int | None]]:
    return [(s.kind, s.line_no) for s in ingest_text(text)[0] if not s.kind.startswith("level:")]


def test_a_wrapped_paste_is_read_as_its_lines() -> None:
    line = ("[ERROR] RUNTIME(1,python3):2025-01-01-00:00:00.000.000 [api_c.cc:1]1 rtStreamSynchronize: ErrCode=507015, "
            "desc=[aicore exception]")
    rows = [line[i:i + 80] for i in range(0, len(line), 80)]
    assert len(rows) == 2 and len(rows[0]) == 80
    pasted = "\n".join(["[INFO] HCCL(1,p):ok", *rows, *rows]) + "\n"  # two rows of 80: a wrapped paste
    assert _kinds(pasted) == _kinds("[INFO] HCCL(1,p):ok\n" + line + "\n") != []


def test_a_table_as_wide_as_the_terminal_stays_a_table() -> None:
    rows = ["+" + "-" * 78 + "+", "|  0  |  0   |  4   |  LINK_DOWN  | Mon Feb 9 21:45:47 2026 |".ljust(79) + "|"]
    text = "\n".join([rows[0], rows[1], rows[0], rows[1].replace("21:45:47", "21:48:50")]) + "\n"
    assert all(len(r) == 80 for r in rows)
    assert [k for k, _ in _kinds(text)] == ["hccn:down", "hccn:down"]


def test_a_line_written_twice_is_read_once_and_keeps_its_number() -> None:
    one = "[devid 0]    Sun Oct  5 10:13:50 2025    LINK DOWN\n[devid 0]    Sun Oct  5 10:13:51 2025    LINK UP\n"
    twice = "".join(x + "\n" + x + "\n" for x in one.splitlines())
    kinds = [k for k, _ in _kinds(one)]
    assert "hccn:flap" in kinds and "hccn:down" not in kinds
    assert [k for k, _ in _kinds(twice)] == kinds  # not two DOWNs of which one stays down
    assert {n for _, n in _kinds(twice)} <= {1, 3}  # the lines read keep their own numbers


def test_a_logger_head_keeps_its_level_unless_the_line_states_one() -> None:
    info = "INFO 11-25 22:46:59 [devmanager.py:134] get card list from dcmi reset timeout is 60\n"
    assert _kinds(info) == []  # an INFO step, as the bare line with its own [INFO] gives nothing
    stated = "(Worker pid=1) ERROR 11-25 22:46:59 [x.py:1] [INFO]     2025/11/25 22:46:59.007506 1  devmanager/" \
             "devmanager.go:134    get card list from dcmi reset timeout is 60\n"
    assert _kinds(stated) == []


def test_a_syslog_head_taken_off_still_names_the_host() -> None:
    sigs, _ = ingest_text("Dec  2 10:00:00 node-07 python3[12]: [ERROR] RUNTIME(1,python3):2025-12-02-10:00:00.000.000"
                          " [api_c.cc:1]1 rtStreamSynchronize: ErrCode=507015, desc=[aicore exception]\n")
    assert sigs and {s.host for s in sigs} == {"node-07"}


def test_device_fields_aligned_with_tabs() -> None:
    assert device_in("NPU ID\t: 3") == 3
    assert device_in("chip id\t: 2") == 2


def test_one_message_wrapped_once_is_joined_but_an_80_character_line_before_a_new_line_is_not() -> None:
    from opsbrain.ingest.pasterows import wrapped_paste

    line = ("Value /data/dump for configuration item dump_path in configuration file /opt/app/acl.json is invalid. "
            "Reason: The path does not exist.")
    assert wrapped_paste([line[:80], line[80:]])  # the second row goes on the first's text
    whole = "x" * 79 + "."
    assert not wrapped_paste([whole, "[ERROR] RUNTIME(1,python3):2025-01-01-00:00:00.000.000 next line"])
    assert not wrapped_paste([whole, "2025-01-01 00:00:00 next line"])
    assert "err:EP0003" in [s.kind for s in ingest_text(line[:80] + "\n" + line[80:] + "\n")[0]]


def test_a_row_that_only_starts_with_a_rule_character_is_text_not_a_banner() -> None:
    from opsbrain.ingest.pasterows import unwrap, wrapped_paste

    # torch_npu's task-queue line (CANN 7.0 PyTorch migration FAQ, HelpACLExecute case) cut at 80 columns
    line = "---Thread- --281468173898208: device=0, write_idx=1, read_idx=0, status=0, ret = 500000"
    what = ("what() _HelpACLExecute:/home/***/pytorch/c10/npu/NPUStream.cpp:158 (HelpACLExecute at "
            "/home/***/pytorch/c10/npu/NPUStream.cpp:159)")
    rows = [line[:80], line[80:], "terminate called after throwing an instance of 'c10::Error'", what[:80], what[80:]]
    assert wrapped_paste(rows) and [t for _n, t in unwrap(rows, 10_000)][0] == line
    rule = "-" * 80
    assert [t for _n, t in unwrap([rule, "x" * 80, "y"], 10_000)] == [rule, "x" * 80 + "y"]  # a rule stays whole
