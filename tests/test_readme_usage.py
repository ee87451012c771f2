"""The README's Usage section, run top to bottom (issue 19): every line of its command block has a runnable
variant here (the same command; a shorter run where the README's takes minutes or runs until stopped; local
stand-ins for a cluster's addresses and files) and exits as the README says. A line added to, changed in or
removed from the README without a variant here fails the test, so the two stay in step."""

from __future__ import annotations

import json
import re
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"

# README command (the text before its comment) -> the arguments run for it and the exit code the README states
# (0 unless its comment says otherwise; BAR: 0 when the figures it prints meet the bar it names, else 1).
# {placeholders} are filled in by the test.
BAR = -1
VARIANTS: dict[str, tuple[list[str], int]] = {
    "opsbrain chaos list": (["chaos", "list"], 0),
    "opsbrain chaos run node-crash-training": (["chaos", "run", "node-crash-training"], 0),
    "opsbrain chaos run link-down-training --policy manual --json > manual.json":
        (["chaos", "run", "link-down-training", "--policy", "manual", "--json"], 1),
    "opsbrain chaos run link-down-training --policy vendor-default --json > vendor.json":
        (["chaos", "run", "link-down-training", "--policy", "vendor-default", "--json"], 1),
    "opsbrain chaos run my-scenario.yaml --dry-run": (["chaos", "run", "{scenario}", "--dry-run"], 0),
    "opsbrain chaos validate scenarios/*.yaml": (["chaos", "validate", "{builtin_scenarios}"], 0),
    "opsbrain chaos schema > scenario.schema.json": (["chaos", "schema"], 0),
    "opsbrain chaos replay fault_trace.json --time-unit days":
        (["chaos", "replay", "{trace}", "--time-unit", "days"], 0),
    "opsbrain chaos campaign --pods 1 --days 30 --seeds 4 --profile llama3 --policy both":  # short: 0.05 days
        (["chaos", "campaign", "--pods", "1", "--days", "0.05", "--seeds", "1", "--profile", "llama3", "--policy",
          "both", "--workers", "1"], 0),
    "opsbrain chaos campaign --pods 27 --days 7 --seeds 4 --policy both --cheap-noise --spares-per-pod 4":
        (["chaos", "campaign", "--pods", "2", "--days", "0.01", "--seeds", "1", "--policy", "auto",
          "--cheap-noise", "--spares-per-pod", "4", "--workers", "1"], 0),
    "opsbrain runs list": (["runs", "list"], 0),
    "opsbrain runs show RUN_ID": (["runs", "show", "{run_id}"], 0),
    "opsbrain report RUN_ID --format html --out run.html":
        (["report", "{run_id}", "--format", "html", "--out", "{tmp}/run.html"], 0),
    "opsbrain diagnose --logs pasted.log": (["diagnose", "--logs", "{pasted}"], 0),
    "opsbrain diagnose --logs worker-*/process_log/run/plog/*.log": (["diagnose", "--logs", "{plogs}"], 0),
    "opsbrain diagnose --bundle collected_logs/": (["diagnose", "--bundle", "{bundle}"], 0),
    "opsbrain diagnose --bundle collected_logs.tar.gz": (["diagnose", "--bundle", "{bundle_archive}"], 0),
    "opsbrain kb list": (["kb", "list"], 0),
    "opsbrain kb import mindcluster-kg kg-config.json": (["kb", "import", "mindcluster-kg", "{kg}"], 0),
    "opsbrain kb coverage --faultcode faultCode.json":
        (["kb", "coverage", "--faultcode", str(FIXTURES / "vendor_small" / "faultcode_good.json")], 0),
    "opsbrain kb train --out model.npz":  # short: 2 case runs per class (the README's default is 30)
        (["kb", "train", "--out", "{tmp}/model.npz", "--runs-per-class", "2", "--workers", "1"], 0),
    "opsbrain kb eval --real tests/data/real_logs --split dev":
        (["kb", "eval", "--real", str(ROOT / "tests" / "data" / "real_logs"), "--split", "dev", "--json"], BAR),
    "opsbrain kb eval --real tests/data/real_logs --split dev --cross-fit thread":  # short: one corpus part
        (["kb", "eval", "--real", str(ROOT / "tests" / "data" / "real_logs" / "corpus_a.yaml"), "--split", "dev",
          "--cross-fit", "thread", "--json"], BAR),
    "opsbrain kb eval --healthy tests/data/healthy_logs":
        (["kb", "eval", "--healthy", str(ROOT / "tests" / "data" / "healthy_logs"), "--json"], 0),
    "opsbrain kb text-train --out realtext.json":  # short: one corpus part (the README's default is the corpus)
        (["kb", "text-train", "--real", str(ROOT / "tests" / "data" / "real_logs" / "corpus_a.yaml"), "--out",
          "{tmp}/realtext.json"], 0),
    "opsbrain runbooks list": (["runbooks", "list"], 0),
    "opsbrain sweep once --scenario optical-degradation --at 7200":
        (["sweep", "once", "--scenario", "optical-degradation", "--at", "7200"], 0),
    "opsbrain sweep run --scenario noise-only-day --interval 5m --speed 60 --metrics-port 9108":  # short: 2 s
        (["sweep", "run", "--scenario", "noise-only-day", "--interval", "1s", "--speed", "60", "--metrics-port",
          "0", "--max-runtime", "2"], 0),
    "opsbrain sweep once --source prometheus --url http://NODE:8082/metrics":
        (["sweep", "once", "--source", "prometheus", "--url", "{exporter}"], 0),
    "opsbrain sweep once --source prometheus-api --url http://PROM:9090":
        (["sweep", "once", "--source", "prometheus-api", "--url", "{prometheus}"], 0),
    "opsbrain sweep once --source commands --dir collected/":
        (["sweep", "once", "--source", "commands", "--dir", "{collected}"], 0),
    "opsbrain sweep run --source prometheus --url http://NODE:8082/metrics --interval 5m --name lab":  # short
        (["sweep", "run", "--source", "prometheus", "--url", "{exporter}", "--interval", "1s", "--name", "lab",
          "--max-runtime", "2"], 0),
    "opsbrain watch --logs /var/log/ascend": (["watch", "--logs", "{logdir}", "--max-runtime", "1"], 0),
    "opsbrain topology --pods 27": (["topology", "--pods", "27"], 0),
    "opsbrain params fabric.": (["params", "fabric."], 0),
}


