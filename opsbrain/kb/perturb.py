"""Wrappers a log excerpt gets when an operator pastes it: into a bug report, a chat, a terminal, or through the
tool that collected it. Each keeps every line of the excerpt (the program's text) and adds or changes only what
lies around it, so the diagnosis of a wrapped excerpt must be the excerpt's own.

Where each was seen (public pastes; ``tests/data/real_logs`` ids where the corpus holds one):

- ``quote``: GitHub's quote reply, ``> `` per line (vllm-ascend#19, a comment quoting ``> > RuntimeError: NPU out of
  memory ...``);
- ``fence``: a Markdown code fence, `````text`` ... ````` (the vllm-ascend bug template; vllm-ascend#302, #5680);
- ``indent``: a common leading indent of four spaces (a Markdown indented code block; a log pasted under a list
  item; journalctl output pasted with a leading space in NVIDIA/k8s-device-plugin#55);
- ``crlf``: CRLF line ends (issue bodies as GitHub's API returns them; files saved on Windows);
- ``ansi``: colour codes of a terminal capture (:func:`opsbrain.ingest.variants.ansi`);
- ``rank``: PyTorch's ``[rankN]: `` prefix of a worker's stderr (vllm-ascend#486, #3162; corpus a018, d009);
- ``vllm``: vLLM's worker-process prefix and logger head, ``(Worker_DP0_TP5_EP5 pid=818) ERROR 08-13 15:31:21
  [multiproc_executor.py:945] `` (vllm-ascend#14214, #6636; corpus f030, a041);
- ``kubectl-ts``: ``kubectl logs --timestamps`` (an RFC 3339 time with nanoseconds and a space before each line;
  Kubernetes' kubectl logs reference);
- ``compose``: ``docker compose logs``' service column, ``vllm-ascend-1  | `` (Docker's compose logs reference);
- ``syslog``: rsyslog's /var/log/messages head, ``Dec  2 10:00:00 host kernel: `` (ascend-fd's messages fixtures);
- ``journalctl``: journalctl's short format, ``Mar 19 14:31:09 dell-63 kubelet[1067]: `` (volcano-sh/devices#59);
- ``journalctl-zh``: the same under a Chinese locale, ``8月 18 16:33:56 kylin10-6018 kubelet[176281]: ``
  (Project-HAMi/HAMi#2712; corpus b021);
- ``docker-json``: Docker's json-file driver, each line a record ``{"log":"<line>\\n","stream":"stderr",
  "time":"<RFC 3339 nano>"}`` (the file under /var/lib/docker/containers that node collections copy; Docker's JSON
  File logging driver reference);
- ``journal-json``: ``journalctl -o json``, each line a record with ``MESSAGE``, ``_HOSTNAME``,
  ``SYSLOG_IDENTIFIER``, ``_PID`` and ``__REALTIME_TIMESTAMP`` (systemd.journal-fields(7));
- ``loki-jsonl``: Grafana Loki's ``logcli query --output=jsonl``, each line a record ``{"labels":{...},"line":...,
  "timestamp":...}`` (grafana/loki ``pkg/logcli/output/jsonl.go``; Go's encoding/json sorts a map's keys);
- ``logcli``: logcli's default output, ``<RFC 3339> {host="...", job="..."} <line>``, labels padded to one width
  (``pkg/logcli/output/default.go``; the Loki docs' logcli examples);
- ``ray``: Ray's worker prefix with its address and its log deduplication's suffix, ``(RayWorkerWrapper pid=45464,
  ip=10.0.0.2) ... [repeated 6x across cluster]`` (vllm-ascend#1127; flash-linear-attention-npu#272, corpus k013);
- ``wrap80``: lines cut at 80 columns by a terminal (a copy of wrapped screen rows: every full row is 80
  characters);
- ``trailing``: trailing white space (a console copy padding rows with spaces; Markdown's two-space line break);
- ``tabs``: runs of spaces written as tabs (``unexpand``; editors and terminals that keep tabs; corpus g029, k005
  hold tabs);
- ``bom``: a UTF-8 byte-order mark before the first line (Windows Notepad's UTF-8);
- ``fullwidth``: ``：`` (U+FF1A) for ``: `` (text written with a Chinese input method; corpus a001's
  ``【BUG】：RuntimeError: ...``);
- ``dup``: every line twice (two logging handlers on one logger; stdout and a ``tee``'d file pasted together);
- ``info``: unrelated INFO lines before and after (vLLM's start-up lines around the failure, vllm-ascend#302).

A wrapper that does not apply (the excerpt already carries it, or has nothing it would change) returns None.
Deterministic given the random generator."""

