"""Kubernetes lines about an accelerator's device plugin (the Ascend Device Plugin of MindCluster or HAMi) and the
NPU scheduler's filters.

kubelet: admission failing because the plugin lists no healthy device (``Allocate failed due to no healthy devices
present; cannot allocate unhealthy devices huawei.com/Ascend910B4-1``: kubelet's device manager, pkg/kubelet/cm/
devicemanager manager.go, wrapped by the UnexpectedAdmissionError event) and the plugin's ListAndWatch stream ending
(``"ListAndWatch ended unexpectedly for device plugin" err="EOF" resource="huawei.com/Ascend910B4-1"``:
plugin/v1beta1/client.go, the plugin process exited or restarted). Neither says why: an NPU fault, a driver not
ready, or the plugin's own state (HAMi ascend-device-plugin#129, HAMi#2712: a stale health cache) -- the classes list
them as ambiguous.

The scheduler's filter, when it names a spec no node fits: MindX DL's Volcano plugin (ascend-volcano-plugin,
``nodeNoFitSelectorError``) writes ``no matching label on this node key[host-arch] : task(huawei-x86)
node(huawei-arm) ...`` for a task whose selector labels the node lacks (the MindX DL guide's vcjob status example:
the job fails on it, https://www.hiascend.com/doc_center/source/zh/mindx-dl/30rc3/dluserguide/dlug/dlug_000176.html);
HAMi files a node that cannot run the vNPU mode the pod asks for under ``ModeNotFit`` (Project-HAMi/HAMi
pkg/device/ascend/device.go ``Fit``: hami-core requested where it is not enabled; HAMi#1941, HAMi#1945). Both read
``kube:label_mismatch`` / ``kube:vnpu_mode_mismatch``: config_error's secondary evidence (in a mixed cluster other
nodes may fail for capacity)."""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened

RE_NO_HEALTHY = screened(r"no healthy devices present|cannot allocate unhealthy devices", re.I)
RE_STREAM_ENDED = screened(r"ListAndWatch ended unexpectedly for device plugin", re.I)
RE_LABEL_MISMATCH = screened(r"no matching label on this node")
RE_MODE_NOT_FIT = screened(r"\bModeNotFit\b")

_ANY = group_of(globals())

_KINDS = ((RE_NO_HEALTHY, "kube:no_healthy_devices"), (RE_STREAM_ENDED, "kube:plugin_stream_ended"),
          (RE_LABEL_MISMATCH, "kube:label_mismatch"), (RE_MODE_NOT_FIT, "kube:vnpu_mode_mismatch"))


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):
        return False
    kind = next((k for rx, k in _KINDS if rx.search(ctx.text)), None)
    if kind is None:
        return False
    ctx.add(kind, ctx.node, max(ctx.sev, 1))
    return True
