"""Findings as Alertmanager webhook notifications (``--webhook-format alertmanager``).

The body is what Alertmanager's ``webhook_config`` receiver POSTs (payload ``version`` "4": ``receiver``,
``status``, ``alerts`` with ``labels``/``annotations``/``startsAt``/``endsAt``/``fingerprint``, ``groupLabels``,
``commonLabels``, ``commonAnnotations``, ``externalURL``, ``groupKey``, ``truncatedAlerts``), so a receiver written
for Alertmanager (a chat bridge, a ticketing hook) takes opsbrain's findings unchanged. One notification carries one
alert, grouped by ``alertname``; a firing alert's ``endsAt`` is Alertmanager's zero time.

Two alerts: ``OpsbrainIncident`` (a diagnosed incident of ``watch``: class, component, confidence, evidence,
advised runbook) and ``OpsbrainSweepFinding`` (a health-sweep finding at Alarm or worse). The ``severity`` label
uses Alertmanager's usual words: for an incident, its class's handling level (:mod:`opsbrain.severity`); for a
finding, Alarm and Critical are ``critical``, Warning ``warning``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import queue
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from opsbrain.errors import InputError

log = logging.getLogger(__name__)

FORMATS = ("opsbrain", "alertmanager")
PAYLOAD_VERSION = "4"  # Alertmanager's webhook payload version
ZERO_TIME = "0001-01-01T00:00:00Z"  # Alertmanager's endsAt of a firing alert
RECEIVER = "opsbrain"
POST_TIMEOUT_S = 5.0  # reason: a webhook that takes longer must not hold up the next poll for long
QUEUE_MAX = 1000  # reason: notifications waiting for a slow or unreachable receiver; past it they are dropped and
# said, so that days of an unreachable receiver cannot grow the service's memory (a sweep raises tens at most)
SWEEP_SEVERITY = {"Critical": "critical", "Alarm": "critical", "Warning": "warning", "OK": "info"}


def _fingerprint(labels: Mapping[str, str]) -> str:
    """A stable 16-hex id of a label set (Alertmanager uses a hash of the labels the same way)."""
    return hashlib.sha256(json.dumps(dict(sorted(labels.items()))).encode()).hexdigest()[:16]


def _rfc3339(now: datetime | None) -> str:
    return (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def incident_alert(d: Mapping[str, Any], now: datetime | None = None) -> dict[str, Any]:
    """The alert of one ``watch`` incident report."""
    from opsbrain.severity import severity

    root = d.get("root") or {}
    conf = float(d.get("confidence") or 0.0)
    labels = {"alertname": "OpsbrainIncident", "fault_class": str(d.get("fault_class")),
              "component": str(d.get("component")), "node": str(d.get("node")),
              "severity": severity(d.get("fault_class"))}
    if root.get("host") is not None:
        labels["host"] = str(root["host"])
    adv = d.get("advice") or {}
    lines = [f"{e.get('file')}:{e.get('line')}: {str(e.get('text'))[:200]}" for e in d.get("evidence_lines") or []]
    ann = {"summary": f"{d.get('fault_class')} at {d.get('component')} (confidence {conf:.2f})",
           "description": "; ".join(str(e) for e in d.get("evidence") or []),
           "evidence_lines": "\n".join(lines), "runbook": str(adv.get("runbook") or ""),
           "advice": str(adv.get("title") or ""), "incident": str(d.get("incident")),
           "update": "true" if d.get("update") else "false"}
    return _alert(labels, ann, now)


def finding_alert(d: Mapping[str, Any], now: datetime | None = None) -> dict[str, Any]:
    """The alert of one sweep finding report (``{"finding": {...}, "source": ...}``)."""
    f = d["finding"]
    labels = {"alertname": "OpsbrainSweepFinding", "check": str(f.get("check")), "component": str(f.get("component")),
              "severity": SWEEP_SEVERITY.get(str(f.get("severity")), "warning"),
              "sweep_severity": str(f.get("severity")), "source": str(d.get("source"))}
    ann = {"summary": f"{f.get('severity')} {f.get('check')} at {f.get('component')}",
           "description": str(f.get("evidence") or ""), "advice": str(f.get("suggested_action") or "")}
    return _alert(labels, ann, now)


def _alert(labels: dict[str, str], ann: dict[str, str], now: datetime | None) -> dict[str, Any]:
    return {"status": "firing", "labels": labels, "annotations": {k: v for k, v in ann.items() if v != ""},
            "startsAt": _rfc3339(now), "endsAt": ZERO_TIME, "generatorURL": "", "fingerprint": _fingerprint(labels)}


def notification(alert: dict[str, Any], external_url: str = "") -> dict[str, Any]:
    """Alertmanager's webhook body around one alert, grouped by ``alertname``."""
    group = {"alertname": alert["labels"]["alertname"]}
    return {"version": PAYLOAD_VERSION, "groupKey": '{}:{alertname="' + group["alertname"] + '"}',
            "truncatedAlerts": 0, "status": alert["status"], "receiver": RECEIVER, "groupLabels": group,
            "commonLabels": dict(alert["labels"]), "commonAnnotations": dict(alert["annotations"]),
            "externalURL": external_url, "alerts": [alert]}