from __future__ import annotations

import io
import json
import random
import re
from collections.abc import Callable
from typing import Any

from opsbrain.ingest.variants import _base, _join, _lines, _stamp, ansi, crlf

Wrapper = Callable[[str, random.Random], "str | None"]

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _each(text: str, head: Callable[[int, str], str]) -> str:
    """Every line with ``head(k, line)`` put before it."""
    return _join([head(k, ln) + ln for k, ln in enumerate(_lines(text))])


def _unless(text: str, pattern: str) -> bool:
    """True when no line of ``text`` starts with ``pattern`` already (a wrapper is not stacked on its own kind)."""
    return re.search("(?m)^" + pattern, text) is None


def quote(text: str, rng: random.Random) -> str | None:
    return _each(text, lambda k, ln: "> " if ln else ">") if _unless(text, ">") else None


def fence(text: str, rng: random.Random) -> str | None:
    return "```text\n" + _join(_lines(text)) + "```\n" if "```" not in text else None


def indent(text: str, rng: random.Random) -> str:
    return _each(text, lambda k, ln: "    " if ln else "")


def rank(text: str, rng: random.Random) -> str | None:
    n = rng.randint(0, 15)
    return _each(text, lambda k, ln: f"[rank{n}]: ") if _unless(text, r"\[rank\d+\]:") else None


def vllm(text: str, rng: random.Random) -> str | None:
    """vLLM v1's worker prefix and its logger's head (level, ``%m-%d %H:%M:%S``, ``[file:line]``), as a worker's
    exception is logged: the same head on every line of it."""
    if not _unless(text, r"\(\w+ pid=\d+\)"):
        return None
    dp, tp, pid, line = rng.randint(0, 3), rng.randint(0, 7), rng.randint(100, 99999), rng.randint(100, 999)
    t = _stamp("iso", _base(text), 0)
    head = f"(Worker_DP{dp}_TP{tp} pid={pid}) ERROR {t[5:7]}-{t[8:10]} {t[11:19]} [multiproc_executor.py:{line}] "
    return _each(text, lambda k, ln: head)


def kubectl_ts(text: str, rng: random.Random) -> str | None:
    """``kubectl logs --timestamps``: RFC 3339 with nanoseconds, ``Z``, a space."""
    if not _unless(text, r"\d{4}-\d\d-\d\dT"):
        return None
    base = _base(text)
    return _each(text, lambda k, ln: _stamp("iso", base, k)[:-1] + f"{rng.randint(0, 999):03d}Z ")


def compose(text: str, rng: random.Random) -> str:
    """``docker compose logs``: the container's name, padded, then ``| ``."""
    name = rng.choice(("vllm-ascend-1", "mindie-server-1", "train-worker-2"))
    return _each(text, lambda k, ln: f"{name:<16} | ")


def _syslog_time(base: float, k: int, pad: str) -> str:
    s = _stamp("syslog", base, k * 1000)  # "Dec  2 10:00:00"
    mon, day, clock = s[:3], s[4:6].strip(), s[7:]
    return f"{mon} {day:{pad}>2} {clock}"


def syslog(text: str, rng: random.Random) -> str | None:
    if not _unless(text, "(?:" + "|".join(_MONTHS) + r") [ \d]\d \d\d:"):
        return None
    host, base = f"node-{rng.randint(1, 64):02d}", _base(text)
    return _each(text, lambda k, ln: f"{_syslog_time(base, k, ' ')} {host} kernel: ")


def journalctl(text: str, rng: random.Random) -> str | None:
    if not _unless(text, "(?:" + "|".join(_MONTHS) + r") [ \d]\d \d\d:"):
        return None
    host, pid, base = f"worker-{rng.randint(1, 64)}", rng.randint(1000, 99999), _base(text)
    unit = rng.choice(("python3", "kubelet", "vllm"))
    return _each(text, lambda k, ln: f"{_syslog_time(base, k, '0')} {host} {unit}[{pid}]: ")


def journalctl_zh(text: str, rng: random.Random) -> str | None:
    if not _unless(text, r"(?:1[0-2]|[1-9])月 "):
        return None
    host, pid, base = f"kylin10-{rng.randint(1000, 9999)}", rng.randint(1000, 99999), _base(text)
    def head(k: int, ln: str) -> str:
        t = _syslog_time(base, k, "0")  # journalctl's %b %d: "8月 09"
        return f"{_MONTHS.index(t[:3]) + 1}月 {t[4:]} {host} kubelet[{pid}]: "
    return _each(text, head)


