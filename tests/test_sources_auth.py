"""Credentials and TLS for the HTTP sources (session 33, helper CJ): a bearer token or basic-auth password read from
a file or an environment variable, a CA bundle, an explicit --insecure-skip-verify said in the output; a bad token
file, a missing CA file, a 401/403 or a certificate not trusted is one line and exit 2 with no secret shown (the
servers here echo the Authorization header they got into their error answers). The HTTPS servers run on 127.0.0.1
with certificates made here by ``openssl`` (the ``cryptography`` package is not in the venv); no network."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from opsbrain.errors import InputError
from opsbrain.sources import open_source
from opsbrain.sources.base import PrometheusSource
from opsbrain.sources.httpauth import HttpAuth, SecretRef
from opsbrain.sources.promapi import PrometheusQuerySource
from tests.test_sources_http import page, reply, serving

OPENSSL = shutil.which("openssl")
needs_openssl = pytest.mark.skipif(OPENSSL is None, reason="no openssl to make a self-signed certificate "
                                   "(and no cryptography package in the venv)")
TOKEN = "tok-3f9a7c1e5d2b"
PAGE = page({0: 44.0, 1: 107.0}).encode()  # NPU 1 at 107 C: a Critical finding (105 C), exit 1


def _cert(d: Path, name: str) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (its own CA) and its key."""
    cert, key = d / f"{name}.pem", d / f"{name}.key"
    subprocess.run([str(OPENSSL), "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", f"/CN={name}",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True, timeout=60)
    return cert, key


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    if OPENSSL is None:
        pytest.skip("no openssl")
    d = tmp_path_factory.mktemp("certs")
    cert, key = _cert(d, "server")
    other, _ = _cert(d, "other")
    return {"cert": cert, "key": key, "other": other}


def serving_tls(handle: Callable[[BaseHTTPRequestHandler], None], cert: Path, key: Path
                ) -> AbstractContextManager[str]:
    return serving(handle, tls=(cert, key))


def guarded(want: str, body: bytes = PAGE, code_without: int = 401) -> Callable[[BaseHTTPRequestHandler], None]:
    """The page for requests whose Authorization header is ``want``; else 401 (403 when one was sent and
    ``code_without`` is 403) with the header it got echoed into the reason phrase and the body, as a careless proxy
    does."""
    def handle(h: BaseHTTPRequestHandler) -> None:
        got = h.headers.get("Authorization") or ""
        if got == want:
            reply(body)(h)
            return
        echo = f"bad credentials {got!r}".encode()
        h.send_response(code_without if got else 401, f"Denied {got}")
        h.send_header("Content-Length", str(len(echo)))
        h.end_headers()
        h.wfile.write(echo)
        h.close_connection = True
    return handle


def cli(*args: str, env: dict[str, str] | None = None, data: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "opsbrain", "sweep", "once", *args, "--data-dir", str(data)],
                          capture_output=True, text=True, timeout=120, env={**os.environ, **(env or {})})