def body_for(report: Mapping[str, Any], fmt: str) -> dict[str, Any]:
    """What to POST for one report: the report itself (``opsbrain``) or its Alertmanager notification."""
    if fmt == "opsbrain":
        return dict(report)
    if fmt != "alertmanager":
        raise InputError(f"unknown webhook format {fmt!r} (use one of {', '.join(FORMATS)})", path="--webhook-format")
    return notification(finding_alert(report) if "finding" in report else incident_alert(report))


def check_url(url: str | None, option: str = "--webhook") -> None:
    if url is not None and not url.startswith(("http://", "https://")):
        raise InputError(f"not an http(s) URL: {url!r}", path=option)


def post_json(url: str, body: Mapping[str, Any], timeout_s: float = POST_TIMEOUT_S) -> str | None:
    """POST ``body`` as JSON; None when it went through, else the reason (logged as a warning)."""
    req = urllib.request.Request(url, data=json.dumps(body, default=str).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:  # noqa: S310 (http(s) checked)
            resp.read(1024)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = str(getattr(exc, "reason", exc))
        log.warning("webhook POST failed", extra={"url": url, "reason": reason})
        return reason
    log.debug("webhook POST delivered", extra={"url": url})
    return None


class WebhookSender:
    """POSTs notifications from a daemon thread, in order, so that a slow or unreachable receiver holds up neither
    the caller (a scheduled sweep) nor a stop: :meth:`close` waits for the queue at most its budget, and what is
    left is reported as not sent. ``on_result(key, reason)`` gets each notification's outcome (reason None: it went
    through), from the sender's thread."""

    def __init__(self, url: str, on_result: Callable[[str, str | None], None], max_queue: int = QUEUE_MAX) -> None:
        self.url = url
        self.on_result = on_result
        self._q: queue.Queue[tuple[str, Mapping[str, Any]]] = queue.Queue(maxsize=max_queue)
        self._closing = threading.Event()
        self._current: str | None = None  # the notification being posted
        self._thread = threading.Thread(target=self._run, name="webhook-sender", daemon=True)
        self._thread.start()

    def send(self, key: str, body: Mapping[str, Any]) -> None:
        """Queue one notification; a full queue drops it (said through ``on_result``)."""
        try:
            self._q.put_nowait((key, body))
        except queue.Full:
            self.on_result(key, f"not sent: {self._q.maxsize} notifications already wait for the receiver")

    def _run(self) -> None:
        while not (self._closing.is_set() and self._q.empty()):
            try:
                key, body = self._q.get(timeout=0.1)
            except queue.Empty:
                continue
            self._current = key
            result = post_json(self.url, body)
            self._current = None
            self.on_result(key, result)

    def close(self, wait_s: float, why: str = "the service stopped") -> None:
        """Let queued notifications go out for at most ``wait_s`` seconds, then report the rest as not sent (a POST
        under way is left to its own timeout on the daemon thread); ``why``: what the not-sent reason says."""
        self._closing.set()
        self._thread.join(max(0.0, wait_s))
        left: list[str] = []
        if self._thread.is_alive() and (busy := self._current) is not None:
            self.on_result(busy, f"not confirmed: {why} while the receiver had not answered its POST yet")
        while True:
            try:
                left.append(self._q.get_nowait()[0])
            except queue.Empty:
                break
        for key in left:
            self.on_result(key, f"not sent: {why} (at most {wait_s:.1f} s left for the webhook)")


def deadline_left(deadline: float) -> float:
    """Seconds until the ``time.monotonic()`` deadline (0 when past)."""
    return max(0.0, deadline - time.monotonic())
