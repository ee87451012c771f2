"""The wait graph's algorithms for the root-cluster analysis (:mod:`opsbrain.diagnosis.rootcluster`): strongly
connected components (Tarjan, iterative), the shortest wait path into a set (breadth first), the walk along each
process's first wait, a walk around a cycle inside one component. Nodes are process names; ``succ`` maps a process
to the processes it waited for."""

from __future__ import annotations


def sccs(nodes: list[str], succ: dict[str, list[str]]) -> list[list[str]]:
    """Strongly connected components (iterative Tarjan), in the order of ``nodes``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on.add(v)
            nxt = succ.get(v, [])
            if i < len(nxt):
                work.append((v, i + 1))
                w = nxt[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            for w in nxt:
                if w in on:
                    low[v] = min(low[v], low[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


def wait_path(start: str, goal: set[str], succ: dict[str, list[str]]) -> list[str]:
    """The shortest path from ``start`` to any node of ``goal`` (BFS), or [start]."""
    prev: dict[str, str | None] = {start: None}
    queue = [start]
    for v in queue:
        if v in goal:
            path = [v]
            while (u := prev[path[-1]]) is not None:
                path.append(u)
            return path[::-1]
        for w in succ.get(v, []):
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return [start]


def first_waits(start: str, goal: set[str], succ: dict[str, list[str]]) -> list[str]:
    """The walk from ``start`` along each device's first (earliest) wait to ``goal``, as
    ascend-fd draws the chain (``worker-0 device-2 -> worker-1 device-2 -> worker-1 device-0 -> worker-1 device-1``:
    a device's link-table wait before its later p2p wait); [] when the walk does not reach ``goal``."""
    walk, seen = [start], {start}
    while walk[-1] not in goal:
        nxt = succ.get(walk[-1], [])
        if not nxt or nxt[0] in seen:
            return []
        walk.append(nxt[0])
        seen.add(nxt[0])
    return walk


def path_in(v: str, comp: set[str], succ: dict[str, list[str]]) -> list[str]:
    """A walk from ``v`` around its cycle back to ``v``, inside ``comp``: [v, ..., v]."""
    out = [v]
    seen = {v}
    cur = v
    while True:
        nxt = [w for w in succ.get(cur, []) if w in comp]
        if not nxt:
            return out
        w = next((x for x in nxt if x == v), None) or next((x for x in nxt if x not in seen), nxt[0])
        out.append(w)
        if w == v or w in seen:
            return out
        seen.add(w)
        cur = w