@needs_openssl
def test_a_bearer_token_file_over_https_with_a_private_ca(certs: dict[str, Path], tmp_path: Path) -> None:
    tok = tmp_path / "token"
    tok.write_text(TOKEN + "\n")
    with serving_tls(guarded(f"Bearer {TOKEN}"), certs["cert"], certs["key"]) as url:
        ok = cli("--source", "prometheus", "--url", url + "/metrics", "--bearer-token-file", str(tok),
                 "--ca-file", str(certs["cert"]), "--json", data=tmp_path)
        tok.write_text("stale-token\n")  # the server refuses it: 401, the echo redacted
        refused = cli("--source", "prometheus", "--url", url + "/metrics", "--bearer-token-file", str(tok),
                      "--ca-file", str(certs["cert"]), data=tmp_path)
        untrusted = cli("--source", "prometheus", "--url", url + "/metrics", "--ca-file", str(certs["other"]),
                        data=tmp_path)
        skipped = cli("--source", "prometheus", "--url", url + "/metrics", "--insecure-skip-verify",
                      "--bearer-token-env", "OB_TOKEN", env={"OB_TOKEN": TOKEN}, data=tmp_path)
    assert ok.returncode == 1, ok.stderr  # NPU 1 at 107 C read through the token and the private CA
    d = json.loads(ok.stdout)
    assert [(f["component"], f["check"]) for f in d["findings"] if f["severity"] == "Critical"] == [
        ("127.0.0.1/npu1", "npu_temp")], d["findings"]
    assert d["coverage"]["connection"] == f"bearer token; CA {certs['cert']}"
    assert d["source"] == f"prometheus {url}/metrics"  # the kept history's key: the same with or without options
    assert TOKEN not in ok.stdout + ok.stderr
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "HTTP 401" in refused.stderr and "did not accept the credentials" in refused.stderr
    assert "stale-token" not in refused.stderr and "<redacted>" in refused.stderr
    assert untrusted.returncode == 2 and untrusted.stderr.count("\n") == 1, untrusted.stderr
    assert "TLS certificate not verified" in untrusted.stderr and "Traceback" not in untrusted.stderr
    assert skipped.returncode == 1, skipped.stderr
    assert "connection: bearer token; TLS certificate NOT verified (--insecure-skip-verify)" in skipped.stdout
    assert "warning: TLS certificate NOT verified" in skipped.stderr
    assert TOKEN not in skipped.stdout + skipped.stderr


@pytest.mark.parametrize(("args", "says"), [
    (["--bearer-token-file", "{d}/missing"], "cannot read the secret file"),
    (["--bearer-token-file", "{d}/empty"], "the secret is empty"),
    (["--bearer-token-file", "{d}/two-lines"], "holds a line break"),
    (["--bearer-token-env", "OB_UNSET_VAR_X"], "is not set"),
    (["--ca-file", "{d}/missing.pem"], "no such CA bundle file"),
    (["--ca-file", "{d}/empty"], "not a PEM CA bundle"),
    (["--basic-auth-user", "ops"], "needs both"),
    (["--insecure-skip-verify", "--ca-file", "{d}/empty"], "contradict"),
    (["--bearer-token-env", "T", "--basic-auth-user", "u", "--basic-auth-password-env", "T"], "not two"),
])
def test_a_bad_secret_or_ca_option_is_one_line_and_exit_2(tmp_path: Path, args: list[str], says: str) -> None:
    (tmp_path / "empty").write_text("\n")
    (tmp_path / "two-lines").write_text(f"{TOKEN}\nX-Injected: 1\n")
    got = cli("--source", "prometheus-api", "--url", "https://127.0.0.1:9", *[a.format(d=tmp_path) for a in args],
              env={"T": TOKEN}, data=tmp_path)
    assert got.returncode == 2 and got.stderr.count("\n") == 1 and says in got.stderr, got.stderr
    assert TOKEN not in got.stderr and "Traceback" not in got.stderr