def _go_json(record: dict[str, Any]) -> str:
    """A record as Go's encoding/json writes it (Docker's json-file driver): compact, UTF-8 kept, and ``<``, ``>``,
    ``&`` escaped as ``\\u003c``, ``\\u003e``, ``\\u0026``."""
    out = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return out.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def docker_json(text: str, rng: random.Random) -> str | None:
    """Docker's json-file log: each line a record with its stream and RFC 3339 nano time."""
    if not _unless(text, r'\{"'):
        return None
    base, stream = _base(text), rng.choice(("stdout", "stderr"))
    return _join([_go_json({"log": ln + "\n", "stream": stream,
                            "time": _stamp("iso", base, k)[:-1] + f"{rng.randint(0, 999):03d}Z"})
                  for k, ln in enumerate(_lines(text))])


def journal_json(text: str, rng: random.Random) -> str | None:
    """``journalctl -o json``: each line a record with the journal's time (microseconds), host, program and pid."""
    if not _unless(text, r'\{"'):
        return None
    host, pid, base = f"worker-{rng.randint(1, 64)}", rng.randint(1000, 99999), _base(text)
    prog = rng.choice(("python3", "vllm", "mindie_llm_back"))
    return _join([json.dumps({"__REALTIME_TIMESTAMP": str(int((base + k / 1000) * 1e6)), "PRIORITY": "6",
                              "_PID": str(pid), "SYSLOG_IDENTIFIER": prog, "_HOSTNAME": host, "MESSAGE": ln},
                             ensure_ascii=False) for k, ln in enumerate(_lines(text))])


def _loki_stream(rng: random.Random) -> dict[str, str]:
    return {"host": f"worker-{rng.randint(1, 64)}", "job": rng.choice(("train", "vllm", "mindie"))}


def loki_jsonl(text: str, rng: random.Random) -> str | None:
    """``logcli query --output=jsonl``: each line a record with the stream's labels and its RFC 3339 nano time."""
    if not _unless(text, r'\{"'):
        return None
    labels, base = _loki_stream(rng), _base(text)
    return _join([_go_json({"labels": labels, "line": ln,
                            "timestamp": _stamp("iso", base, k)[:-1] + f"{rng.randint(0, 999):03d}+08:00"})
                  for k, ln in enumerate(_lines(text))])


def logcli(text: str, rng: random.Random) -> str | None:
    """logcli's default output: RFC 3339 time (seconds), the stream's label set, then the line (trimmed)."""
    if not _unless(text, r"\d{4}-\d\d-\d\dT"):
        return None
    labels, base = _loki_stream(rng), _base(text)
    shown = "{" + ", ".join(f'{k}="{v}"' for k, v in sorted(labels.items())) + "}"
    return _join([f"{_stamp('iso', base, k)[:19]}+08:00 {shown}  {ln.strip()}" for k, ln in enumerate(_lines(text))])


def ray(text: str, rng: random.Random) -> str | None:
    """Ray's prefix on every line, and on some its deduplication's suffix (the line as other workers logged it)."""
    if not _unless(text, r"\([\w.-]* ?pid=\d"):
        return None
    head = f"(RayWorkerWrapper pid={rng.randint(100, 99999)}, ip=10.0.{rng.randint(0, 255)}.{rng.randint(2, 250)}) "
    return _join([head + ln + (f" [repeated {rng.randint(2, 15)}x across cluster]" if ln and rng.random() < 0.5
                               else "") for ln in _lines(text)])


WRAP = 80


def wrap80(text: str, rng: random.Random) -> str | None:
    """Rows of a terminal 80 columns wide, copied: a longer line becomes rows of 80 characters and its rest."""
    out = [ln[i:i + WRAP] for ln in _lines(text) for i in range(0, max(len(ln), 1), WRAP)]
    return _join(out) if len(out) > len(_lines(text)) else None


def trailing(text: str, rng: random.Random) -> str:
    return _each(text, lambda k, ln: "").replace("\n", " " * rng.randint(1, 3) + "\n")