def usage_lines() -> list[str]:
    """The commands of the README's Usage block, in order (comments and continuation lines dropped)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Usage", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    out = []
    for line in block.splitlines():
        cmd = line.split("  #", 1)[0].strip()
        if cmd and not cmd.startswith("#"):
            out.append(" ".join(cmd.split()))
    return out


def test_every_readme_line_has_a_variant() -> None:
    lines = usage_lines()
    assert lines == list(VARIANTS), "README Usage and tests/test_readme_usage.py VARIANTS differ (order matters)"


class _Places:
    """The files and servers the README's placeholders stand for."""

    def __init__(self, tmp: Path) -> None:
        import yaml

        self.tmp = tmp
        self.values: dict[str, str] = {"tmp": str(tmp), "trace": str(ROOT / "tests" / "data" / "traces" /
                                                                      "infinitehbd_like.json"),
                                       "bundle": str(FIXTURES / "bundles" / "hbm-uce-real"),
                                       "kg": str(FIXTURES / "vendor_small" / "kg_good.json")}
        sc = tmp / "my-scenario.yaml"
        shutil.copy(ROOT / "scenarios" / "link-down-training.yaml", sc)
        self.values["scenario"] = str(sc)
        self.values["builtin_scenarios"] = " ".join(str(p) for p in sorted((ROOT / "scenarios").glob("*.yaml")))
        self.values["plogs"] = " ".join(str(p) for p in sorted(Path(self.values["bundle"]).glob(
            "worker-*/process_log/run/plog/*.log")))
        excerpt = next(e["text"] for f in sorted((ROOT / "tests" / "data" / "real_logs").glob("*.yaml"))
                       for e in yaml.safe_load(f.read_text(encoding="utf-8")) if e["id"].startswith("b023"))
        (tmp / "pasted.log").write_text(excerpt, encoding="utf-8")
        self.values["pasted"] = str(tmp / "pasted.log")
        logdir = tmp / "ascend" / "worker-1"
        logdir.mkdir(parents=True)
        (logdir / "messages").write_text(excerpt, encoding="utf-8")
        self.values["logdir"] = str(tmp / "ascend")
        collected = tmp / "collected" / "worker-4"
        collected.mkdir(parents=True)
        (collected / "link_stat.txt").write_text("/usr/local/Ascend/driver/tools/hccn_tool -i 4 -net_health -g\n"
                                                 "net health status: Success\n", encoding="utf-8")
        self.values["collected"] = str(tmp / "collected")
        with tarfile.open(tmp / "collected_logs.tar.gz", "w:gz") as tf:
            tf.add(self.values["bundle"], arcname="collected_logs")
        self.values["bundle_archive"] = str(tmp / "collected_logs.tar.gz")
        self.closers: list[Any] = []

    def serve(self) -> None:
        """A healthy twin pod's npu-exporter page, and a Prometheus query API over the same pod."""
        from test_sources import _FakePrometheusAPI, small_pod

        from opsbrain.sources.exporter import render_twin_page
        from opsbrain.sources.serve import PageServer

        sim = small_pod()
        sim.run(600.0)
        page = render_twin_page(sim)
        srv = PageServer(lambda: page)
        srv.__enter__()
        self.closers.append(lambda: srv.__exit__(None, None, None))
        self.values["exporter"] = srv.url
        api = _FakePrometheusAPI(sim)
        self.closers.append(api.close)
        self.values["prometheus"] = api.url

    def fill(self, args: list[str]) -> list[str]:
        out: list[str] = []
        for a in args:
            filled = re.sub(r"\{(\w+)\}", lambda m: self.values[m.group(1)], a)
            out.extend(filled.split(" ") if a in ("{builtin_scenarios}", "{plogs}") else [filled])
        return out


