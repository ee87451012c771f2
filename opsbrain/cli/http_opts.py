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
    from opsbrain.sources.oauth2 import ClientCredentials

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
    click.option("--oauth2-token-url", metavar="URL", default=None,
                 help="Fetch a bearer token from this OAuth2 token endpoint (client credentials grant, RFC 6749 4.4) "
                 "and send it; fetched anew before it expires and after a 401."),
    click.option("--oauth2-client-id", metavar="ID", default=None, help="The OAuth2 client id."),
    click.option("--oauth2-client-secret-file", metavar="FILE", default=None,
                 help="The OAuth2 client secret, in FILE (re-read for each token request)."),
    click.option("--oauth2-client-secret-env", metavar="VAR", default=None,
                 help="The OAuth2 client secret, in environment variable VAR."),
    click.option("--oauth2-scope", "oauth2_scopes", metavar="SCOPE", multiple=True,
                 help="An OAuth2 scope to ask for (repeat the option for several)."),
    click.option("--oauth2-ca-file", metavar="FILE", default=None,
                 help="Verify the OAuth2 token endpoint's certificate against the CA bundle (PEM) in FILE; default: "
                 "as the source's (--ca-file, --insecure-skip-verify)."),
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


def _oauth2(token_url: str | None, client_id: str | None, secret: SecretRef | None, scopes: tuple[str, ...],
            ca_file: str | None) -> ClientCredentials | None:
    """The OAuth2 options' client credentials: all of URL, id and secret, or none of them (scopes and the token
    endpoint's CA bundle need them)."""
    given = {"--oauth2-token-url": token_url, "--oauth2-client-id": client_id, "--oauth2-client-secret-file": secret}
    if all(v is None for v in given.values()):
        for option, value in (("--oauth2-scope", scopes), ("--oauth2-ca-file", ca_file)):
            if value:
                raise InputError(f"{option} needs --oauth2-token-url, --oauth2-client-id and a client secret",
                                 path=option)
        return None
    missing = [k for k, v in given.items() if v is None]
    if missing:
        raise InputError(f"OAuth2 needs {', '.join(missing)} too (or -env for the secret)", path=missing[0])
    from opsbrain.sources.oauth2 import ClientCredentials

    assert token_url is not None and client_id is not None and secret is not None
    return ClientCredentials(token_url, client_id, secret, tuple(scopes), ca_file)


def auth_of(bearer_token_file: str | None, bearer_token_env: str | None, basic_auth_user: str | None,
            basic_auth_password_file: str | None, basic_auth_password_env: str | None, oauth2_token_url: str | None,
            oauth2_client_id: str | None, oauth2_client_secret_file: str | None,
            oauth2_client_secret_env: str | None, oauth2_scopes: tuple[str, ...], oauth2_ca_file: str | None,
            ca_file: str | None, client_cert: str | None, client_key: str | None, insecure_skip_verify: bool
            ) -> HttpAuth:
    """The options' :class:`HttpAuth` (InputError for a contradiction: two sources of one secret, two kinds of
    credentials, an incomplete OAuth2 client, a CA bundle and no verification, a client key without its
    certificate)."""
    from opsbrain.sources.httpauth import HttpAuth

    oauth2 = _oauth2(oauth2_token_url, oauth2_client_id,
                     _secret(oauth2_client_secret_file, oauth2_client_secret_env, "--oauth2-client-secret"),
                     oauth2_scopes, oauth2_ca_file)
    return HttpAuth(bearer=_secret(bearer_token_file, bearer_token_env, "--bearer-token"),
                    basic_user=basic_auth_user,
                    basic_password=_secret(basic_auth_password_file, basic_auth_password_env, "--basic-auth-password"),
                    ca_file=ca_file, insecure=insecure_skip_verify, client_cert=client_cert, client_key=client_key,
                    oauth2=oauth2)


def http_auth_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Adds the options above to a command and passes them to it as one ``auth`` keyword argument."""
    names = ("bearer_token_file", "bearer_token_env", "basic_auth_user", "basic_auth_password_file",
             "basic_auth_password_env", "oauth2_token_url", "oauth2_client_id", "oauth2_client_secret_file",
             "oauth2_client_secret_env", "oauth2_scopes", "oauth2_ca_file", "ca_file", "client_cert", "client_key",
             "insecure_skip_verify")

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
