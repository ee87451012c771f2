"""Session 41 (metrics41): pages that are not what they should be, through `sweep once`, `sweep run` and `watch`.

- a gateway's HTML error page (nginx's ``502 Bad Gateway``) instead of the exporter's page is named as an HTML page
  with its title, not ``invalid metric name:<html>``; a saved page cut inside its last line says it was cut;
- `sweep run` says with each sweep which of its pages it could not read (before: only the stored report did);
- `watch --url` says on stderr when a page cannot be read, and its text summary lists them (before: not a word,
  in the run or in the summary: a watch of a dead exporter looked like a quiet cluster).

The good page has npu-exporter's label set and millisecond stamps (Ascend/mind-cluster @22bb3d98
component/npu-exporter/collector/common/metrics_collector.go CardLabel; its metrics reference's example page)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.sources.serve import PageServer

NGINX_502 = ("<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1>"
             "</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")


def good_page() -> str:
    ms = int(time.time() * 1000)
    lab = 'container_name="",id="{i}",model_name="910B3-Ascend-V1",namespace="",pcie_bus_info="",pod_name=""'
    return ("# HELP npu_chip_info_temperature the npu temperature\n# TYPE npu_chip_info_temperature gauge\n"
            + "".join(f"npu_chip_info_temperature{{{lab.format(i=i)}}} 45 {ms}\n" for i in range(4)))


def dead_url() -> str:
    with socket.socket() as s:  # a port nothing listens on: connection refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/metrics"


def test_an_html_error_page_is_named_as_one(tmp_path: Path) -> None:
    with PageServer(lambda: NGINX_502) as srv:
        res = CliRunner().invoke(cli, ["sweep", "once", "--source", "prometheus", "--url", srv.url,
                                       "--data-dir", str(tmp_path)])
    assert res.exit_code == 2
    line = res.stderr.strip()
    assert "\n" not in line and "an HTML page ('502 Bad Gateway'), not metrics" in line, line


def test_a_saved_page_cut_inside_its_last_line_says_so(tmp_path: Path) -> None:
    f = tmp_path / "node-1.prom"
    f.write_text(good_page() + 'npu_chip_info_temperature{container_name="",id="')
    res = CliRunner().invoke(cli, ["sweep", "once", "--source", "prometheus", "--url", f.as_uri(),
                                   "--data-dir", str(tmp_path)])
    assert res.exit_code == 2
    assert "it ends inside its last line (cut short?)" in res.stderr, res.stderr


def test_sweep_run_says_which_page_it_could_not_read_with_each_sweep(tmp_path: Path) -> None:
    with PageServer(good_page) as good, PageServer(lambda: NGINX_502) as bad:
        res = CliRunner().invoke(cli, ["sweep", "run", "--source", "prometheus", "--url", good.url, "--url",
                                       bad.url, "--name", "lab", "--interval", "1s", "--max-runtime", "1.5",
                                       "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    sweeps = [ln for ln in res.stdout.splitlines() if ln[:2] == "20"]
    assert sweeps and all(f"1 not read (their components not swept): {bad.url}" in ln for ln in sweeps), res.stdout
    assert '"not_read": [' in res.stderr  # the JSON log line of each sweep too


def test_watch_says_which_pages_it_could_not_read(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    dead = dead_url()
    with PageServer(good_page) as good, PageServer(lambda: NGINX_502) as bad:
        res = CliRunner().invoke(cli, ["watch", "--logs", str(logs), "--url", good.url, "--url", bad.url, "--url",
                                       dead, "--sweep-interval", "0.5", "--max-runtime", "2", "--poll", "0.1",
                                       "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    err = res.stderr
    assert err.count(f"sweep: not read: {bad.url}") == 1 and err.count(f"sweep: not read: {dead}") == 1, err
    assert f"not read (--url): {bad.url}: --url: not a Prometheus text page: an HTML page" in err, err
    assert f"not read (--url): {dead}: --url: cannot fetch" in err, err
    assert " sweeps of the --url pages" in err, err


def test_watch_of_pages_none_of_which_can_be_read_says_so_once(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    dead = dead_url()
    res = CliRunner().invoke(cli, ["watch", "--logs", str(logs), "--url", dead, "--sweep-interval", "0.5",
                                   "--max-runtime", "1.6", "--poll", "0.1", "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    err = res.stderr
    assert "0 sweeps of the --url pages" in err and "that read none of them" in err, err
    assert err.count("not read (--url): ") == 1 and err.count("sweep: not read: ") == 1, err


def test_a_page_and_a_query_answer_given_to_each_others_source_say_which_source_reads_them(tmp_path: Path) -> None:
    """A saved /api/v1/query answer (Prometheus docs, "HTTP API": status, data.resultType, data.result) given to the
    page source, and a saved page given to the query-answer source, each name the source that reads it."""
    page_file = tmp_path / "node-1.prom"
    page_file.write_text(good_page())
    answer = tmp_path / "answer.json"
    answer.write_text('{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":'
                      '"npu_chip_info_temperature","id":"0","instance":"10.0.0.1:8082"},"value":[1796527000,"44"]}]}}')
    for source, f, want in (("prometheus", answer, "read it with --source prometheus-api"),
                            ("prometheus-api", page_file, "read it with --source prometheus")):
        res = CliRunner().invoke(cli, ["sweep", "once", "--source", source, "--url", f.as_uri(),
                                       "--data-dir", str(tmp_path)])
        assert res.exit_code == 2 and res.stderr.strip().endswith(want), (source, res.stderr)


def test_watch_names_a_metrics_page_in_its_log_tree_once_and_does_not_read_it_as_lines(tmp_path: Path) -> None:
    """A page saved into the watched tree (``curl -s NODE:8082/metrics > DIR/node/metrics.prom`` from cron, written
    again at every scrape): before, its lines went to the log parsers and the watch said nothing of it."""
    from opsbrain.sources.watch import Watcher

    logs = tmp_path / "logs"
    (logs / "gz-n03").mkdir(parents=True)
    w = Watcher(logs, engine=None, report=lambda d: None, poll_s=0.05)
    f = logs / "gz-n03" / "metrics.prom"
    for _ in range(3):
        f.write_text(good_page())
        w.step(sweep=False)
        time.sleep(0.05)
    said = [x for x in w.follower.skipped() if "metrics.prom" in x]
    assert said == ["gz-n03/metrics.prom: an npu-exporter metrics page, not log lines: not followed (sweep it: "
                    "watch --url file:///PATH, or sweep once --source prometheus)"], said
    assert w.follower.lines == 0