def test_readme_usage_top_to_bottom(tmp_path: Path) -> None:
    places = _Places(tmp_path)
    runner = CliRunner()
    env = {"OPSBRAIN_HOME": str(tmp_path / "home"), "COLUMNS": "100"}
    try:
        places.serve()
        for line in usage_lines():
            args, want = VARIANTS[line]
            res = runner.invoke(cli, places.fill(args), env=env)
            if want == BAR:  # README: exit 1 below 85% agreement (kb eval --help: or above 3% confident-wrong)
                head = json.loads(res.stdout)["firm_or_likely"]
                want = 0 if (head.get("agreement") or 0) >= 0.85 and head.get("confident_wrong", 1) <= 0.03 else 1
            assert res.exit_code == want, f"{line}: exit {res.exit_code}, README says {want}\n{res.output[-2000:]}"
            if line == "opsbrain chaos run node-crash-training":
                runs = json.loads(runner.invoke(cli, ["runs", "list", "--json"], env=env).output)["runs"]
                places.values["run_id"] = runs[0]["id"]
    finally:
        for close in places.closers:
            close()


@pytest.mark.parametrize("shell", ["bash_source", "zsh_source", "fish_source"])
def test_shell_completion_as_documented(shell: str) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"_OPSBRAIN_COMPLETE={shell}" in readme
    res = CliRunner().invoke(cli, [], env={"_OPSBRAIN_COMPLETE": shell}, prog_name="opsbrain")
    assert res.exit_code == 0 and "_OPSBRAIN_COMPLETE" in res.output
