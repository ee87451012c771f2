"""The credentials and TLS options of the commands that read http(s) ``--url`` sources (``sweep once``, ``sweep run``,
``watch``), gathered into one :class:`~opsbrain.sources.httpauth.HttpAuth` argument ``auth``. Secrets are named by
file or environment variable only: a secret given on the command line shows in ``ps`` and in shell history."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from opsbrain.errors import InputError

if TYPE_CHECKING:
    from opsbrain.sources.httpauth import HttpAuth, SecretRef

_OPTIONS = [
    click.option("--bearer-token-file", metavar="FILE", default=None,
                 help="Send the token in FILE as 'Authorization: Bearer' (re-read for each request: a rotated "
                 "service-account token is followed)."),
    click.option("--bearer-token-env", metavar="VAR", default=None,
                 help="Send the token in environment variable VAR as 'Authorization: Bearer'."),
    click.option("--basic-auth-user", metavar="USER", default=None, help="HTTP basic authentication as USER."),
    click.option("--basic-auth-password-file", metavar="FILE", default=None,
                 help="The basic-auth password, in FILE."),
    click.option("--basic-auth-password-env", metavar="VAR", default=None,
                 help="The basic-auth password, in environment variable VAR."),
    click.option("--ca-file", metavar="FILE", default=None,
                 help="Verify the server's certificate against the CA bundle (PEM) in FILE."),
    click.option("--client-cert", metavar="FILE", default=None,
                 help="Present the client certificate (PEM) in FILE when the server asks for one (mutual TLS)."),
    click.option("--client-key", metavar="FILE", default=None,
                 help="The client certificate's private key (PEM, unencrypted) in FILE; default: in --client-cert."),
    click.option("--insecure-skip-verify", is_flag=True, default=False,
                 help="Do not verify the server's TLS certificate (said in the output)."),
]


def _secret(file: str | None, env: str | None, option: str) -> SecretRef | None:
    from opsbrain.sources.httpauth import SecretRef

    if file is not None and env is not None:
        raise InputError(f"give {option}-file or {option}-env, not both", path=f"{option}-file")
    if file is None and env is None:
        return None
    if env is not None and not env:
        raise InputError("names no environment variable", path=f"{option}-env")
    return SecretRef(file=file, env=env, option=f"{option}-file" if file is not None else f"{option}-env")


def auth_of(bearer_token_file: str | None, bearer_token_env: str | None, basic_auth_user: str | None,
            basic_auth_password_file: str | None, basic_auth_password_env: str | None, ca_file: str | None,
            client_cert: str | None, client_key: str | None, insecure_skip_verify: bool) -> HttpAuth:
    """The options' :class:`HttpAuth` (InputError for a contradiction: two sources of one secret, a bearer token and
    basic authentication, a CA bundle and no verification, a client key without its certificate)."""
    from opsbrain.sources.httpauth import HttpAuth

    return HttpAuth(bearer=_secret(bearer_token_file, bearer_token_env, "--bearer-token"),
                    basic_user=basic_auth_user,
                    basic_password=_secret(basic_auth_password_file, basic_auth_password_env, "--basic-auth-password"),
                    ca_file=ca_file, insecure=insecure_skip_verify, client_cert=client_cert, client_key=client_key)


def http_auth_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Adds the options above to a command and passes them to it as one ``auth`` keyword argument."""
    names = ("bearer_token_file", "bearer_token_env", "basic_auth_user", "basic_auth_password_file",
             "basic_auth_password_env", "ca_file", "client_cert", "client_key", "insecure_skip_verify")

    @functools.wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs["auth"] = auth = auth_of(*(kwargs.pop(n) for n in names))
        if auth.insecure:
            from opsbrain.sources.httpauth import INSECURE

            click.echo(f"opsbrain: warning: {INSECURE}: the server's identity is not checked", err=True)
        return f(*args, **kwargs)

    out: Callable[..., Any] = wrapper
    for option in reversed(_OPTIONS):
        out = option(out)
    return out
