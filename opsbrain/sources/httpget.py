"""HTTP GET for the real sources (exporter pages, the Prometheus query API): within a deadline for the whole answer,
refused when cut short, gzip inflated when sent unasked, credentials in the URL or given as
:class:`~opsbrain.sources.httpauth.HttpAuth` (a bearer token, basic authentication; a CA bundle) sent and never
shown, and a PromQL selector's spaces and quotes percent-encoded. Every failure is one InputError naming the URL
(without its password) and ``--url``."""

from __future__ import annotations

import base64
import contextlib
import http.client
import json
import socket
import ssl
import threading
import time
import urllib.error
import urllib.request
import zlib
from email.utils import parsedate_to_datetime
from typing import Any, NamedTuple
from urllib.parse import quote, unquote, urlencode, urlsplit, urlunsplit

from opsbrain.errors import InputError, SourceAuthError
from opsbrain.sources.httpauth import NO_AUTH, HttpAuth

CHUNK = 1 << 16


class Page(NamedTuple):
    """A body and the server's clock when it answered (its ``Date`` header, RFC 9110; None without one)."""

    body: bytes
    server_time: float | None


def fetch(url: str, timeout_s: float, deadline_s: float, max_bytes: int, auth: HttpAuth = NO_AUTH,
          post: Post | None = None, option: str = "--url") -> Page:
    """The body at ``url``: read in pieces within ``deadline_s`` for the whole of it (a server that sends a byte now
    and then held a sweep for ever: the socket's ``timeout_s`` is per read), at most ``max_bytes``; refused when
    shorter than its Content-Length (a cut page read 101 C as 10 C). ``auth``: the credentials sent and the TLS
    check (:class:`~opsbrain.sources.httpauth.HttpAuth`); no secret is ever in an error line. ``post``: a form
    POSTed instead of a GET (an OAuth2 token request), with its own ``Authorization``; ``option``: the CLI option
    that named ``url``, for error lines."""
    request = None
    try:
        request = authorised_request(url, auth, post)
        return _fetch(url, request, timeout_s, deadline_s, max_bytes, auth, post)
    except InputError as exc:  # its kind kept: a refused authorization is a SourceAuthError
        said = exc.reworded(auth.redact(exc.reason), file=exc.file and auth.redact(exc.file),
                            path=option if exc.path == "--url" else exc.path)
        if (isinstance(exc, SourceAuthError) and exc.status == 401 and auth.oauth2 is not None and post is None
                and request is not None):  # a revoked or expired token (redacted above): the next request fetches anew
            auth.oauth2.invalidate((request.get_header("Authorization") or "").removeprefix("Bearer "))
        raise said from None


class Post(NamedTuple):
    """A form to POST (``application/x-www-form-urlencoded``) and the ``Authorization`` header sent with it."""

    form: dict[str, str]
    authorization: str | None = None


