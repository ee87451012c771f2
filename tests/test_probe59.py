"""Real collection layouts a helper built in session 59 (probe59b) that ``diagnose --bundle`` read wrong.

- Launchers that save each rank's streams apart (``rank1.stdout``, ``rank1.stderr``): the bundle skipped them as
  unknown files, read nothing and found no fault, while ``--logs DIR`` read them.
- A lone plog whose fault line names no device, while its process's HCCL init line does (``device[5]``): ``--logs``
  named device 5, ``--bundle`` only the host.
- EI0002 on a console in its error code's template form (``from remote rank [5]``, no colon): no wait was read, and
  the root was the pod that printed it, not the rank it waited on.

And one a helper found wrapping excerpts as collectors do (probe59a): ``torchrun --tee``'s ``[default3]:`` and
``mpirun --tag-output``'s ``[1,3]<stderr>:`` were not taken off (13 and 14 of 38 excerpts read otherwise than bare),
nor a ``grep`` file name right after such a tag (the device was lost).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.rankconsole import RE_EI_NOTIFY
from opsbrain.ingest.surface import grep_file, plain


def _bundle(tmp_path: Path, path: Path) -> dict[str, Any]:
    res = CliRunner().invoke(cli, ["diagnose", "--bundle", str(path), "--json", "--data-dir", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def _logs(tmp_path: Path, path: Path) -> dict[str, Any]:
    res = CliRunner().invoke(cli, ["diagnose", "--logs", str(path), "--json", "--data-dir", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)["diagnosis"]


VLLM_OOM = "\n".join([
    "INFO 03-01 10:00:00 [__init__.py:30] Available plugins for group vllm.platform_plugins: ascend",
    "(VllmWorker rank=1 pid=8801) INFO 03-01 10:01:00 [worker_v1.py:188] Available memory: 40530042265, total "
    "memory: 65464696832",
    "ERROR 03-01 10:03:50 [core.py:634] EngineCore encountered a fatal error.",
    "ERROR 03-01 10:03:50 [core.py:634] RuntimeError: Worker failed with error 'NPU out of memory', please check the "
    "stack trace above for the root cause", ""])


def test_a_ranks_stdout_files_are_read_as_its_console(tmp_path: Path) -> None:
    job = tmp_path / "job-7781" / "node-1"
    job.mkdir(parents=True)
    (job / "rank1.stdout").write_text(VLLM_OOM)
    (job / "rank1.stderr").write_text("INFO 03-01 10:00:00 [__init__.py:30] started\n")
    out = _bundle(tmp_path, tmp_path / "job-7781")
    assert not out["skipped"], out["skipped"]
    assert out["diagnosis"]["fault_class"] == "npu_oom"
    assert _logs(tmp_path, tmp_path / "job-7781")["fault_class"] == "npu_oom"


PLOG = "\n".join([
    "[INFO] HCCL(5001,python):2025-03-01-10:00:00.000.000 [hcom.cc:187][5008]hcom init by file success, "
    "rankTablePath[/user/config/rank_table.json], rankNum[1], rank[0], server[10.0.4.1], device[5]",
    "[INFO] GE(5001,python):2025-03-01-10:00:10.000.000 [graph_manager.cc:1201][5002]RunGraph iteration 0 done",
    "[ERROR] RUNTIME(5001,python):2025-03-01-10:03:20.500.000 [api_c.cc:3783][5008]5008rtStreamSynchronize:"
    "ErrCode=507053", ""])


def test_a_lone_plogs_device_is_named_by_both_modes(tmp_path: Path) -> None:
    plogs = tmp_path / "b" / "node-l1" / "process_log" / "run" / "plog"
    plogs.mkdir(parents=True)
    (plogs / "plog-5001_20250301095959000.log").write_text(PLOG)
    d = _bundle(tmp_path, tmp_path / "b")["diagnosis"]
    assert d["fault_class"] == "hbm_uce"
    assert (d["root"]["host"], d["root"]["device"]) == ("node-l1", 5), d["root"]
    assert any("root cluster names" in e for e in d["evidence"]), d["evidence"]
    assert _logs(tmp_path, tmp_path / "b")["root"]["device"] == 5


def test_ei0002_in_its_template_form_names_the_rank_waited_on() -> None:
    line = ("EI0002: [PID: 700] 2025-03-01-10:30:30.100.000 The wait execution of the Notify register times out. "
            "Reason: The Notify register has not received the Notify record from remote rank [5]. base information: "
            "[streamID:[2], taskID[10], taskType[Notify Wait], tag[AllReduce_10.0.9.1%enp_60000_0_1]]. task "
            "information: []")
    for form in (line, line.replace("remote rank [5]", "remote rank: [5]")):
        m = RE_EI_NOTIFY.match(form)
        assert m is not None and m.group(10) == "5", form


def test_launcher_tags_are_taken_off() -> None:
    body = "[ERROR] RUNTIME(5001,python):2025-03-01-10:03:20.500.000 [api_c.cc:3783][5008]5008rtStreamSynchronize:"
    for tag in ("[default3]:", "[default3]: ", "[1,3]<stderr>:", "[1,3]<stdout>: ", "[rank3]:"):
        assert plain(tag + body) == (body, tag), tag
        line, prefix = plain(tag + "worker-0/process_log/run/plog/plog-5001_1.log:7:" + body)
        assert line == body and grep_file(prefix) == "worker-0/process_log/run/plog/plog-5001_1.log", tag
    # a torch log head and a plog stamp in brackets are no launcher's tag
    assert plain("[W723 10:35:57.000000000 x.cpp:1] Warning: y")[1] == ""
    assert plain("[default]: text")[1] == ""


def test_a_tagged_paste_reads_as_the_bare_one(engine: Any) -> None:
    """probe59a's excerpts that the tags turned: an HCCL socket wait whose root is an unknown peer (b56c-04) read
    config_error at the waiting device, a verl run that ended well (b55d-01) framework_error."""
    import yaml

    blind = Path(__file__).resolve().parent / "data" / "blind"
    texts = {e["id"]: e["text"] for name in ("blind55_healthy.yaml", "blind56.yaml")
             for e in yaml.safe_load((blind / name).read_text())}

    def read(text: str) -> tuple[Any, ...]:
        d = diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]
        return d["fault_class"], round(d["confidence"], 4), (d.get("root") or {}).get("device")

    for run in ("b56c-04", "b55d-01", None):
        text = PLOG if run is None else texts[run]
        bare = read(text)
        for tag in ("[default0]:", "[1,0]<stderr>:"):
            assert read("".join(tag + ln for ln in text.splitlines(keepends=True))) == bare, (run, tag)
