"""Component ids are paths (DESIGN.md): ``pod0/node12/npu3/die1``; links are ``A~B`` between port owners."""

from __future__ import annotations

import re


def pod(p: int) -> str:
    return f"pod{p}"


def node(p: int, n: int) -> str:
    return f"pod{p}/node{n}"


def npu(p: int, n: int, k: int) -> str:
    return f"pod{p}/node{n}/npu{k}"


def die(p: int, n: int, k: int, d: int) -> str:
    return f"pod{p}/node{n}/npu{k}/die{d}"


def hbm(p: int, n: int, k: int) -> str:
    return f"pod{p}/node{n}/npu{k}/hbm"


def roce(p: int, n: int, k: int, d: int) -> str:
    """The RoCE port of die ``d`` of NPU ``k`` (one 200 Gb/s port per die)."""
    return f"pod{p}/node{n}/npu{k}/roce{d}"


def cpu(p: int, n: int, c: int) -> str:
    return f"pod{p}/node{n}/cpu{c}"


def l1(p: int, n: int, i: int) -> str:
    return f"pod{p}/node{n}/l1sw{i}"


def l2(p: int, plane: int, k: int) -> str:
    return f"pod{p}/l2plane{plane}/sw{k:02d}"


def qingtian(p: int, n: int) -> str:
    return f"pod{p}/node{n}/qingtian"


def rack(p: int, r: int) -> str:
    return f"pod{p}/rack{r}"


A3_DIES_PER_NPU = 2
"""Dies per Ascend 910C package, each its own logical device on Atlas A3 (docs/parameters.md, "A3 logical device
ids"): MindCluster's scheduler counts ``DieNPUNumber = 2`` devices per A3 NPU and takes a device's NPU as
``index / 2`` (Ascend/mind-cluster @22bb3d98, ascend-for-volcano internal/npu/ascend910/ascend910a3/type.go,
base.go GetNodeCardTopology); its device plugin asks the driver for the logical id of die 0 and die 1 of a card
(ascend-device-plugin pkg/device/ascend910.go ``deviceA3Id0``/``deviceA3Id1``)."""


def logical_device(npu_index: int, die_index: int, dies: int = A3_DIES_PER_NPU) -> int:
    """The A3 logical device id of die ``die_index`` of NPU ``npu_index`` on its node (``npu * dies + die``): the id
    ``npu-smi info -m`` prints as Chip Logic ID and CANN, the device OS, plogs and the device plugin print."""
    return npu_index * dies + die_index


def npu_die(logical: int, dies: int = A3_DIES_PER_NPU) -> tuple[int, int]:
    """Inverse of :func:`logical_device`: (NPU index, die index) of an A3 logical device id."""
    return divmod(logical, dies)


def link(a: str, b: str) -> str:
    return f"{a}~{b}"


def module(owner: str, port: int) -> str:
    """An optical module in port ``port`` of a switch chip (``pod0/node3/l1sw2/osfp07``)."""
    return f"{owner}/osfp{port:02d}"


def link_ends(link_id: str) -> tuple[str, str]:
    a, sep, b = link_id.partition("~")
    if not sep:
        raise ValueError(f"not a link id: {link_id!r}")
    return a, b


_NODE_RE = re.compile(r"^(pod\d+/node\d+)(?:/|$)")
_POD_RE = re.compile(r"^(pod\d+)(?:/|$)")


def node_of(component: str) -> str | None:
    """The node a component lives in (for a link: its first end's node), or None (L2 chips, pods)."""
    m = _NODE_RE.match(component)
    return m.group(1) if m else None


def pod_of(component: str) -> str | None:
    m = _POD_RE.match(component)
    return m.group(1) if m else None


def npu_of(component: str) -> str | None:
    m = re.match(r"^(pod\d+/node\d+/npu\d+)(?:/|$)", component)
    return m.group(1) if m else None


def index(component: str, prefix: str) -> int:
    """The number after ``prefix`` in the last matching path segment (``index('pod0/node12', 'node') == 12``)."""
    for seg in reversed(component.split("~")[0].split("/")):
        if seg.startswith(prefix) and seg[len(prefix):].isdigit():
            return int(seg[len(prefix):])
    raise ValueError(f"{component!r} has no {prefix}<n> segment")