def _fetch(url: str, request: urllib.request.Request, timeout_s: float, deadline_s: float, max_bytes: int,
           auth: HttpAuth, post: Post | None) -> Page:
    shown = shown_url(url)
    deadline = time.monotonic() + deadline_s
    chunks: list[bytes] = []
    size = 0
    guard = _Guard(deadline_s, auth.ssl_context() if urlsplit(url).scheme == "https" else None)
    try:
        with guard, guard.opener.open(request, timeout=timeout_s) as resp:
            while chunk := resp.read1(CHUNK):
                chunks.append(chunk)
                size += len(chunk)
                if size > max_bytes:
                    raise InputError(f"page larger than {max_bytes} bytes", file=shown, path="--url")
                if time.monotonic() > deadline:
                    raise InputError(f"the page took more than {deadline_s:g} s ({size} bytes read)", file=shown,
                                     path="--url")
            if guard.fired:  # the deadline closed the connection: what was read is no page
                raise InputError(f"the page took more than {deadline_s:g} s ({size} bytes read)", file=shown,
                                 path="--url")
            if resp.length:  # the connection closed before the Content-Length the server announced
                raise InputError(f"page cut short: {size} bytes of the {size + resp.length} announced", file=shown,
                                 path="--url")
            encoding = (resp.headers.get("Content-Encoding") or "identity").strip().lower()
            date = resp.headers.get("Date")
    except urllib.error.HTTPError as exc:
        phrase = shown_phrase(auth.redact(str(exc.reason)))  # the server's own text: redacted before it is cut
        moved = exc.geturl() if exc.geturl() and exc.geturl() != request.full_url else None
        why = (f": from {shown_url(moved)}, where the server redirected, to which the credentials are not sent on "
               "(give that URL)") if moved and request.has_header("Authorization") else (
            _form_refused(exc) if post is not None else _refused(exc.code, request))
        if exc.code in (401, 403):  # the credentials, not the data: a distinct error (the sweep service's state)
            raise SourceAuthError(f"HTTP {exc.code} {phrase}{why}", exc.code, auth.redact(shown), file=shown,
                                  path="--url") from None
        raise InputError(f"HTTP {exc.code} {phrase}{why}", file=shown, path="--url") from None
    except http.client.IncompleteRead as exc:
        raise InputError(f"page cut short: {len(exc.partial)} bytes of a chunk", file=shown, path="--url") from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        if guard.fired:  # the connection closed under a server that had not answered in time (headers dripped)
            raise InputError(f"the page took more than {deadline_s:g} s ({size} bytes read)", file=shown,
                             path="--url") from None
        # URLError wraps the cause in ``reason``; an SSLError raised while reading (TLS 1.3's post-handshake alert:
        # the server refused the client certificate) has a ``reason`` too, its short string, and is its own cause
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        if isinstance(reason, ssl.SSLCertVerificationError):  # the server's certificate is not trusted
            hint = ("the token endpoint's CA bundle with --oauth2-ca-file" if post is not None else
                    "the server's CA bundle with --ca-file; --insecure-skip-verify skips the check")
            raise InputError(f"TLS certificate not verified: {reason.verify_message or reason.reason} (give {hint})",
                             file=shown, path="--url") from None
        if isinstance(reason, ssl.SSLError):
            raise InputError(f"TLS failed: {reason.reason or reason}{_client_hint(reason, auth)}", file=shown,
                             path="--url") from None
        raise InputError(f"cannot fetch: {_why(reason)}", file=shown, path="--url") from None
    return Page(_decoded(b"".join(chunks), encoding, shown, max_bytes), _http_date(date))


def _client_hint(err: ssl.SSLError, auth: HttpAuth) -> str:
    """What a TLS failure may say of mutual TLS: an alert about our certificate (the server wants a client certificate
    it trusts), or a connection closed right after the handshake (a server that checks the client's certificate after
    TLS 1.3's handshake, or drops it without an alert, leaves the client only an EOF)."""
    reason = str(err.reason or "")
    cert = auth.client_cert
    if isinstance(err, ssl.SSLEOFError) or "EOF" in reason:
        return (f" (the server closed the connection: did it refuse the client certificate {cert}?)" if cert else
                " (the server closed the connection: if it asks for a client certificate, give one it trusts with "
                "--client-cert and --client-key)")
    if "CERTIFICATE" not in reason and "UNKNOWN_CA" not in reason:
        return ""
    return (f" (the server did not accept the client certificate {cert})" if cert else
            " (the server wants a client certificate: give it with --client-cert and --client-key)")


class _Guard:
    """A deadline over a whole request, headers included: a timer shuts the connection's socket down when it
    passes (the socket's timeout is per read, and a server sending its headers a byte at a time held a sweep past
    SIGTERM). ``opener`` makes the connections it guards; ``fired`` says it closed one."""

    def __init__(self, deadline_s: float, context: ssl.SSLContext | None = None) -> None:
        self.socks: list[socket.socket] = []
        self.fired = False
        self.timer = threading.Timer(deadline_s, self._fire)
        self.timer.daemon = True
        socks = self.socks

        def guarded(base: type[http.client.HTTPConnection]) -> Any:
            class Conn(base):  # type: ignore[valid-type, misc]
                def connect(self) -> None:
                    super().connect()
                    socks.append(self.sock)
            return Conn

        class Http(urllib.request.HTTPHandler):
            def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
                return self.do_open(guarded(http.client.HTTPConnection), req)

        class Https(urllib.request.HTTPSHandler):
            def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
                return self.do_open(guarded(http.client.HTTPSConnection), req,
                                    context=self._context)  # type: ignore[attr-defined]

        self.opener = urllib.request.build_opener(Http(), Https(context=context))

    def _fire(self) -> None:
        self.fired = True
        for sock in self.socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> _Guard:
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()


