"""A source whose server refuses the credentials (session 34): a token that is readable but wrong (HTTP 401/403) is a
``SourceAuthError``, not "no data". ``sweep run`` says it once per state change (refused, refused otherwise, read
again) with the HTTP status and the URL, secrets redacted, and its metrics and summary show the source
unauthorized; other failures are still logged at every sweep. The exporter is the test one on 127.0.0.1
(tests/test_sources_http.py); it echoes the Authorization header it got, as a careless proxy does."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from prometheus_client import generate_latest

from opsbrain.errors import SourceAuthError
from opsbrain.service.scheduler import SweepService, TriggerSpec
from opsbrain.sources.base import PrometheusSource
from opsbrain.sources.httpauth import HttpAuth, SecretRef
from opsbrain.sources.promapi import PrometheusQuerySource
from opsbrain.sources.service import SourcePod
from opsbrain.store import RunStore
from tests.test_sources_http import Handler, page, reply, serving

GOOD = "good-token-81c2"


def gate(mode: dict[str, int]) -> Handler:
    """The page for ``Bearer GOOD``; else ``mode["refuse"]`` (401 or 403) with the header echoed back."""
    def handle(h: BaseHTTPRequestHandler) -> None:
        got = h.headers.get("Authorization") or ""
        if got == f"Bearer {GOOD}":
            reply(page({0: 45.0}).encode())(h)
            return
        body = f"no: {got}".encode()
        h.send_response(mode["refuse"], f"Denied {got}")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
        h.close_connection = True
    return handle


def test_a_refused_token_is_said_once_per_state_change_and_shown_in_the_metrics(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    token = tmp_path / "token"
    mode = {"refuse": 401}
    with serving(gate(mode)) as url:
        src = PrometheusSource([url + "/metrics"], auth=HttpAuth(bearer=SecretRef(file=str(token))))
        svc = SweepService(SourcePod(src, name="lab"), RunStore(tmp_path), TriggerSpec("interval", "60"))
        caplog.set_level(logging.INFO, logger="opsbrain")
        states = []
        for tok, refuse in (("stale-1", 401), ("stale-2", 401), ("stale-3", 401), ("stale-3", 403),
                            (GOOD, 403), (GOOD, 403), ("stale-4", 401)):
            token.write_text(tok + "\n")  # rotated in place: re-read for each request
            mode["refuse"] = refuse
            svc._job()
            exposed = generate_latest(svc.metrics.registry).decode()
            states.append((svc.source.state, svc.source.status,
                           'opsbrain_sweep_source_state{opsbrain_sweep_source_state="unauthorized"} 1.0' in exposed,
                           f"opsbrain_sweep_source_refused_status {float(refuse if tok != GOOD else 0)}" in exposed))
    said = [(r.getMessage(), getattr(r, "status", None)) for r in caplog.records
            if r.getMessage() in ("source unauthorized", "source authorized again", "sweep failed")]
    assert said == [("source unauthorized", 401), ("source unauthorized", 403), ("source authorized again", None),
                    ("source unauthorized", 401)], said  # not one line per sweep: 4 lines for 7 sweeps
    assert [s[:2] for s in states] == [("unauthorized", 401)] * 3 + [("unauthorized", 403)] + [("ok", None)] * 2 + [
        ("unauthorized", 401)]
    assert all(s[2] == (s[0] == "unauthorized") and s[3] for s in states), states
    first = next(r for r in caplog.records if r.getMessage() == "source unauthorized")
    assert first.url == url + "/metrics" and "HTTP 401" in first.error  # type: ignore[attr-defined]
    assert "stale-1" not in first.error and "<redacted>" in first.error  # type: ignore[attr-defined]
    again = next(r for r in caplog.records if r.getMessage() == "source authorized again")
    assert again.refused_sweeps == 4  # type: ignore[attr-defined]  (3 refused with 401, then 1 with 403)
    assert len(svc.errors) == 3 and all(e.startswith("SourceAuthError: ") for e in svc.errors), svc.errors
    assert svc.metrics.errors._value.get() == 5  # every refused sweep still counts as a failed one
    assert svc.source.as_dict()["refused_sweeps"] == 1 and svc.source.as_dict()["status"] == 401


def test_the_query_api_and_every_url_refused_are_typed(tmp_path: Path) -> None:
    mode = {"refuse": 403}
    with serving(gate(mode)) as a, serving(gate(mode)) as b:
        auth = HttpAuth(bearer=SecretRef(env="OB_TEST_UNSET_TOKEN_X"))
        os.environ["OB_TEST_UNSET_TOKEN_X"] = "wrong"
        try:
            with pytest.raises(SourceAuthError) as both:
                PrometheusSource([a + "/metrics", b + "/metrics"], auth=auth).collect()
            with pytest.raises(SourceAuthError) as api:
                PrometheusQuerySource(a, auth=auth).collect()
        finally:
            del os.environ["OB_TEST_UNSET_TOKEN_X"]
    assert both.value.status == 403 and "none of the 2 URLs" in str(both.value)
    assert api.value.status == 403 and str(api.value).startswith(a + ": --url: cannot query: HTTP 403")
    assert "wrong" not in str(both.value) + str(api.value)


def test_sweep_run_says_it_once_and_its_summary_shows_the_source_unauthorized(tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("stale-9d7e\n")
    with serving(gate({"refuse": 401})) as url:
        res = subprocess.run([sys.executable, "-m", "opsbrain", "sweep", "run", "--source", "prometheus", "--url",
                              url + "/metrics", "--bearer-token-file", str(token), "--interval", "1s",
                              "--max-runtime", "3.5", "--name", "lab", "--json", "--data-dir", str(tmp_path)],
                             capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert res.returncode == 0, res.stderr
    lines = [json.loads(ln) for ln in res.stderr.splitlines() if ln.startswith("{")]
    said = [d for d in lines if d.get("msg", d.get("message")) in ("source unauthorized", "sweep failed")]
    assert len(said) == 1 and said[0]["status"] == 401 and said[0]["url"] == url + "/metrics", res.stderr
    assert "stale-9d7e" not in res.stderr + res.stdout and "<redacted>" in said[0]["error"]  # the echo redacted
    summary = json.loads(res.stdout)
    st = summary["source_state"]
    assert st["state"] == "unauthorized" and st["status"] == 401 and st["refused_sweeps"] >= 2, st
    assert len(summary["errors"]) == 1 and summary["sweeps"] == 0, summary
