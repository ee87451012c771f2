"""Credentials and TLS for the HTTP sources (exporter pages, the Prometheus query API), as Prometheus's own
``scrape_config`` names them (Prometheus docs, "Configuration": ``authorization`` with ``credentials_file``,
``basic_auth`` with ``password_file``, ``tls_config`` with ``ca_file``, ``cert_file``, ``key_file`` and
``insecure_skip_verify``): a bearer token or a basic-auth password read from a file or an environment variable (never
from the command line: a secret there shows in ``ps`` and in shell history), or OAuth2 client credentials (``oauth2``:
:mod:`opsbrain.sources.oauth2`), a CA bundle, a client certificate and its key (mutual TLS), and skipping the
certificate check only when asked.

A secret is read again for each request (a Kubernetes service-account token file is rotated under a running
``sweep run``), is sent in a header urllib does not carry across a redirect (another host must not get it), and is
replaced by ``<redacted>`` in every error line (:meth:`HttpAuth.redact`)."""

from __future__ import annotations

import base64
import os
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from opsbrain.errors import InputError

if TYPE_CHECKING:
    from opsbrain.sources.oauth2 import ClientCredentials

MAX_SECRET_BYTES = 16 << 10
"""A token or password file larger than this is not a secret (a wrong path: a log, a binary)."""
REDACTED = "<redacted>"
INSECURE = "TLS certificate NOT verified (--insecure-skip-verify)"


@dataclass(frozen=True)
class SecretRef:
    """Where a secret is read: a file, or an environment variable; ``option`` names the CLI option for messages."""

    file: str | None = None
    env: str | None = None
    option: str = ""

    def read(self) -> str:
        """The secret, trailing newline and spaces taken off (``echo TOKEN > file``). InputError, naming the file or
        variable but never the secret, when it cannot be read, is empty, or holds a line break or a control character
        (it goes into an HTTP header: a second line there would be a header of its own)."""
        if self.file is not None:
            try:
                with open(self.file, "rb") as fh:
                    raw = fh.read(MAX_SECRET_BYTES + 1)
            except OSError as exc:
                raise InputError(f"cannot read the secret file: {exc.strerror or type(exc).__name__}", file=self.file,
                                 path=self.option) from None
            where: dict[str, str | None] = {"file": self.file}
            if len(raw) > MAX_SECRET_BYTES:
                raise InputError(f"larger than {MAX_SECRET_BYTES} bytes: not a token or password file", **where,
                                 path=self.option)
        else:
            value = os.environ.get(self.env or "")
            if value is None:
                raise InputError(f"the environment variable {self.env!r} is not set", path=self.option)
            raw, where = value.encode("utf-8", "surrogateescape"), {"file": f"${self.env}"}
        try:
            text = raw.decode("utf-8").rstrip()
        except UnicodeDecodeError:
            raise InputError("the secret is not UTF-8 text", **where, path=self.option) from None
        if not text:
            raise InputError("the secret is empty", **where, path=self.option)
        if not text.isprintable():
            raise InputError("the secret holds a line break or a control character (one line expected)", **where,
                             path=self.option)
        return text


