"""OAuth2 client credentials for the HTTP sources (session 35): a token endpoint on 127.0.0.1 hands out bearer tokens
for a client id and secret sent by HTTP basic authentication (RFC 6749 sections 2.3.1 and 4.4); the page server
accepts only a token the endpoint handed out. The token is kept until shortly before it expires, fetched anew after a
source's 401, and neither the secret nor a token shows in any output; a refused client or a wrong answer is one line
and exit 2. A token endpoint on another CA than the source's is verified against ``--oauth2-ca-file`` (session 36)."""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import parse_qs

import pytest

from opsbrain.errors import InputError, SourceAuthError
from opsbrain.sources.httpauth import HttpAuth, SecretRef
from opsbrain.sources.httpget import fetch
from opsbrain.sources.oauth2 import ClientCredentials
from tests.test_sources_auth import OPENSSL, PAGE, _cert, cli
from tests.test_sources_http import reply, serving

CLIENT, SECRET = "opsbrain-sweeper", "s3cr+t/with=signs"


class Endpoint:
    """A token endpoint: checks the grant and the client, hands out ``tok-N`` tokens living ``lifetime`` seconds;
    ``answer`` replaces its JSON answer when set. ``issued`` lists the tokens handed out, ``forms`` the forms got."""

    def __init__(self, lifetime: int | None = 3600, answer: dict[str, object] | None = None) -> None:
        self.lifetime, self.answer = lifetime, answer
        self.issued: list[str] = []
        self.forms: list[dict[str, list[str]]] = []
        self.counter = itertools.count(1)

    def __call__(self, h: BaseHTTPRequestHandler) -> None:
        form = parse_qs(h.rfile.read(int(h.headers.get("Content-Length") or 0)).decode())
        self.forms.append(form)
        # RFC 6749 2.3.1: the id and secret are form-encoded, then joined by ':' and base64-encoded
        basic = base64.b64encode(b"opsbrain-sweeper:s3cr%2Bt%2Fwith%3Dsigns").decode()
        if h.command != "POST" or h.headers.get("Authorization") != f"Basic {basic}":
            body = json.dumps({"error": "invalid_client", "error_description": "client authentication failed"})
            h.send_response(401, f"Unauthorized {h.headers.get('Authorization')}")  # a careless echo
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(body)))
            h.end_headers()
            h.wfile.write(body.encode())
            h.close_connection = True
            return
        token = f"tok-{next(self.counter)}-9f3c"
        self.issued.append(token)
        answer = self.answer if self.answer is not None else {
            "access_token": token, "token_type": "Bearer",
            **({"expires_in": self.lifetime} if self.lifetime is not None else {})}
        reply(json.dumps(answer).encode(), headers={"Content-Type": "application/json"})(h)


def page_for(endpoint: Endpoint, revoked: set[str] | None = None) -> Callable[[BaseHTTPRequestHandler], None]:
    """The exporter page for a bearer token ``endpoint`` issued and not ``revoked``; 401 otherwise."""
    def handle(h: BaseHTTPRequestHandler) -> None:
        got = (h.headers.get("Authorization") or "").removeprefix("Bearer ")
        if got in endpoint.issued and got not in (revoked or set()):
            reply(PAGE)(h)
            return
        h.send_response(401, f"Unauthorized {h.headers.get('Authorization')}")  # a careless echo
        h.send_header("Content-Length", "0")
        h.end_headers()
        h.close_connection = True
    return handle


def creds(token_url: str, env: str = "OB_SECRET", scopes: tuple[str, ...] = ()) -> ClientCredentials:
    return ClientCredentials(token_url + "/token", CLIENT, SecretRef(env=env, option="--oauth2-client-secret-env"),
                             scopes)


def test_the_sweep_reads_a_page_with_a_token_from_the_endpoint(tmp_path: Path) -> None:
    endpoint = Endpoint()
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    with serving(endpoint) as issuer, serving(page_for(endpoint)) as url:
        got = cli("--source", "prometheus", "--url", url + "/metrics", "--oauth2-token-url", issuer + "/token",
                  "--oauth2-client-id", CLIENT, "--oauth2-client-secret-file", str(secret),
                  "--oauth2-scope", "metrics.read", "--oauth2-scope", "api://prom/.default", "--json", data=tmp_path)
    assert got.returncode == 1, got.stderr  # NPU 1 at 107 C: read through the token
    d = json.loads(got.stdout)
    assert d["coverage"]["connection"] == f"OAuth2 client credentials as {CLIENT} from {issuer[7:]}"
    assert endpoint.forms == [{"grant_type": ["client_credentials"], "scope": ["metrics.read api://prom/.default"]}]
    assert SECRET not in got.stdout + got.stderr and "tok-1" not in got.stdout + got.stderr


