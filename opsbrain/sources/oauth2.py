"""OAuth 2.0 client credentials (RFC 6749 section 4.4) for the HTTP sources, as Prometheus's ``scrape_config``
``oauth2`` block names them (``client_id``, ``client_secret_file``, ``token_url``, ``scopes``): the client's id and
secret are POSTed to the token endpoint (HTTP basic authentication, each form-encoded first: RFC 6749 section
2.3.1), and the ``access_token`` it answers is sent as ``Authorization: Bearer`` (RFC 6750). Managed Prometheus
query endpoints behind an identity provider take such tokens (a service principal's client id and secret).

A token is kept until :data:`EXPIRY_MARGIN_S` before its ``expires_in`` (kept until refused when the endpoint gives
none), and dropped when a source answers 401 to it, so the next request fetches a new one. The client secret is read
again for each token request (a rotated secret file is followed), and neither it nor a token is ever in an error
line (:meth:`opsbrain.sources.httpauth.HttpAuth.redact`). The token request is made with the source's TLS options,
or with the token endpoint's own CA bundle where one is given (:func:`tls_only`)."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING
from urllib.parse import quote_plus, urlsplit

from opsbrain.errors import InputError

if TYPE_CHECKING:
    from opsbrain.sources.httpauth import HttpAuth, SecretRef

EXPIRY_MARGIN_S = 10.0
"""A token is fetched anew this long before it expires (golang.org/x/oauth2's ``expiryDelta``, which Prometheus's
``oauth2`` client uses: a token must not expire between the check and the server reading it)."""
TOKEN_TIMEOUT_S = 10.0
"""Socket timeout and whole-answer deadline of one token request (Prometheus's default scrape timeout)."""
MAX_TOKEN_BYTES = 64 << 10
"""A token answer is a small JSON object; a larger one is no token answer."""
OPTION = "--oauth2-token-url"
CA_OPTION = "--oauth2-ca-file"
SPENT_KEPT = 8
"""Tokens no longer held that are still redacted: requests sent with one may answer after it was dropped or replaced
(the sweep's worker threads share a token), and a server may echo it into its error."""


@dataclass
class ClientCredentials:
    """The client credentials grant: where to ask, who asks, for what scopes; the token held, thread-safe (a sweep
    service reads its sources from worker threads)."""

    token_url: str
    client_id: str
    client_secret: SecretRef
    scopes: tuple[str, ...] = ()
    ca_file: str | None = None
    """The token endpoint's CA bundle (PEM; ``--oauth2-ca-file``, session 36), where it is not the source's: the
    token request verifies against it instead of the source's ``--ca-file`` (or the system's CAs)."""
    _token: str | None = field(default=None, repr=False, compare=False)
    _expires: float = field(default=0.0, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    _spent: deque[str] = field(default_factory=lambda: deque(maxlen=SPENT_KEPT), repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            parts = urlsplit(self.token_url)
            parts.port  # noqa: B018 (a port that is no number: ValueError, as a bracket left open)
        except ValueError as exc:
            raise InputError(f"not a URL: {exc}", file=self.token_url, path=OPTION) from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputError("not an http(s) URL of a token endpoint", file=self.token_url, path=OPTION)
        if parts.username is not None:
            raise InputError("credentials in the token URL: give them with --oauth2-client-id and "
                             "--oauth2-client-secret-file/-env", path=OPTION)
        if not self.client_id or not self.client_id.isprintable():
            raise InputError("an OAuth2 client id is printable text, not empty", path="--oauth2-client-id")
        for s in self.scopes:  # RFC 6749 section 3.3: scope tokens are printable ASCII without spaces, '"' or '\'
            if not s or any(c in ' "\\' or not " " < c <= "~" for c in s):
                raise InputError(f"not an OAuth2 scope: {s!r} (printable ASCII, no space, quote or backslash)",
                                 path="--oauth2-scope")

    def token(self, tls: HttpAuth) -> str:
        """The access token: the one held while it is good, else a new one from the token endpoint (over ``tls``'s
        CA bundle, client certificate and verification settings: :func:`tls_only`)."""
        with self._lock:
            if self._token is not None and time.monotonic() < self._expires:
                return self._token
            token, lifetime = self._request(tls)
            self._drop()
            self._token = token
            self._expires = time.monotonic() + (lifetime - EXPIRY_MARGIN_S if lifetime is not None else float("inf"))
            return token

    def invalidate(self, refused: str) -> None:
        """Drop the token held if it is ``refused``, the one a source answered 401 to: the next request fetches a new
        one. Another worker that was refused the same token may have fetched a new one meanwhile: that one is kept
        (session 36; before, every 401 dropped whatever was held, and a late 401 cost a second token request)."""
        with self._lock:
            if self._token == refused:
                self._drop()

    def _drop(self) -> None:
        if self._token is not None:
            self._spent.append(self._token)  # still redacted (:data:`SPENT_KEPT`)
            self._token = None

    def secrets(self) -> list[str]:
        """The client secret, its basic-authentication form, the token held and the last ones dropped, for
        redaction."""
        out = [t for t in (self._token, *list(self._spent)) if t]  # (list(): one C call, no other thread's append)
        try:
            secret = self.client_secret.read()
        except InputError:
            return out
        return [*out, secret, self._basic(secret).removeprefix("Basic ")]

    def _basic(self, secret: str) -> str:
        pair = f"{quote_plus(self.client_id)}:{quote_plus(secret)}"
        return f"Basic {base64.b64encode(pair.encode()).decode()}"

    def _request(self, tls: HttpAuth) -> tuple[str, float | None]:
        from opsbrain.sources.httpget import Post, fetch

        form = {"grant_type": "client_credentials"}
        if self.scopes:
            form["scope"] = " ".join(self.scopes)
        post = Post(form, self._basic(self.client_secret.read()))
        shown = self.token_url
        body = fetch(self.token_url, TOKEN_TIMEOUT_S, TOKEN_TIMEOUT_S, MAX_TOKEN_BYTES, tls, post=post,
                     option=OPTION).body
        try:
            answer = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise InputError("the token endpoint's answer is not JSON (RFC 6749 section 5.1)", file=shown,
                             path=OPTION) from None
        token = answer.get("access_token") if isinstance(answer, dict) else None
        if not isinstance(token, str) or not token or not token.isprintable():
            raise InputError("the token endpoint's answer holds no access_token", file=shown, path=OPTION)
        kind = answer.get("token_type")
        if not isinstance(kind, str) or kind.lower() != "bearer":
            raise InputError(f"the token endpoint gave a token of type {kind!r}: only bearer tokens are sent "
                             "(RFC 6750)", file=shown, path=OPTION)
        lifetime = answer.get("expires_in")
        if isinstance(lifetime, str) and lifetime.isdigit():  # some endpoints quote it
            lifetime = int(lifetime)
        if lifetime is not None and (isinstance(lifetime, bool) or not isinstance(lifetime, int | float)
                                     or lifetime <= 0):
            raise InputError(f"the token endpoint's expires_in is not a positive number of seconds: {lifetime!r}",
                             file=shown, path=OPTION)
        return token, None if lifetime is None else float(lifetime)

    def describe(self) -> str:
        said = f"OAuth2 client credentials as {self.client_id} from {urlsplit(self.token_url).netloc}"
        return said + (f" (its CA {self.ca_file})" if self.ca_file is not None else "")


def tls_only(auth: HttpAuth) -> HttpAuth:
    """``auth``'s TLS settings without its credentials: what a token request is made with. With the token endpoint's
    own CA bundle (:attr:`ClientCredentials.ca_file`), that bundle instead of the source's, and verified even where
    the source's check is skipped (the bundle was given to check the endpoint with)."""
    tls = replace(auth, bearer=None, basic_user=None, basic_password=None, oauth2=None)
    if auth.oauth2 is not None and auth.oauth2.ca_file is not None:
        tls = replace(tls, ca_file=auth.oauth2.ca_file, insecure=False, ca_option=CA_OPTION)
    return tls