@dataclass(frozen=True)
class HttpAuth:
    """How the HTTP sources authenticate and verify the server. The default: nothing sent, the system's CAs."""

    bearer: SecretRef | None = None
    basic_user: str | None = None
    basic_password: SecretRef | None = None
    ca_file: str | None = None
    insecure: bool = False
    client_cert: str | None = None
    """A PEM client certificate (mutual TLS); its key in ``client_key``, else in the same file."""
    client_key: str | None = None
    oauth2: ClientCredentials | None = None
    """OAuth2 client credentials (:mod:`opsbrain.sources.oauth2`): a token fetched from an endpoint, sent as bearer."""
    ca_option: str = "--ca-file"
    """The option that gave ``ca_file``, for messages (a token request's TLS may hold ``--oauth2-ca-file``'s)."""

    def __post_init__(self) -> None:
        if self.client_key is not None and self.client_cert is None:
            raise InputError("--client-key needs --client-cert (the certificate the key belongs to)",
                             path="--client-key")
        if sum(x is not None for x in (self.bearer, self.basic_user, self.oauth2)) > 1:
            raise InputError("give one of a bearer token, basic authentication and OAuth2, not two (as Prometheus's "
                             "scrape_config)", path="--oauth2-token-url" if self.oauth2 else "--bearer-token-file")
        if (self.basic_user is None) != (self.basic_password is None):
            raise InputError("basic authentication needs both --basic-auth-user and a password "
                             "(--basic-auth-password-file or --basic-auth-password-env)", path="--basic-auth-user")
        if self.basic_user is not None and (":" in self.basic_user or not self.basic_user.isprintable()):
            raise InputError("a basic-auth user name holds no ':' and no control character (RFC 7617)",
                             path="--basic-auth-user")
        if self.ca_file is not None and self.insecure:
            raise InputError("--ca-file and --insecure-skip-verify contradict each other", path="--ca-file")

    @property
    def sends_credentials(self) -> bool:
        return self.bearer is not None or self.basic_user is not None or self.oauth2 is not None

    @property
    def given(self) -> bool:
        return self.sends_credentials or self.ca_file is not None or self.insecure or self.client_cert is not None

    def check(self) -> None:
        """Read every secret and the CA bundle once, so that a bad file is exit 2 before the first request."""
        if self.oauth2 is not None:
            from opsbrain.sources.oauth2 import tls_only

            self.oauth2.client_secret.read()  # the token itself is asked for with the first request
            tls_only(self).ssl_context()  # the token endpoint's CA bundle, where it has its own
        else:
            self.header()
        self.ssl_context()

    def header(self) -> str | None:
        """The ``Authorization`` header's value (RFC 6750 ``Bearer``, RFC 7617 ``Basic``), read now (an OAuth2 token
        fetched when none is held); None without."""
        if self.oauth2 is not None:
            from opsbrain.sources.oauth2 import tls_only

            return f"Bearer {self.oauth2.token(tls_only(self))}"
        if self.bearer is not None:
            return f"Bearer {self.bearer.read()}"
        if self.basic_user is not None and self.basic_password is not None:
            pair = f"{self.basic_user}:{self.basic_password.read()}".encode()
            return f"Basic {base64.b64encode(pair).decode()}"
        return None

    def ssl_context(self) -> ssl.SSLContext:
        """The TLS context: the system's CAs, or ``ca_file``'s (PEM), or no verification at all (``insecure``); with
        the client certificate and key presented when the server asks (:meth:`_client_identity`)."""
        if self.insecure:
            ctx = ssl.create_default_context()
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        elif self.ca_file is None:
            ctx = ssl.create_default_context()
        elif not Path(self.ca_file).is_file():
            raise InputError("no such CA bundle file", file=self.ca_file, path=self.ca_option)
        else:
            try:
                ctx = ssl.create_default_context(cafile=self.ca_file)
            except (ssl.SSLError, OSError, ValueError) as exc:
                why = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or type(exc).__name__
                raise InputError(f"not a PEM CA bundle ({why})", file=self.ca_file, path=self.ca_option) from None
        if self.client_cert is not None:
            self._client_identity(ctx, self.client_cert, self.client_key)
        return ctx

    @staticmethod
    def _client_identity(ctx: ssl.SSLContext, cert: str, key: str | None) -> None:
        """Load the client certificate and its key into ``ctx``; one InputError naming the file for a missing or
        unreadable file, a file that is no PEM certificate or key, an encrypted key (nothing would be there to type
        its passphrase under ``sweep run``: OpenSSL would prompt on the terminal), or a key of another certificate."""
        pem: dict[str, str] = {}
        for what, path, option in (("certificate", cert, "--client-cert"), ("key", key or cert, "--client-key")):
            try:
                pem[what] = Path(path).read_bytes()[:1 << 20].decode("ascii", "replace")
            except OSError as exc:
                why = "no such file" if isinstance(exc, FileNotFoundError) else exc.strerror or type(exc).__name__
                raise InputError(f"cannot read the client {what}: {why}", file=path, path=option) from None
        if "-----BEGIN CERTIFICATE-----" not in pem["certificate"]:
            raise InputError("not a PEM certificate (no BEGIN CERTIFICATE block)", file=cert, path="--client-cert")
        if "PRIVATE KEY-----" not in pem["key"]:
            raise InputError("no PEM private key in it" + ("" if key else " (give its key with --client-key)"),
                             file=key or cert, path="--client-key" if key else "--client-cert")

        def no_passphrase() -> bytes:
            raise _Encrypted

        try:
            ctx.load_cert_chain(cert, key, password=no_passphrase)
        except _Encrypted:
            raise InputError("the key is encrypted: give it unencrypted, readable by this user only (as Prometheus's "
                             "tls_config key_file)", file=key or cert, path="--client-key") from None
        except ssl.SSLError as exc:
            if exc.reason == "KEY_VALUES_MISMATCH":
                raise InputError(f"the key does not match the client certificate {cert}", file=key or cert,
                                 path="--client-key") from None
            raise InputError(f"not a usable client certificate and key ({exc.reason or exc})", file=cert,
                             path="--client-cert") from None

    def secrets(self) -> list[str]:
        """The secrets as they are now and as they travel (the base64 of a basic pair), for :meth:`redact`."""
        out: list[str] = []
        for ref in (self.bearer, self.basic_password):
            if ref is None:
                continue
            try:
                out.append(ref.read())
            except InputError:
                continue
        if self.basic_user is not None and self.basic_password is not None and out:
            out.append(base64.b64encode(f"{self.basic_user}:{out[-1]}".encode()).decode())
        if self.oauth2 is not None:
            out.extend(self.oauth2.secrets())
        return [s for s in out if s]

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``<redacted>`` (a server or proxy may echo the request's
        ``Authorization`` header into its error page, and that text reaches an error line)."""
        for s in sorted(self.secrets(), key=len, reverse=True):
            text = text.replace(s, REDACTED)
        return text

    def describe(self) -> str:
        """What a sweep's ``coverage.connection`` says of it: the kind of credentials (never their value), the CA
        bundle, a TLS check skipped; empty without any."""
        parts = []
        if self.bearer is not None:
            parts.append("bearer token")
        elif self.basic_user is not None:
            parts.append(f"basic auth as {self.basic_user}")
        elif self.oauth2 is not None:
            parts.append(self.oauth2.describe())
        if self.ca_file is not None:
            parts.append(f"CA {self.ca_file}")
        if self.client_cert is not None:
            parts.append(f"client certificate {self.client_cert}")
        if self.insecure:
            parts.append(INSECURE)
        return "; ".join(parts)


class _Encrypted(Exception):
    """A client key asked for a passphrase (:meth:`HttpAuth._client_identity`)."""


NO_AUTH = HttpAuth()