def _http_date(value: str | None) -> float | None:
    try:
        return parsedate_to_datetime(value).timestamp() if value else None
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def shown_url(url: str) -> str:
    """``url`` without a password (``http://user:pass@host/`` -> ``http://user@host/``), for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{parts.username}@{host}"))


def authorised_request(url: str, auth: HttpAuth = NO_AUTH, post: Post | None = None) -> urllib.request.Request:
    """A request for ``url`` with what a shell would pass along unquoted percent-encoded (a PromQL selector's
    spaces and quotes: ``match[]={__name__=~"npu_.*", job="x"}``) and credentials in the URL moved to an HTTP basic
    authorization header (urllib sends neither), or ``auth``'s header (read now; an OAuth2 token is fetched here
    when none is held), or ``post``'s. The header is one urllib does not copy into a redirect's request: a redirect
    to another host must not carry the secret."""
    parts = urlsplit(url)
    header = post.authorization if post is not None else auth.header()
    if parts.username is not None:
        if header is not None:
            raise InputError("credentials both in the URL and in --bearer-token-*/--basic-auth-*/--oauth2-*: give one",
                             file=shown_url(url), path="--url")
        token = base64.b64encode(f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()).decode()
        header = f"Basic {token}"
        parts = parts._replace(netloc=parts.netloc.rpartition("@")[2])
    safe = "/:@!$&'()*+,;=%~-._"
    fixed = parts._replace(path=quote(parts.path, safe=safe), query=quote(parts.query, safe=safe + "?[]"),
                           fragment="")
    request = urllib.request.Request(urlunsplit(fixed), headers={"Accept-Encoding": "identity"})
    if post is not None:
        request.data = urlencode(post.form).encode()
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        request.add_header("Accept", "application/json")
    if header is not None:
        request.add_unredirected_header("Authorization", header)
    return request


MAX_PHRASE_CHARS = 80
"""Characters of a server's reason phrase shown (``Unauthorized``; a proxy's phrase may be anything)."""


def shown_phrase(text: str) -> str:
    return text if len(text) <= MAX_PHRASE_CHARS else text[:MAX_PHRASE_CHARS] + "..."


def _refused(code: int, request: urllib.request.Request) -> str:
    """What a 401 or 403 means for the credentials sent (RFC 9110: 401 none or not accepted; 403 not allowed)."""
    sent = request.has_header("Authorization")
    if code == 401:
        return (": the server did not accept the credentials sent" if sent else
                ": the server wants credentials (--bearer-token-file/-env, or --basic-auth-user with "
                "--basic-auth-password-file/-env)")
    if code == 403:
        return ": the credentials sent are not allowed to read this" if sent else ": forbidden without credentials"
    return ""


MAX_ERROR_BODY = 4096
"""Bytes of a refused form POST's answer read for its OAuth2 error (RFC 6749 section 5.2: a small JSON object)."""


def _form_refused(exc: urllib.error.HTTPError) -> str:
    """What a token endpoint said when it refused a form (RFC 6749 section 5.2: ``error``, e.g. ``invalid_client``,
    ``invalid_scope``, and an optional ``error_description``), cut to one short phrase; empty when it said nothing
    readable."""
    try:
        answer = json.loads(exc.read(MAX_ERROR_BODY).decode("utf-8", "replace"))
    except (OSError, ValueError, http.client.HTTPException):
        return ""
    if not isinstance(answer, dict) or not isinstance(answer.get("error"), str):
        return ""
    text = " ".join(f"{answer.get('error')}: {answer.get('error_description') or ''}".split()).rstrip(": ")
    return f": {shown_phrase(text)}" if text.isprintable() else ""


def _decoded(body: bytes, encoding: str, shown: str, max_bytes: int) -> bytes:
    if encoding in ("gzip", "x-gzip"):
        out: list[bytes] = []
        size, rest = 0, body
        while rest:  # a gzip stream may hold several members one after the other
            inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
            try:
                part = inflater.decompress(rest, max_bytes + 1 - size)
            except zlib.error as exc:
                raise InputError(f"a gzip page that does not inflate: {exc}", file=shown, path="--url") from None
            size += len(part)
            out.append(part)
            if size > max_bytes or inflater.unconsumed_tail:
                raise InputError(f"page larger than {max_bytes} bytes inflated", file=shown, path="--url")
            if not inflater.eof:  # the stream stops before its end: a cut page (a cut '101' reads as '10')
                raise InputError(f"page cut short: its gzip stream ends after {size} bytes inflated", file=shown,
                                 path="--url")
            rest = inflater.unused_data
        body = b"".join(out)
    elif encoding not in ("identity", ""):
        raise InputError(f"the server sent the page as {encoding!r}, which is not read (send it plain or gzip)",
                         file=shown, path="--url")
    return body


def _why(reason: object) -> str:
    """An OS error as its words (``Connection refused``), not Python's ``[Errno 111] Connection refused``; a
    name that does not resolve says so; any other reason as it is."""
    import socket

    if isinstance(reason, socket.gaierror):
        return f"host name not resolved ({reason.strerror or reason})"
    if isinstance(reason, OSError) and reason.strerror:
        return str(reason.strerror)
    return str(reason)

