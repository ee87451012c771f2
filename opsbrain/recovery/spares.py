"""Warm-spare sizing: enough spare nodes per pod to cover the p99 of simultaneous node losses.

ByteRobust sizes warm spares to the p99 of simultaneous failures (facts.md §5). Node losses arrive at
``rate_per_s`` per pod and each keeps its node out for ``repair_s``; the number out at once is Poisson with mean
``rate_per_s * repair_s``; the policy is the smallest k whose Poisson CDF reaches ``quantile``.
"""

from __future__ import annotations

import math

from opsbrain.recovery.params import RecoveryParams


def spares_needed(rate_per_s: float, repair_s: float, quantile: float = 0.99) -> int:
    """Smallest k with P(Poisson(rate * repair) <= k) >= quantile (at least 1 when any loss can happen)."""
    if rate_per_s < 0 or repair_s < 0 or not 0 < quantile < 1:
        raise ValueError("rate_per_s and repair_s must be >= 0 and 0 < quantile < 1")
    mean = rate_per_s * repair_s
    if mean == 0:
        return 0
    k, term = 0, math.exp(-mean)
    cdf = term
    while cdf < quantile:
        k += 1
        term *= mean / k
        cdf += term
    return max(1, k)


def spares_per_pod(node_loss_rate_per_s: float, params: RecoveryParams | None = None) -> int:
    """The warm-spare policy: :func:`spares_needed` at ``recovery.spare_quantile`` with nodes out for
    ``recovery.spare_repair_s``."""
    p = params or RecoveryParams()
    return spares_needed(node_loss_rate_per_s, p.spare_repair_s, p.spare_quantile)