def tabs(text: str, rng: random.Random) -> str | None:
    """Runs of two or more spaces written as one tab (a leading indent: one tab per four spaces)."""
    def line(ln: str) -> str:
        body = ln.lstrip(" ")
        lead = len(ln) - len(body)
        return "\t" * (lead // 4) + " " * (lead % 4) + re.sub(r" {2,}", "\t", body)
    out = _join([line(ln) for ln in _lines(text)])
    return out if out != _join(_lines(text)) else None


def bom(text: str, rng: random.Random) -> str:
    return "\ufeff" + text


def fullwidth(text: str, rng: random.Random) -> str | None:
    out = re.sub(r"(?<=\S): ", "：", text)
    return out if out != text else None


def dup(text: str, rng: random.Random) -> str:
    return _join([x for ln in _lines(text) for x in (ln, ln)])


_INFO = ("INFO 03-11 14:47:36 __init__.py:28] Available plugins for group vllm.platform_plugins:",
         "INFO 03-11 14:47:36 __init__.py:30] name=ascend, value=vllm_ascend:register",
         "INFO 03-11 14:47:36 __init__.py:42] plugin ascend loaded.",
         "INFO 03-11 14:47:41 config.py:549] This model supports multiple tasks: {'generate', 'embed'}.",
         "INFO 03-11 14:47:52 model_runner.py:1110] Starting to load model /models/Qwen2.5-7B-Instruct...",
         "INFO 03-11 14:48:03 executor_base.py:111] # npu blocks: 8024, # CPU blocks: 585")


def info(text: str, rng: random.Random) -> str:
    """A few unrelated INFO lines of a vLLM start-up before the excerpt, and after it."""
    before = [rng.choice(_INFO) for _ in range(rng.randint(2, 5))]
    after = [rng.choice(_INFO) for _ in range(rng.randint(1, 3))]
    return _join(before + _lines(text) + after)


WRAPPERS: dict[str, Wrapper] = {
    "quote": quote, "fence": fence, "indent": indent, "crlf": crlf, "ansi": ansi, "rank": rank, "vllm": vllm,
    "kubectl-ts": kubectl_ts, "compose": compose, "syslog": syslog, "journalctl": journalctl,
    "journalctl-zh": journalctl_zh, "docker-json": docker_json, "journal-json": journal_json,
    "loki-jsonl": loki_jsonl, "logcli": logcli,
    "ray": ray, "wrap80": wrap80,
    "trailing": trailing, "tabs": tabs, "bom": bom, "fullwidth": fullwidth, "dup": dup, "info": info,
}
"""Every wrapper by name, in the order of the module's list."""


def wrapped(text: str, key: str) -> dict[str, str]:
    """``text`` under every wrapper that applies to it, seeded by ``key`` (an excerpt id): name -> text."""
    out: dict[str, str] = {}
    for name, fn in WRAPPERS.items():
        new = fn(text, random.Random(f"{key}:{name}"))
        if new is not None:
            out[name] = new
    return out


def answer(text: str, engine: Any, matcher: Any) -> tuple[str, int | None]:
    """The class (``unknown``: an abstention) and root device ``diagnose --logs -`` gives ``text``."""
    from opsbrain.diagnosis.oneclick import diagnose_logs

    d = diagnose_logs("-", engine, matcher, stdin=io.BytesIO(text.encode("utf-8")))["diagnosis"]
    return d["fault_class"], (d.get("root") or {}).get("device")


def disagreements(excerpts: list[dict[str, Any]], engine: Any, matcher: Any,
                  names: tuple[str, ...] | None = None) -> dict[str, Any]:
    """Every excerpt (``id``, ``text``) under every wrapper (``names``: these only) against its unwrapped answer:
    per wrapper, the pairs, those whose class changed, whose abstention changed (one side ``unknown``) and whose
    root device changed; and the changed pairs themselves."""
    per: dict[str, dict[str, int]] = {n: {"pairs": 0, "class": 0, "abstention": 0, "device": 0}
                                      for n in (names or tuple(WRAPPERS))}
    changed: list[dict[str, Any]] = []
    for e in excerpts:
        text = str(e["text"])
        cls, dev = answer(text, engine, matcher)
        for name, new in wrapped(text, str(e["id"])).items():
            if name not in per:
                continue
            got, got_dev = answer(new, engine, matcher)
            row = per[name]
            row["pairs"] += 1
            row["class"] += got != cls
            row["abstention"] += (got == "unknown") != (cls == "unknown")
            row["device"] += got_dev != dev
            if got != cls or got_dev != dev:
                changed.append({"id": e["id"], "wrapper": name, "was": [cls, dev], "now": [got, got_dev]})
    return {"excerpts": len(excerpts), "per_wrapper": per, "changed": changed}
