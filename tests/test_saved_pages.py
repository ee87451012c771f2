"""Saved exporter pages swept as ``--url file:///path`` (session 33): ``curl -s node-1:8082/metrics > node-1.prom``
or a support bundle's copy, read as the page it was when saved (before: "not an http(s) URL", exit 2)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from opsbrain.errors import InputError
from opsbrain.sources.base import PrometheusSource, sweep_source
from tests.test_exporter_releases import V7, page


def saved(tmp_path: Path, name: str, text: str, age_s: float = 0.0, zipped: bool = False) -> str:
    path = tmp_path / name
    path.write_bytes(gzip.compress(text.encode()) if zipped else text.encode())
    t = time.time() - age_s
    os.utime(path, (t, t))
    return path.as_uri()


def hot(age_s: float = 0.0) -> str:
    """A v7 page with NPU 6 at 99 C, stamped ``age_s`` ago (as saved then)."""
    text = page(V7, ())
    stamp = int((time.time() - age_s) * 1000)
    out = []
    for ln in text.splitlines():
        if not ln.startswith("#") and "{" in ln:
            head, value, _ts = ln.rsplit(" ", 2)
            if head.startswith('npu_chip_info_temperature{container_name="",id="6"'):
                value = "99"
            ln = f"{head} {value} {stamp}"
        out.append(ln)
    return "\n".join(out) + "\n"


def test_a_saved_page_is_its_nodes_collection(tmp_path: Path) -> None:
    url = saved(tmp_path, "node-1.prom.gz", hot(), zipped=True)
    rep = sweep_source(PrometheusSource([url]))
    assert [(f.component, f.check, f.severity) for f in rep.findings] == [("node-1/npu6", "npu_temp", "Alarm")]


def test_a_page_saved_hours_ago_is_stale_not_current(tmp_path: Path) -> None:
    url = saved(tmp_path, "node-2.prom", hot(3 * 3600 + 30), age_s=3 * 3600)
    src = PrometheusSource([url])
    rep = sweep_source(src)
    (f,) = rep.findings
    assert (f.component, f.severity, f.data["stale"], f.data["severity_when_collected"]) == \
        ("node-2/npu6", "Warning", True, "Alarm")
    assert f.evidence.startswith("[stale: from outputs collected ")
    (c,) = src.coverage()["collected"]
    assert c["node"] == "node-2" and c["stale"] and c["from"] == "the saved page's modification time"


@pytest.mark.parametrize(("url", "why"), [("file:///nonexistent/x.prom", "cannot read"),
                                           ("file://otherhost/x.prom", "a file URL names a path on this host")])
def test_a_file_that_cannot_be_read_is_one_line(url: str, why: str) -> None:
    with pytest.raises(InputError, match=why):
        sweep_source(PrometheusSource([url]))


def test_the_cli_sweeps_saved_pages_and_refuses_html(tmp_path: Path) -> None:
    good = saved(tmp_path, "node-1.prom", hot())
    bad = saved(tmp_path, "node-3.prom", "<html><body>502 Bad Gateway</body></html>\n")

    def run(url: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "opsbrain", "sweep", "once", "--source", "prometheus", "--url",
                               url, "--data-dir", str(tmp_path / url[-10:]), "--output", "plain"],
                              capture_output=True, text=True, timeout=120)

    got = run(good)
    assert got.returncode == 1 and "node-1/npu6\t" in got.stdout, got.stderr
    got = run(bad)
    assert got.returncode == 2 and got.stderr.count("\n") == 1 and "not a Prometheus text page" in got.stderr
