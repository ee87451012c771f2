"""Telemetry sources for sweeps and the watch mode: the twin, npu-exporter pages (Prometheus), directories of
collected ``npu-smi`` / ``hccn_tool`` outputs, and followed log directories. docs/real-cluster.md explains how
to point opsbrain at a cluster."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from opsbrain.errors import InputError
from opsbrain.sources.base import PrometheusSource, ReadingsSource, TelemetrySource, TwinSource, sweep_source
from opsbrain.sources.httpauth import NO_AUTH, HttpAuth

SOURCE_KINDS = ("twin", "prometheus", "prometheus-api", "commands")


def open_source(kind: str, urls: Sequence[str] = (), directory: str | None = None,
                auth: HttpAuth = NO_AUTH) -> ReadingsSource:
    """A real source by its CLI name (``prometheus`` with URLs, ``commands`` with a directory); ``auth``: the
    credentials and TLS check of its http(s) URLs, its secrets and CA bundle read here once (a bad file is exit 2
    before any request)."""
    if auth.given:
        if kind not in ("prometheus", "prometheus-api") or not any(urlsplit(u).scheme in ("http", "https")
                                                                   for u in urls):
            raise InputError("credentials and TLS options apply to http(s) --url sources only", path="--source")
        auth.check()
    if kind == "prometheus":
        if directory:
            raise InputError("--dir belongs to --source commands", path="--dir")
        return PrometheusSource(list(urls), auth=auth)
    if kind == "prometheus-api":
        from opsbrain.sources.promapi import PrometheusQuerySource

        if directory:
            raise InputError("--dir belongs to --source commands", path="--dir")
        if len(urls) != 1:
            raise InputError("--source prometheus-api takes one --url (the server, e.g. http://prom:9090)",
                             path="--url")
        if urls[0].startswith("file:"):  # a saved range answer (opsbrain.sources.promfile)
            from opsbrain.sources.pagefile import file_path
            from opsbrain.sources.promfile import SavedAnswerSource

            file_path(urls[0])
            return SavedAnswerSource(urls[0])
        return PrometheusQuerySource(urls[0], auth=auth)
    if kind == "commands":
        from opsbrain.sources.commands import CommandDirSource

        if urls:
            raise InputError("--url belongs to --source prometheus", path="--url")
        if not directory:
            raise InputError("--source commands needs --dir DIR", path="--dir")
        return CommandDirSource(directory)
    raise InputError(f"unknown source {kind!r} (known: {', '.join(SOURCE_KINDS)})", path="--source")


__all__ = ["NO_AUTH", "SOURCE_KINDS", "HttpAuth", "PrometheusSource", "ReadingsSource", "TelemetrySource", "TwinSource",
           "open_source", "sweep_source"]
