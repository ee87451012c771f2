"""Surface variants of a log excerpt: the same lines as another real collection would write them.

Used by the robustness test (tests/test_ingest_robust.py) and benchmarks/bench_robust.py to check that reading does
not depend on the surface form of our corpus: host naming, device-field spellings, time-stamp layouts, container
prefixes (``kubectl logs --prefix``, the CRI log format), CRLF, ANSI colours, unrelated INFO lines, lines of several
hosts reordered, and cuts that keep the key lines. Each variant keeps the meaning of the excerpt (the fault, its
device); one that does not apply to an excerpt (no host to rename, say) returns None. Deterministic given ``seed``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from datetime import datetime

from opsbrain.ingest.timestamps import parse_time
from opsbrain.ingest.where import host_in

HOST_FORMS = ("hostname", "ip", "worker", "none")
DEVICE_FORMS = ("device {n}", "dev{n}", "device[{n}]", "npu{n}", "chip {n}", "device_id={n}", "logicDevId[{n}]",
                "devicePhyId[{n}]")
"""A bare ``[3]`` is not among them: without a field name it does not say that 3 is a device."""
TIME_FORMS = ("plog", "syslog", "iso", "none")

# device fields a collection spells freely (fixed vendor message texts are left alone)
_DEV_FIELD = re.compile(r"\b(?:device_id|deviceId|dev_id|devId|logicDevId|phyDevId)\s*(?:=|:|\[)\s*(\d+)\]?"
                        r"|\[dev(\d+)\]")
_LEAD_TS = re.compile(r"^(?:\[\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d(?:\.\d{1,6})*\]"          # plog, bracketed
                      r"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?Z?"           # ISO
                      r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d+ \d\d:\d\d:\d\d) ")  # syslog
"""A time stamp a collector put at the head of a line (a program's own header, plog's ``[ERROR] HCCL(pid,):<time>``,
is part of its format and is never rewritten)."""
_INFO = ("[INFO] RUNTIME(12345,python3):{ts} [runtime.cc:1120]12345 Init: device init success",
         "[INFO] GE(12345,python3):{ts} [graph_manager.cc:201]12345 Build: graph build done",
         "[INFO] HCCL(12345,python3):{ts} [hccl_comm.cc:88][12345]HcclCommInitRootInfo: rankNum[8]",
         "INFO 05-01 10:11:12 model_runner.py:1025] Loading model weights took 15.3 GB",
         "Epoch 3/10: step 1200, lr 2.0e-05, throughput 312 samples/s")
_INFO_AFTER = _INFO[1:4]
"""The lines written after an excerpt: none that says the run went on (a step, a success), which would make the
excerpt's failure one the program survived (:mod:`opsbrain.diagnosis.wenton`, session 53), not unrelated noise."""


def _lines(text: str) -> list[str]:
    return text.rstrip("\n").split("\n")


def _join(lines: list[str], nl: str = "\n") -> str:
    return nl.join(lines) + nl


def _hosts(lines: list[str]) -> list[str]:
    return list(dict.fromkeys(h for ln in lines if (h := host_in(ln)) and not h[0].isdigit()
                              and len(h) > 2))


def host_variant(text: str, form: str, rng: random.Random) -> str | None:
    """Every host the excerpt names spelt as ``form`` (``none``: dropped)."""
    lines = _lines(text)
    hosts = _hosts(lines)
    if not hosts:  # a fan-out tool's output (pdsh, ansible -m shell): "host: line"
        if form == "none":
            return None
        h = {"hostname": f"gpu-srv{rng.randint(10, 99)}.dc1.example.com",
             "ip": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(2, 250)}",
             "worker": f"worker-{rng.randint(0, 15)}"}[form]
        return _join([f"{h}: {ln}" for ln in lines])
    out = text
    for i, h in enumerate(hosts):
        new = {"hostname": f"gpu-srv{rng.randint(10, 99)}{chr(97 + i)}.dc1.example.com",
               "ip": f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{i + 11}",
               "worker": f"worker-{i + rng.randint(0, 7)}", "none": ""}[form]
        out = re.sub(r"(?<![\w.-])" + re.escape(h) + r"(?![\w-])", new, out)
    out = re.sub(r"(?m)  +", " ", out) if form == "none" else out
    return out if out != text else None


def device_variant(text: str, form: str, rng: random.Random) -> str | None:
    """Device fields (``device_id=3``, ``[dev3]``...) spelt as ``form``; fixed message texts are not touched."""
    def sub(m: re.Match[str]) -> str:
        return form.format(n=m.group(1) or m.group(2))
    out = _DEV_FIELD.sub(sub, text)
    return out if out != text else None


_BASE = datetime(2024, 5, 1, 10, 11, 12).timestamp()


def _base(text: str) -> float:
    """The excerpt's first time stamp (added stamps agree with the excerpt's own), else a fixed day."""
    return next((t for ln in _lines(text) if (t := parse_time(ln)) is not None), _BASE)