def test_basic_auth_from_the_environment_on_the_query_api(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.test_promapi_answers import tsdb

    monkeypatch.setenv("OB_PASS", "pa55:word")
    auth = HttpAuth(basic_user="ops", basic_password=SecretRef(env="OB_PASS", option="--basic-auth-password-env"))
    inner, want = tsdb({}), auth.header()
    assert want == "Basic b3BzOnBhNTU6d29yZA=="  # RFC 7617: base64 of 'ops:pa55:word'

    def handle(h: BaseHTTPRequestHandler) -> None:
        guarded(str(want))(h) if h.headers.get("Authorization") != want else inner(h)

    with serving(handle) as url:
        src = PrometheusQuerySource(url, auth=auth)
        assert src.collect().npu_temp_c
        monkeypatch.setenv("OB_PASS", "changed")  # re-read for each request: the server refuses the new one
        with pytest.raises(InputError) as err:
            src.collect()
    line = str(err.value)
    assert "HTTP 401" in line and "did not accept" in line
    assert "changed" not in line and "b3BzOmNoYW5nZWQ=" not in line, line  # neither the password nor its base64


def test_a_long_reason_phrase_is_redacted_before_it_is_cut(tmp_path: Path) -> None:
    tok = tmp_path / "t"
    tok.write_text("x" * 500)  # cut to an error line's length first, a partial token would be shown

    def echo(h: BaseHTTPRequestHandler) -> None:
        h.send_response(401, "Denied " + str(h.headers.get("Authorization")))
        h.send_header("Content-Length", "0")
        h.end_headers()
        h.close_connection = True

    with serving(echo) as url, pytest.raises(InputError) as err:
        PrometheusSource([url + "/metrics"], auth=HttpAuth(bearer=SecretRef(file=str(tok)))).collect()
    assert "xxxx" not in str(err.value) and "Denied Bearer <redacted>" in str(err.value), str(err.value)


def test_a_403_says_the_credentials_are_not_allowed(tmp_path: Path) -> None:
    tok = tmp_path / "t"
    tok.write_text("reader\n")
    with serving(guarded("Bearer admin", code_without=403)) as url:
        src = PrometheusSource([url + "/metrics"], auth=HttpAuth(bearer=SecretRef(file=str(tok))))
        with pytest.raises(InputError, match="HTTP 403.*not allowed") as err:
            src.collect()
    assert "reader" not in str(err.value)


def test_a_redirect_does_not_carry_the_token_elsewhere(tmp_path: Path) -> None:
    tok = tmp_path / "t"
    tok.write_text(TOKEN)
    seen: list[str | None] = []

    def target(h: BaseHTTPRequestHandler) -> None:
        seen.append(h.headers.get("Authorization"))
        reply(PAGE)(h)

    with serving(target) as other:
        def moved(h: BaseHTTPRequestHandler) -> None:
            seen.append(h.headers.get("Authorization"))
            h.send_response(302)
            h.send_header("Location", other + "/metrics")
            h.send_header("Content-Length", "0")
            h.end_headers()
            h.close_connection = True

        with serving(moved) as url:
            src = open_source("prometheus", [url + "/metrics"], auth=HttpAuth(bearer=SecretRef(file=str(tok))))
            assert src.collect().npu_temp_c
    assert seen == [f"Bearer {TOKEN}", None]  # sent to the server asked, not to the one it redirected to
    with serving(guarded(f"Bearer {TOKEN}")) as other:  # the target wants the token: the line says why it lacks it
        def moved_too(h: BaseHTTPRequestHandler) -> None:
            h.send_response(301)
            h.send_header("Location", other + "/metrics")
            h.send_header("Content-Length", "0")
            h.end_headers()
            h.close_connection = True

        with serving(moved_too) as url, pytest.raises(InputError) as err:
            open_source("prometheus", [url + "/metrics"], auth=HttpAuth(bearer=SecretRef(file=str(tok)))).collect()
    assert f"HTTP 401 Denied: from {other}/metrics, where the server redirected, to which the credentials are not " \
           "sent on" in str(err.value), str(err.value)


def test_auth_options_without_an_http_url_are_refused(tmp_path: Path) -> None:
    (tmp_path / "n.prom").write_bytes(PAGE)
    with pytest.raises(InputError, match="http\\(s\\) --url sources only"):
        open_source("prometheus", [f"file://{tmp_path}/n.prom"], auth=HttpAuth(insecure=True))


@pytest.mark.parametrize("args", [
    ["sweep", "once", "--bearer-token-env", "T"],                                   # the twin: nothing to send it to
    ["sweep", "once", "--source", "commands", "--dir", ".", "--ca-file", "x.pem"],
    ["sweep", "run", "--scenario", "noise-only-day", "--insecure-skip-verify", "--max-runtime", "1"],
    ["watch", "--logs", ".", "--bearer-token-env", "T", "--max-runtime", "1"],      # no --url to sweep
])
def test_the_options_without_an_http_source_are_refused(tmp_path: Path, args: list[str]) -> None:
    from click.testing import CliRunner

    from opsbrain.cli import cli

    res = CliRunner().invoke(cli, [*args, "--data-dir", str(tmp_path)], env={"T": TOKEN})
    assert res.exit_code == 2, res.output
    assert "credentials and TLS options" in res.output and TOKEN not in res.output, res.output
