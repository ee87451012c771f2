"""Kubernetes kubelet lines about an accelerator's device plugin (the Ascend Device Plugin of MindCluster or HAMi):
admission failing because the plugin lists no healthy device (``Allocate failed due to no healthy devices present;
cannot allocate unhealthy devices huawei.com/Ascend910B4-1``: kubelet's device manager, pkg/kubelet/cm/devicemanager
manager.go, wrapped by the UnexpectedAdmissionError event) and the plugin's ListAndWatch stream ending (``"ListAndWatch
ended unexpectedly for device plugin" err="EOF" resource="huawei.com/Ascend910B4-1"``: plugin/v1beta1/client.go, the
plugin process exited or restarted). Neither says why: an NPU fault, a driver not ready, or the plugin's own state
(HAMi ascend-device-plugin#129, HAMi#2712: a stale health cache) -- the classes list them as ambiguous."""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened

RE_NO_HEALTHY = screened(r"no healthy devices present|cannot allocate unhealthy devices", re.I)
RE_STREAM_ENDED = screened(r"ListAndWatch ended unexpectedly for device plugin", re.I)

_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):
        return False
    kind = ("kube:no_healthy_devices" if RE_NO_HEALTHY.search(ctx.text)
            else "kube:plugin_stream_ended" if RE_STREAM_ENDED.search(ctx.text) else None)
    if kind is None:
        return False
    ctx.add(kind, ctx.node, max(ctx.sev, 1))
    return True