def _stamp(form: str, base: float, k: int) -> str:
    """The time ``base`` + ``k`` ms in layout ``form``."""
    t = datetime.fromtimestamp(base + k / 1000)
    us = t.microsecond
    return {"plog": t.strftime("%Y-%m-%d-%H:%M:%S") + f".{us // 1000:03d}.{us % 1000:03d}",
            "syslog": f"{t:%b} {t.day:>2} {t:%H:%M:%S}", "iso": t.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z",
            "none": ""}[form]


def time_variant(text: str, form: str, rng: random.Random) -> str | None:
    """The collector's time stamp at the head of each line in the layout ``form``: replaced where the excerpt has
    one, added where it has none (``none``: removed, and nothing added)."""
    out, base = [], _base(text)
    for k, ln in enumerate(_lines(text)):
        st = _stamp(form, base, k)
        st = f"[{st}]" if form == "plog" else st
        m = _LEAD_TS.match(ln)
        if m:
            out.append((st + " " if st else "") + ln[m.end():])
        else:
            out.append(st + " " + ln if st else ln)
    new = _join(out)
    return new if new != _join(_lines(text)) else None


def kubectl_prefix(text: str, rng: random.Random) -> str:
    pod = f"pod/train-job-{rng.randint(100, 999)}-worker-{rng.randint(0, 7)}/main"
    return _join([f"[{pod}] {ln}" for ln in _lines(text)])


def cri_prefix(text: str, rng: random.Random) -> str:
    base = _base(text)
    return _join([f"{_stamp('iso', base, i)[:-1]}{rng.randint(0, 999):03d}Z stdout F {ln}"
                  for i, ln in enumerate(_lines(text))])


def crlf(text: str, rng: random.Random) -> str:
    return _join(_lines(text), "\r\n")


_LEVEL = re.compile(r"\[(ERROR|WARNING|WARN|INFO|EVENT|DEBUG)\]|\b(ERROR|WARNING|CRITICAL)\b")


def ansi(text: str, rng: random.Random) -> str:
    """Colour codes as a terminal capture has them: level words coloured, some whole lines bold."""
    def col(m: re.Match[str]) -> str:
        return f"\x1b[31m{m.group(0)}\x1b[0m"
    return _join([(("\x1b[1m" + _LEVEL.sub(col, ln) + "\x1b[0m") if rng.random() < 0.3 else _LEVEL.sub(col, ln))
                  for ln in _lines(text)])


def _continues(line: str) -> bool:
    """A line that continues the record before it (indented, a traceback's body): nothing is written between."""
    return line[:1] in (" ", "\t") or line.startswith(("Traceback", "During handling", "The above exception"))


def noise(text: str, rng: random.Random) -> str:
    """Unrelated INFO lines before, among and after the excerpt's lines (after it, none that says the run went on:
    :data:`_INFO_AFTER`)."""
    lines, base = _lines(text), _base(text)
    out: list[str] = []
    for ln in lines:
        if rng.random() < 0.5 and not _continues(ln):
            out.append(rng.choice(_INFO).format(ts=_stamp("plog", base, len(out))))
        out.append(ln)
    head = [rng.choice(_INFO).format(ts=_stamp("plog", base, -10 + i)) for i in range(rng.randint(1, 5))]
    tail = [rng.choice(_INFO_AFTER).format(ts=_stamp("plog", base, len(out) + i)) for i in range(rng.randint(1, 5))]
    return _join(head + out + tail)


def reorder_hosts(text: str, rng: random.Random) -> str | None:
    """The lines of each host kept in order, the hosts' blocks interleaved differently (as merged collections)."""
    lines = _lines(text)
    if len(_hosts(lines)) < 2:
        return None
    groups: dict[str, list[str]] = {}
    cur = ""
    for ln in lines:
        cur = host_in(ln) or cur
        groups.setdefault(cur, []).append(ln)
    keys = list(groups)
    rng.shuffle(keys)
    out = _join([ln for k in keys for ln in groups[k]])
    return out if out != _join(lines) else None


def cut(text: str, keep: set[int], head: bool) -> str | None:
    """The first lines up to the last key line (``head``), or the last ones from the first key line (1-based)."""
    lines = _lines(text)
    if not keep:
        return None
    out = lines[: max(keep)] if head else lines[min(keep) - 1:]
    return _join(out) if len(out) < len(lines) else None


Variant = Callable[[str, random.Random], "str | None"]


def _bind(fn: Callable[[str, str, random.Random], str | None], form: str) -> Variant:
    return lambda text, rng: fn(text, form, rng)


KINDS: dict[str, Variant] = {
    **{f"host:{f}": _bind(host_variant, f) for f in HOST_FORMS},
    **{f"device:{f.format(n='N')}": _bind(device_variant, f) for f in DEVICE_FORMS},
    **{f"time:{f}": _bind(time_variant, f) for f in TIME_FORMS},
    "prefix:kubectl": kubectl_prefix, "prefix:cri": cri_prefix, "crlf": crlf, "ansi": ansi, "noise": noise,
    "reorder:hosts": reorder_hosts,
}
"""Every variant kind by name; the cuts (which need the key lines) are :func:`cut`."""