def test_a_token_is_kept_until_shortly_before_it_expires_and_dropped_on_401(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OB_SECRET", SECRET)
    long, short, revoked = Endpoint(3600), Endpoint(10), set[str]()
    with serving(long) as a, serving(short) as b, serving(page_for(long, revoked)) as url_a, \
            serving(page_for(short)) as url_b:
        kept = HttpAuth(oauth2=creds(a))
        for _ in range(3):
            fetch(url_a + "/metrics", 5, 5, 1 << 20, kept)
        assert long.issued == ["tok-1-9f3c"]  # one token for three pages
        revoked.add("tok-1-9f3c")
        with pytest.raises(SourceAuthError, match="HTTP 401") as refused:
            fetch(url_a + "/metrics", 5, 5, 1 << 20, kept)
        assert "tok-1" not in str(refused.value) and "<redacted>" in str(refused.value)  # dropped, yet redacted
        fetch(url_a + "/metrics", 5, 5, 1 << 20, kept)  # the refused token was dropped: a new one
        assert long.issued == ["tok-1-9f3c", "tok-2-9f3c"]
        brief = HttpAuth(oauth2=creds(b))  # expires_in 10 s, within the 10 s margin: fetched for every request
        for _ in range(2):
            fetch(url_b + "/metrics", 5, 5, 1 << 20, brief)
        assert len(short.issued) == 2


def test_a_token_dropped_by_another_worker_is_still_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker threads of a sweep share one token: the first 401 handled drops it, and another worker's 401 for the
    same token, echoed by a careless server, must not show it (session 35's review: only the token held was
    redacted, so the second error line printed the token)."""
    monkeypatch.setenv("OB_SECRET", SECRET)
    endpoint = Endpoint()
    auth = HttpAuth(oauth2=creds("http://127.0.0.1:1"))
    assert auth.oauth2 is not None

    def refuse(h: BaseHTTPRequestHandler) -> None:  # another worker's 401 for this token handled first
        auth.oauth2.invalidate((h.headers.get("Authorization") or "").removeprefix("Bearer "))
        page_for(endpoint, revoked=set(endpoint.issued))(h)

    with serving(endpoint) as issuer, serving(refuse) as url:
        auth.oauth2.token_url = issuer + "/token"
        with pytest.raises(SourceAuthError, match="HTTP 401") as refused:
            fetch(url + "/metrics", 5, 5, 1 << 20, auth)
        with pytest.raises(SourceAuthError, match="HTTP 401") as again:  # a new token, refused too
            fetch(url + "/metrics", 5, 5, 1 << 20, auth)
    assert endpoint.issued == ["tok-1-9f3c", "tok-2-9f3c"]
    for said in (str(refused.value), str(again.value)):
        assert "tok-" not in said and "<redacted>" in said, said


def test_a_late_401_does_not_drop_the_token_another_worker_just_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers send tok-1, which the server has revoked. While the first's answer is on its way, the second is
    refused, drops tok-1 and fetches tok-2, which the server takes. The first's 401 (for tok-1) then must not drop
    tok-2: the next request sends it without a third token request (session 36; before, ``invalidate`` dropped
    whatever token was held)."""
    monkeypatch.setenv("OB_SECRET", SECRET)
    endpoint = Endpoint()
    auth = HttpAuth(oauth2=creds("http://127.0.0.1:1"))
    assert auth.oauth2 is not None
    page = page_for(endpoint, revoked={"tok-1-9f3c"})
    where: list[str] = []
    meanwhile: list[str] = []

    def first_answer_late(h: BaseHTTPRequestHandler) -> None:
        if not where[1:]:  # the first worker's request: the other worker's whole round runs before it is answered
            where.append("busy")
            with pytest.raises(SourceAuthError, match="HTTP 401"):
                fetch(where[0], 5, 5, 1 << 20, auth)  # tok-1 refused: dropped
            fetch(where[0], 5, 5, 1 << 20, auth)  # tok-2 fetched and taken
            meanwhile.extend(endpoint.issued)
        page(h)

    with serving(endpoint) as issuer, serving(first_answer_late) as url:
        auth.oauth2.token_url = issuer + "/token"
        where.append(url + "/metrics")
        with pytest.raises(SourceAuthError, match="HTTP 401"):
            fetch(url + "/metrics", 5, 5, 1 << 20, auth)  # the first worker's late 401, for tok-1
        fetch(url + "/metrics", 5, 5, 1 << 20, auth)  # tok-2 still held
    assert meanwhile == ["tok-1-9f3c", "tok-2-9f3c"]
    assert endpoint.issued == ["tok-1-9f3c", "tok-2-9f3c"]


def test_a_refused_client_is_one_line_naming_the_endpoint_and_its_error(tmp_path: Path) -> None:
    endpoint = Endpoint()
    with serving(endpoint) as issuer, serving(page_for(endpoint)) as url:
        got = cli("--source", "prometheus", "--url", url + "/metrics", "--oauth2-token-url", issuer + "/token",
                  "--oauth2-client-id", CLIENT, "--oauth2-client-secret-env", "OB_SECRET",
                  env={"OB_SECRET": "wrong-secret"}, data=tmp_path)
    assert got.returncode == 2 and got.stderr.count("\n") == 1, got.stderr
    assert "HTTP 401" in got.stderr and "invalid_client: client authentication failed" in got.stderr
    assert "--oauth2-token-url" in got.stderr and f"{issuer}/token" in got.stderr
    echoed = base64.b64encode(f"{CLIENT}:wrong-secret".encode()).decode()
    assert "wrong-secret" not in got.stderr and echoed not in got.stderr and "<redacted>" in got.stderr


@pytest.mark.parametrize(("answer", "says"), [
    ({"access_token": "abc", "token_type": "mac"}, "of type 'mac'"),
    ({"token_type": "Bearer"}, "holds no access_token"),
    ({"access_token": "abc", "token_type": "Bearer", "expires_in": -5}, "not a positive number"),
    ({"access_token": "abc", "token_type": "Bearer", "expires_in": True}, "not a positive number"),
])
def test_a_wrong_token_answer_is_one_clear_error(monkeypatch: pytest.MonkeyPatch, answer: dict[str, object],
                                                 says: str) -> None:
    monkeypatch.setenv("OB_SECRET", SECRET)
    endpoint = Endpoint(answer=answer)
    with serving(endpoint) as issuer, serving(page_for(endpoint)) as url, \
            pytest.raises(InputError, match=says) as err:
        fetch(url + "/metrics", 5, 5, 1 << 20, HttpAuth(oauth2=creds(issuer)))
    assert err.value.path == "--oauth2-token-url"


def test_an_answer_that_is_not_json_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OB_SECRET", SECRET)
    with serving(reply(b"<html>login</html>")) as issuer, pytest.raises(InputError, match="not JSON"):
        HttpAuth(oauth2=creds(issuer)).header()


@pytest.mark.parametrize(("args", "says"), [
    (["--oauth2-token-url", "https://127.0.0.1:9/token"], "needs --oauth2-client-id, --oauth2-client-secret-file"),
    (["--oauth2-client-id", CLIENT, "--oauth2-client-secret-env", "T"], "needs --oauth2-token-url"),
    (["--oauth2-scope", "read"], "--oauth2-scope needs"),
    (["--oauth2-token-url", "ftp://127.0.0.1/token", "--oauth2-client-id", CLIENT, "--oauth2-client-secret-env", "T"],
     "not an http(s) URL"),
    (["--oauth2-token-url", "https://127.0.0.1:9/t", "--oauth2-client-id", CLIENT, "--oauth2-client-secret-env", "T",
      "--oauth2-scope", "a b"], "not an OAuth2 scope"),
    (["--oauth2-token-url", "https://[::1/t", "--oauth2-client-id", CLIENT, "--oauth2-client-secret-env", "T"],
     "--oauth2-token-url: not a URL: Invalid IPv6 URL"),  # (session 35's review: the option was not named)
    (["--oauth2-token-url", "https://h:x/t", "--oauth2-client-id", CLIENT, "--oauth2-client-secret-env", "T"],
     "--oauth2-token-url: not a URL: Port could not be cast"),
    (["--oauth2-token-url", "https://127.0.0.1:9/t", "--oauth2-client-id", CLIENT, "--oauth2-client-secret-env", "T",
      "--bearer-token-env", "T"], "not two"),
    (["--oauth2-token-url", "https://127.0.0.1:9/t", "--oauth2-client-id", CLIENT, "--oauth2-client-secret-env",
      "OB_UNSET_VAR_X"], "is not set"),
])
def test_a_bad_oauth2_option_is_one_line_and_exit_2(tmp_path: Path, args: list[str], says: str) -> None:
    got = cli("--source", "prometheus-api", "--url", "https://127.0.0.1:9", *args, env={"T": SECRET}, data=tmp_path)
    assert got.returncode == 2 and got.stderr.count("\n") == 1 and says in got.stderr, got.stderr
    assert SECRET not in got.stderr and "Traceback" not in got.stderr


@pytest.fixture(scope="module")
def two_cas(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """Self-signed certificates (each its own CA) for 127.0.0.1: the source's and the token endpoint's."""
    if OPENSSL is None:
        pytest.skip("no openssl")
    d = tmp_path_factory.mktemp("two-cas")
    return {"source": _cert(d, "source"), "issuer": _cert(d, "issuer")}


def test_a_token_endpoint_on_another_ca_is_verified_against_its_own_bundle(two_cas: dict[str, tuple[Path, Path]],
                                                                           tmp_path: Path) -> None:
    """The page server's certificate is from one CA, the token endpoint's from another: ``--oauth2-ca-file`` names
    the endpoint's (session 36; before, the token request could only use the source's ``--ca-file``, and such an
    endpoint could not be reached)."""
    endpoint = Endpoint()
    source_ca, issuer_ca = str(two_cas["source"][0]), str(two_cas["issuer"][0])
    with serving(endpoint, tls=two_cas["issuer"]) as issuer, serving(page_for(endpoint), tls=two_cas["source"]) as url:
        base = ["--source", "prometheus", "--url", url + "/metrics", "--ca-file", source_ca, "--oauth2-token-url",
                issuer + "/token", "--oauth2-client-id", CLIENT, "--oauth2-client-secret-env", "OB_SECRET"]
        ok = cli(*base, "--oauth2-ca-file", issuer_ca, "--json", env={"OB_SECRET": SECRET}, data=tmp_path)
        before = cli(*base, env={"OB_SECRET": SECRET}, data=tmp_path)  # the source's CA for the endpoint too
    assert ok.returncode == 1, ok.stderr  # NPU 1 at 107 C: read through the token
    assert json.loads(ok.stdout)["coverage"]["connection"] == (
        f"OAuth2 client credentials as {CLIENT} from {issuer[8:]} (its CA {issuer_ca}); CA {source_ca}")
    assert before.returncode == 2 and before.stderr.count("\n") == 1, before.stderr
    assert "--oauth2-token-url" in before.stderr and "TLS certificate not verified" in before.stderr
    assert "--oauth2-ca-file" in before.stderr and "Traceback" not in before.stderr, before.stderr
    assert endpoint.issued == ["tok-1-9f3c"]


def test_a_bad_oauth2_ca_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    junk = tmp_path / "junk.pem"
    junk.write_text("not a certificate\n")
    oauth = ["--oauth2-token-url", "https://127.0.0.1:9/t", "--oauth2-client-id", CLIENT, "--oauth2-client-secret-env",
             "T"]
    for args, says in (([*oauth, "--oauth2-ca-file", str(tmp_path / "missing.pem")],
                        f"{tmp_path / 'missing.pem'}: --oauth2-ca-file: no such CA bundle file"),
                       ([*oauth, "--oauth2-ca-file", str(junk)], f"{junk}: --oauth2-ca-file: not a PEM CA bundle"),
                       (["--oauth2-ca-file", str(junk)], "--oauth2-ca-file needs --oauth2-token-url")):
        got = cli("--source", "prometheus-api", "--url", "https://127.0.0.1:9", *args, env={"T": SECRET},
                  data=tmp_path)  # port 9: nothing is asked of it, the files are checked before any request
        assert got.returncode == 2 and got.stderr.count("\n") == 1 and says in got.stderr, got.stderr
        assert "Traceback" not in got.stderr and "cannot fetch" not in got.stderr, got.stderr
