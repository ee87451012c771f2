"""The EMS memory pool as a namespaced cache: each tenant's model data (weights, KV blocks) under its namespace.

The pool (CPU DRAM of all nodes pooled over UB, facts.md §2) holds cached model data; with tenants, every key lives
in one namespace and a reader names its own (the vendor's "namespace isolation of each model's cache data",
facts.md §1). :meth:`EmsPool.read` refuses a key of another namespace and every read is logged, so a run can show
which namespaces were read.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class NamespaceError(PermissionError):
    """A read or write named a namespace other than the caller's."""


@dataclass
class EmsPool:
    """Cached objects by (namespace, key); ``reads`` logs (t, namespace, key) of every read."""

    data: dict[tuple[str, str], float] = field(default_factory=dict)  # -> bytes held
    reads: list[tuple[float, str, str]] = field(default_factory=list)

    def put(self, namespace: str, key: str, nbytes: float) -> None:
        self.data[(namespace, key)] = float(nbytes)

    def read(self, t: float, caller: str, namespace: str, key: str) -> float:
        """Bytes of ``key`` in ``namespace`` as read by ``caller`` (its own namespace); a miss returns 0."""
        if caller != namespace:
            raise NamespaceError(f"{caller!r} may not read namespace {namespace!r}")
        self.reads.append((t, namespace, key))
        return self.data.get((namespace, key), 0.0)

    def reads_of(self, namespace: str) -> int:
        return sum(1 for _t, ns, _k in self.reads if ns == namespace)
