"""Mutual TLS for the HTTP sources (session 34): --client-cert / --client-key present a client certificate to a
server that asks for one, beside --ca-file; a missing, unreadable, non-PEM, encrypted or mismatched certificate or
key is one line and exit 2 before any request. A local CA, a server certificate for 127.0.0.1 and client
certificates signed by it (and one by another CA) are made here with ``openssl`` (no ``cryptography`` package in the
venv); the server is the test exporter of tests/test_sources_http.py asking for a client certificate."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from opsbrain.errors import InputError
from opsbrain.sources.base import PrometheusSource, sweep_source
from opsbrain.sources.httpauth import HttpAuth
from tests.test_sources_auth import OPENSSL, PAGE, cli
from tests.test_sources_http import reply, serving

pytestmark = pytest.mark.skipif(OPENSSL is None, reason="no openssl to make certificates")


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run([str(OPENSSL), *args], check=True, capture_output=True, timeout=60, cwd=cwd)


def _ca(d: Path, name: str) -> None:
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
             f"{name}.key", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN={name}", "-addext",
             "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=d)


def _leaf(d: Path, name: str, ca: str, ext: str) -> None:
    (d / f"{name}.ext").write_text(ext + "\n")
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", f"{name}.key",
             "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=d)
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key", "-CAcreateserial",
             "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext", cwd=d)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("pki")
    _ca(d, "ca")
    _ca(d, "other-ca")
    _leaf(d, "server", "ca", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth")
    _leaf(d, "client", "ca", "extendedKeyUsage=clientAuth")
    _leaf(d, "stranger", "other-ca", "extendedKeyUsage=clientAuth")
    _openssl("ec", "-in", "client.key", "-aes256", "-passout", "pass:secret", "-out", "client-enc.key", cwd=d)
    (d / "client-combined.pem").write_text((d / "client.pem").read_text() + (d / "client.key").read_text())
    return d


def test_a_client_certificate_is_presented_to_a_server_that_asks(pki: Path, tmp_path: Path) -> None:
    tls = (pki / "server.pem", pki / "server.key")
    with serving(reply(PAGE), tls=tls, client_ca=pki / "ca.pem") as url:
        ok = cli("--source", "prometheus", "--url", url + "/metrics", "--ca-file", str(pki / "ca.pem"),
                 "--client-cert", str(pki / "client.pem"), "--client-key", str(pki / "client.key"), "--json",
                 data=tmp_path)
        combined = sweep_source(PrometheusSource([url + "/metrics"], auth=HttpAuth(
            ca_file=str(pki / "ca.pem"), client_cert=str(pki / "client-combined.pem"))))
        without = cli("--source", "prometheus", "--url", url + "/metrics", "--ca-file", str(pki / "ca.pem"),
                      data=tmp_path)
        stranger = cli("--source", "prometheus", "--url", url + "/metrics", "--ca-file", str(pki / "ca.pem"),
                       "--client-cert", str(pki / "stranger.pem"), "--client-key", str(pki / "stranger.key"),
                       data=tmp_path)
    assert ok.returncode == 1, ok.stderr  # NPU 1 at 107 C, read over mutual TLS
    d = json.loads(ok.stdout)
    assert [f["component"] for f in d["findings"] if f["severity"] == "Critical"] == ["127.0.0.1/npu1"]
    assert d["coverage"]["connection"] == f"CA {pki / 'ca.pem'}; client certificate {pki / 'client.pem'}"
    assert [f.component for f in combined.findings if f.severity == "Critical"] == ["127.0.0.1/npu1"]
    for refused, says in ((without, "--client-cert and --client-key"), (stranger, str(pki / "stranger.pem"))):
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
        assert "TLS failed" in refused.stderr and says in refused.stderr and "Traceback" not in refused.stderr, \
            refused.stderr


@pytest.mark.parametrize(("args", "says"), [
    (["--client-cert", "{d}/missing.pem", "--client-key", "{d}/client.key"], "--client-cert: cannot read the client "
     "certificate: no such file"),
    (["--client-cert", "{d}/client.pem", "--client-key", "{d}/missing.key"], "--client-key: cannot read the client "
     "key: no such file"),
    (["--client-cert", "{d}/client.pem", "--client-key", "{d}/stranger.key"], "the key does not match the client "
     "certificate"),
    (["--client-cert", "{d}/client.key", "--client-key", "{d}/client.key"], "not a PEM certificate"),
    (["--client-cert", "{d}/client.pem", "--client-key", "{d}/client.pem"], "no PEM private key"),
    (["--client-cert", "{d}/client.pem"], "give its key with --client-key"),
    (["--client-cert", "{d}/client.pem", "--client-key", "{d}/client-enc.key"], "the key is encrypted"),
    (["--client-key", "{d}/client.key"], "--client-key needs --client-cert"),
])
def test_a_bad_client_certificate_or_key_is_one_line_and_exit_2(pki: Path, tmp_path: Path, args: list[str],
                                                                 says: str) -> None:
    got = cli("--source", "prometheus-api", "--url", "https://127.0.0.1:9", *[a.format(d=pki) for a in args],
              data=tmp_path)  # port 9: nothing is asked of it, the files are checked before any request
    assert got.returncode == 2 and got.stderr.count("\n") == 1 and says in got.stderr, got.stderr
    assert "Traceback" not in got.stderr and "cannot fetch" not in got.stderr, got.stderr


def test_the_client_options_need_an_http_source() -> None:
    with pytest.raises(InputError, match="needs --client-cert"):
        HttpAuth(client_key="k.pem")
    assert HttpAuth(client_cert="c.pem").given


def test_a_tls_alert_raised_while_reading_is_said_as_tls(monkeypatch: pytest.MonkeyPatch) -> None:
    """TLS 1.3 sends the server's refusal of a client certificate after the handshake: the SSLError comes from the
    read, unwrapped, and its ``reason`` is OpenSSL's short string, not a cause (session 34: it read 'cannot fetch:
    TLSV13_ALERT_CERTIFICATE_REQUIRED', without the hint, about one run in ten)."""
    import ssl
    import urllib.request

    from opsbrain.errors import InputError
    from opsbrain.sources.httpauth import HttpAuth
    from opsbrain.sources.httpget import fetch

    def refuse(*_a: object, **_k: object) -> None:
        err = ssl.SSLError(1, "[SSL: TLSV13_ALERT_CERTIFICATE_REQUIRED] tlsv13 alert certificate required")
        err.reason = "TLSV13_ALERT_CERTIFICATE_REQUIRED"
        raise err

    monkeypatch.setattr(urllib.request.OpenerDirector, "open", refuse)
    with pytest.raises(InputError) as caught:
        fetch("https://127.0.0.1:1/metrics", 1.0, 2.0, 1 << 20, HttpAuth())
    assert "TLS failed" in str(caught.value) and "--client-cert" in str(caught.value), caught.value
