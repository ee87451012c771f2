"""Log lines a collector stored as one JSON record each: the program's line is a field of the record.

- Docker's ``json-file`` logging driver (``/var/lib/docker/containers/<id>/<id>-json.log``, the default driver;
  Docker's "JSON File logging driver" reference): ``{"log":"<line>\\n","stream":"stderr","time":"<RFC 3339 nano>"}``;
  Fluent Bit's and Fluentd's ``tail`` of those files and Vector keep the ``log`` field (with ``kubernetes.host``
  added by their Kubernetes filters);
- the systemd journal's JSON export (``journalctl -o json``; systemd.journal-fields(7)): ``MESSAGE`` with
  ``__REALTIME_TIMESTAMP`` (microseconds since the epoch), ``_HOSTNAME``, ``SYSLOG_IDENTIFIER`` and ``_PID``;
  a ``MESSAGE`` that is not UTF-8 is exported as an array of byte values;
- Grafana Loki's ``logcli query --output=jsonl`` (grafana/loki ``pkg/logcli/output/jsonl.go``):
  ``{"labels":{...},"line":"<line>","timestamp":"<RFC 3339 nano>"}``, and its default output, the same three as text
  (``output/default.go``: ``<RFC 3339> {job="x", host="n1"} <line>``, :func:`labelled_line`); the host is the
  stream's ``host``, ``hostname``, ``node_name`` or ``nodename`` label (``node_name``: Promtail's Kubernetes
  scrape configs relabel the pod's node to it);
- Elastic Common Schema documents (Filebeat, Elastic Agent, Logstash): ``message`` with ``@timestamp`` and
  ``host.name`` (or Filebeat's ``kubernetes.node.name``; Logstash's ``host`` as a string).

:func:`record_line` gives the line and a head standing for the record's other fields, written as the text forms
the readers already know: the time as an ISO stamp (with its year) and, where the record names its host, the head
``journalctl`` prints for it (``May 01 10:11:12 host prog[pid]: ``), whose host :func:`opsbrain.ingest.where.head_host`
reads. A line that is not such a record costs one two-character comparison."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from opsbrain.lazyre import lazy_compile

_KEYS = ('"log"', '"MESSAGE"', '"line"', '"message"')
"""A record is decoded only when one of these keys is in the line (a JSON document of another kind stays a line)."""
_RFC3339 = lazy_compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def record_line(line: str) -> tuple[str, str] | None:
    """The program's line inside a collector's JSON record and the head standing for its time and host; None when
    ``line`` is no such record."""
    if line[:2] != '{"' or not any(k in line for k in _KEYS):
        return None
    try:
        rec = json.loads(line)
    except ValueError:  # a record cut at MAX_LINE, or not JSON at all
        return None
    if not isinstance(rec, dict):
        return None
    if isinstance(body := rec.get("log"), str):
        return body.rstrip("\r\n"), _head(_iso(rec.get("time")), _kube_host(rec), rec.get("container_name"), None)
    body = rec.get("MESSAGE")
    if isinstance(body, list) and all(isinstance(b, int) and 0 <= b < 256 for b in body):
        body = bytes(body).decode("utf-8", "replace")
    if isinstance(body, str):
        return body.rstrip("\r\n"), _head(_epoch_us(rec.get("__REALTIME_TIMESTAMP")), rec.get("_HOSTNAME"),
                                          rec.get("SYSLOG_IDENTIFIER") or rec.get("_COMM"), rec.get("_PID"))
    if isinstance(body := rec.get("line"), str) and "timestamp" in rec and len(rec) <= 3:  # logcli: 3 keys at most
        labels: dict[str, Any] = lab if isinstance(lab := rec.get("labels"), dict) else {}
        return body.rstrip("\r\n"), _head(_iso(rec.get("timestamp")), _label_host(labels), labels.get("job"), None)
    if isinstance(body := rec.get("message"), str) and "@timestamp" in rec and not _more_text(rec):
        return body.rstrip("\r\n"), _head(_iso(rec.get("@timestamp")), _ecs_host(rec), None, None)
    return None


_ECS_TEXT = ("error", "exc_info", "stack_trace", "exception", "traceback")
"""Fields of a document that hold more of its text than ``message`` (ECS ``error.message`` / ``error.stack_trace``,
python-json-logger's ``exc_info``): such a document stays whole, so that nothing it says is lost."""


def _more_text(rec: dict[str, Any]) -> bool:
    return any(k in rec for k in _ECS_TEXT)


_LABELLED = lazy_compile(r'(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) '
                       r'(\{(?:[A-Za-z_]\w*="(?:[^"\\]|\\.)*"(?:, )?)*\}) +')
_LABEL = lazy_compile(r'([A-Za-z_]\w*)="((?:[^"\\]|\\.)*)"')
HOST_LABELS = ("host", "hostname", "node_name", "nodename")
"""Stream labels that name the host a line came from."""


def labelled_line(line: str) -> tuple[str, str] | None:
    """The line after logcli's default head (its time stamp and the stream's label set, padded) and the head standing
    for them (as :func:`record_line`'s); None when ``line`` has no such head."""
    m = _LABELLED.match(line)
    if m is None:
        return None
    labels = dict(_LABEL.findall(m.group(2)))
    return line[m.end():], _head(_iso(m.group(1)), _label_host(labels), labels.get("job"), None) or m.group(0)


def _label_host(labels: dict[str, Any]) -> Any:
    return next((labels[k] for k in HOST_LABELS if isinstance(labels.get(k), str)), None)


def _ecs_host(rec: dict[str, Any]) -> Any:
    """ECS ``host.name`` (else ``host.hostname``), Filebeat's ``kubernetes.node.name``, or Logstash's ``host``."""
    host = rec.get("host")
    if isinstance(host, dict):
        return host.get("name") if isinstance(host.get("name"), str) else host.get("hostname")
    kube = rec.get("kubernetes")
    node = kube.get("node") if isinstance(kube, dict) else None
    if isinstance(node, dict) and isinstance(node.get("name"), str):
        return node["name"]
    return host


def _head(when: datetime | None, host: Any, program: Any, pid: Any) -> str:
    """An ISO stamp for ``when`` and, with a host, journalctl's short head (none without a time: a made-up clock
    would read as the line's time)."""
    if when is None:
        return ""
    head = f"{when.strftime('%Y-%m-%dT%H:%M:%S.%f')} "
    if isinstance(host, str) and host and " " not in host:
        prog = program if isinstance(program, str) and program and " " not in program else "log"
        tag = f"[{pid}]" if isinstance(pid, (str, int)) and str(pid).isdigit() else ""
        head += f"{_MONTHS[when.month - 1]} {when.strftime('%d %H:%M:%S')} {host} {prog}{tag}: "
    return head


def _iso(value: Any) -> datetime | None:
    """Docker's RFC 3339 time with nanoseconds (``2024-05-01T10:11:12.123456789Z``), as written (UTC)."""
    m = _RFC3339.match(value) if isinstance(value, str) else None
    if not m:
        return None
    try:
        when = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")
    except ValueError:
        return None
    return when.replace(microsecond=int((m.group(2) or "0")[:6].ljust(6, "0")))


def _epoch_us(value: Any) -> datetime | None:
    """The journal's microseconds since the epoch (a decimal string), as UTC."""
    if not (isinstance(value, str) and value.isdigit()):
        return None
    try:
        return datetime.fromtimestamp(int(value) / 1e6, tz=UTC).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        return None


def _kube_host(rec: dict[str, Any]) -> Any:
    """The node a Kubernetes filter (Fluent Bit, Fluentd, Vector) added to the record, or its ``host`` field."""
    kube = rec.get("kubernetes")
    if isinstance(kube, dict) and isinstance(kube.get("host"), str):
        return kube["host"]
    return rec.get("host")
