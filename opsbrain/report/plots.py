"""Plots of a run report as inline SVG strings (matplotlib, Agg canvas; networkx for the topology picture).

Every function takes facts from the report model (see :mod:`opsbrain.report.build`) and returns one ``<svg>``
element: no XML prolog, no metadata, text kept as text (searchable, small), ids salted per plot and unreferenced
ids dropped so several plots can live in one HTML page. Output is deterministic for a given input.
"""

from __future__ import annotations

import io
import math
import re
from bisect import bisect_right
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")  # headless: reports are rendered on servers and in CI

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from opsbrain.report.text import rate_unit  # noqa: E402

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

COLORS = {"onset": "#c0392b", "detected": "#e67e22", "diagnosed": "#8e44ad", "recovered": "#27ae60",
          "succeeded": "#2e86c1", "failed": "#c0392b", "skipped": "#aab7b8", "cancelled": "#e59866", "rate": "#1f4e79",
          "tpot": "#7d3c98", "bar": "#7f8c8d", "fault": "#c0392b", "injected": "#e67e22", "isolated": "#7f8c8d",
          "spare": "#27ae60", "part": "#d6eaf8", "edge": "#c8d1d9"}
MILESTONES = ("onset", "detected", "diagnosed", "recovered")
MAX_ROWS = 14  # timeline action rows; reason: a taller picture stops being readable at a glance
RC: dict[RcKeyType, Any] = {
    "font.size": 8, "axes.spines.top": False, "axes.spines.right": False, "svg.fonttype": "none",
    "font.family": "sans-serif", "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"]}
_ID = re.compile(r'\sid="([^"]+)"')


def symlog_seconds(ax: Any) -> None:
    """A time axis linear to 10 s and logarithmic beyond, labelled with plain numbers: the default log labels are
    mathtext ($10^{2}$), which looks for the STIX fonts and, with a font cache that lacks them, prints matplotlib's
    "findfont" warnings on stderr (every report plot with a symlog axis goes through here)."""
    ax.set_xscale("symlog", linthresh=10.0)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))


def to_svg(fig: Figure, salt: str) -> str:
    """One figure as a clean inline ``<svg>`` element (see the module docstring)."""
    FigureCanvasAgg(fig)
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight", pad_inches=0.05)
    s = buf.getvalue()
    s = s[s.index("<svg"):]
    s = re.sub(r"<metadata>.*?</metadata>\s*", "", s, flags=re.S)
    used = set(re.findall(r"#([A-Za-z_][\w.-]*)", s))
    s = _ID.sub(lambda m: m.group(0) if m.group(1) in used else "", s)
    return s.strip()


def _figure(w: float, h: float) -> Figure:
    with matplotlib.rc_context(RC):
        return Figure(figsize=(w, h), dpi=100)


def short(component: Any) -> str:
    """``pod0/node36/l1sw2~pod0/l2plane2/sw05`` -> ``node36/l1sw2~l2plane2/sw05`` (one-pod reports)."""
    return re.sub(r"(^|~)pod0/", r"\1", str(component))


_UNIT_WORDS = {"s": "seconds", "min": "minutes", "h": "hours"}


def _unit(span: float) -> tuple[float, str]:
    if span > 3 * 3600:
        return 3600.0, "h"
    if span > 600:
        return 60.0, "min"
    return 1.0, "s"


# ---- the incident timeline ---------------------------------------------------------------------------
def timeline_svg(inc: dict[str, Any], salt: str) -> str:
    """Onset, detection, diagnosis and recovery as milestones; each (distinct) action as a bar, by outcome."""
    t0 = inc["t0_s"] or 0.0
    marks = [(e["what"], e["t_s"] - t0) for e in inc["timeline"] if e["what"] in MILESTONES]
    groups = inc["action_groups"]
    rows, hidden = groups[:MAX_ROWS], max(0, len(groups) - MAX_ROWS)
    xs = [x for _, x in marks] + [0.0]
    for g in rows:
        if g["start_s"] is not None:
            xs.append(g["start_s"] - t0)
        if g["end_s"] is not None and not g["in_flight"]:
            xs.append(g["end_s"] - t0)
    lo, hi = min(xs), max(xs)
    span = max(hi - lo, 1.0)
    right = hi + 0.12 * span + 1.0
    log = span > 120.0
    with matplotlib.rc_context(RC):
        fig = _figure(9.0, 0.95 + 0.27 * (len(rows) + 1 + bool(hidden)))
        ax = fig.add_subplot()
        labels = ["milestones"]
        for y, g in enumerate(rows, start=1):
            start = (g["start_s"] if g["start_s"] is not None else t0) - t0
            end = right if g["in_flight"] or g["end_s"] is None else g["end_s"] - t0
            colour = COLORS.get(str(g["status"]), COLORS["bar"])
            if end - start > 1e-9:
                ax.barh(y, end - start, left=start, height=0.55, color=colour, alpha=0.35 if g["in_flight"] else 0.9,
                        hatch="//" if g["in_flight"] else None, edgecolor=colour, linewidth=0.6)
            else:
                ax.plot([start], [y], marker="D", markersize=5, color=colour, linestyle="none")
            n = f" x{g['count']}" if g["count"] > 1 else ""
            flight = " (in flight)" if g["in_flight"] else ""
            target = "" if g["target"] in (None, "-") else f" {short(g['target'])}"
            labels.append(f"{g['action']}{target}{n}{flight}"[:60])
        for what, x in marks:
            ax.axvline(x, color=COLORS[what], linewidth=0.9, linestyle=":" if what != "onset" else "-", zorder=0)
            ax.plot([x], [0], marker="o" if what != "onset" else "v", markersize=7, color=COLORS[what],
                    linestyle="none", label=f"{what} {_rel(x)}")
        if hidden:
            labels.append(f"... {hidden} more (see the table)")
        ax.set_yticks(range(len(labels)), labels)
        ax.set_ylim(len(labels) - 0.4, -0.6)
        ref = "onset" if inc.get("onset_s") is not None else "detection"
        if log:
            symlog_seconds(ax)
            ax.set_xlabel(f"seconds after {ref} (linear to 10 s, logarithmic beyond)")
        else:
            ax.set_xlabel(f"seconds after {ref}")
        ax.set_xlim(min(lo, 0.0) - (0.5 if log else 0.03 * span + 0.5), right)
        ax.grid(axis="x", color="#eeeeee", linewidth=0.6)
        handles, _ = ax.get_legend_handles_labels()
        handles += [Line2D([], [], color=COLORS[s], linewidth=6, label=f"action {s}")
                    for s in ("succeeded", "failed", "skipped", "cancelled")
                    if s != "cancelled" or any(g["status"] == "cancelled" for g in rows)]  # stopped as doomed (38)
        ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=7, frameon=False, fontsize=7.5,
                  handlelength=1.2, columnspacing=1.2)
        return to_svg(fig, salt)


def _rel(x: float) -> str:
    return f"{'+' if x >= 0 else '-'}{abs(x):.1f} s"


# ---- a workload's rate through the incident ----------------------------------------------------------
def workload_svg(entry: dict[str, Any], inc: dict[str, Any], name: str, end_s: float | None, salt: str) -> str:
    """The affected workload's step rate (training) or decode throughput and TPOT (inference) around the
    incident: the dip, the 95% bar, the milestones and the recovery."""
    t0 = inc["t0_s"] or 0.0
    pts = entry.get("points") or []
    rec = inc.get("recovered_at_s")
    ends = [e["t_s"] for e in inc["timeline"]]
    ends += [a["end_s"] for a in inc["actions"] if a["end_s"] is not None and not a["in_flight"]]
    last = max([t0 + 10.0] + [t for t in ends if t is not None])
    span = max(last - t0, 10.0)
    lo = max(0.0, t0 - max(0.3 * span, 30.0))
    hi = last + max(0.4 * span, 30.0)
    if end_s is not None:
        hi = min(hi, end_s)
    scale, unit = _unit(hi - lo)
    training = entry.get("kind") == "training"
    ts = [p[0] for p in pts]

    def steps(col: int) -> tuple[list[float], list[float]]:
        i = max(0, bisect_right(ts, lo) - 1)
        sel = [pts[i]] + [p for p in pts if lo < p[0] <= hi]
        x = [(max(p[0], lo) - t0) / scale for p in sel] + [(hi - t0) / scale]
        y = [math.nan if p[col] is None else float(p[col]) for p in sel]
        return x, y + [y[-1]]

    with matplotlib.rc_context(RC):
        n = 1 if training or len(entry.get("fields", [])) < 3 else 2
        fig = _figure(9.0, 2.2 if n == 1 else 3.4)
        axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
        x, y = steps(1)
        metric, unit_words = rate_unit(entry.get("kind"))
        mul, ylabel = 1.0, f"{metric}, {unit_words}"  # the unit of the table under the plot
        y = [v * mul for v in y]
        ax = axes[0]
        ax.step(x, y, where="post", color=COLORS["rate"], linewidth=1.4, label=name)
        pre = _rate_at(pts, t0 - 1e-6)
        if pre:
            ax.axhline(0.95 * pre * mul, color="#888888", linestyle="--", linewidth=0.8, label="95% of pre-fault")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        if n == 2:
            tx, ty = steps(2)
            axes[1].step(tx, ty, where="post", color=COLORS["tpot"], linewidth=1.2)
            axes[1].set_ylabel("TPOT ms")
            axes[1].set_ylim(bottom=0)
        for a in axes:
            if rec is not None:
                a.axvspan(0, (rec - t0) / scale, color=COLORS["onset"], alpha=0.07, linewidth=0)
            for e in inc["timeline"]:
                if e["what"] in MILESTONES:
                    a.axvline((e["t_s"] - t0) / scale, color=COLORS[e["what"]], linewidth=0.9,
                              linestyle="-" if e["what"] == "onset" else ":")
            a.grid(axis="y", color="#eeeeee", linewidth=0.6)
        low = [(xx, yy) for xx, yy in zip(x, y, strict=True) if xx >= 0 and not math.isnan(yy)]
        if pre and low:
            xm, ym = min(low, key=lambda p: p[1])
            share = ym / (pre * mul)
            words = "stalled (0)" if ym == 0 else f"low: {share:.0%} of pre-fault"
            ax.annotate(words, (xm, ym), xytext=(8, 10), textcoords="offset points", fontsize=7.5,
                        color=COLORS["onset"])
        shaded = " (shaded: onset to recovery)" if rec is not None else ""
        axes[-1].set_xlabel(f"{_UNIT_WORDS[unit]} after onset{shaded}")
        ax.legend(loc="lower right", frameon=False, fontsize=7.5)
        return to_svg(fig, salt)


def _rate_at(pts: list[list[Any]], t: float) -> float | None:
    i = bisect_right([p[0] for p in pts], t) - 1
    return pts[i][1] if i >= 0 else None


# ---- the affected part of the topology ---------------------------------------------------------------
_PART = re.compile(r"^(?P<pod>pod\d+)(?:/node(?P<node>\d+)(?:/(?P<sub>npu(?P<npu>\d+)(?:/\w+)?|l1sw(?P<l1>\d+)"
                   r"|cpu\d+|qingtian))?|/l2plane(?P<plane>\d+)/sw(?P<l2>\d+))?")


def parse(component: str | None) -> list[dict[str, Any]]:
    """The parts a component id names (two for a link), as dicts of pod/node/npu/l1/plane/l2/sub."""
    out = []
    for part in str(component or "").split("~"):
        m = _PART.match(part)
        if m and (m.group("node") or m.group("plane")):
            out.append({k: (int(v) if v and v.isdigit() else v) for k, v in m.groupdict().items()} | {"id": part})
    return out


def topology_svg(components: dict[str, Any], salt: str, shape: Any = None) -> str:
    """The node of the incident with its NPUs and L1 chips and the plane(s) above them; or, for an L2 chip,
    its plane with every node's uplink to it. Diagnosed part red, injected (if elsewhere) orange, isolated grey."""
    import networkx as nx

    if shape is None:
        from faultlib.topology import TopologyParams

        shape = TopologyParams()
    diag, inj = parse(components.get("diagnosed")), parse(components.get("injected"))
    iso = [p for c in components.get("isolated", []) for p in parse(c)]
    parts = diag + inj + iso
    node = next((p["node"] for p in parts if p["node"] is not None), None)
    pod = next((p["pod"] for p in parts), "pod0")
    plane = next((p["plane"] if p["plane"] is not None else p["l1"] for p in parts
                  if p["plane"] is not None or p["l1"] is not None), None)
    g = nx.Graph()
    if node is not None:
        extras = sorted({p["sub"] for p in parts if p["node"] == node and p["sub"] and p["npu"] is None
                         and p["l1"] is None})
        _node_graph(g, shape, node, plane, extras)
        for p in parts:  # name the sub-part of an NPU (hbm, die, RoCE port) under its NPU
            if p["node"] == node and p["npu"] is not None and "/" in str(p["sub"]):
                g.nodes[f"npu:{p['npu']}"]["label"] = p["sub"]
        title = f"{pod}/node{node}: {shape.npus_per_node} NPUs, {shape.l1_per_node} L1 chips, planes above"
    elif plane is not None:
        _plane_graph(g, shape, plane, {p["l2"] for p in parts if p["plane"] == plane and p["l2"] is not None})
        title = (f"{pod}/l2plane{plane}: {shape.l2_per_plane} L2 chips, one uplink from each of "
                 f"{shape.nodes_per_pod} nodes")
    else:
        g.add_node("?", pos=(0, 0), kind="box", label="no component to draw")
        title = "no component named"
    red = {_gid(p) for p in diag}
    orange = {_gid(p) for p in inj} - red
    grey = {_gid(p) for p in iso}
    links = [(parse(c)) for c in (components.get("diagnosed"), components.get("injected")) if c and "~" in str(c)]
    bad_edges = {tuple(sorted((_gid(a), _gid(b)))) for a, b in (lp for lp in links if len(lp) == 2)}
    whole_node = any(p["sub"] is None and p["node"] is not None for p in diag + inj)
    with matplotlib.rc_context(RC):
        fig = _figure(6.6, 3.4)
        ax = fig.add_subplot()
        ax.set_axis_off()
        pos = nx.get_node_attributes(g, "pos")
        edges = list(g.edges())
        hot = [tuple(sorted(e)) in bad_edges or g.edges[e].get("hot", False) for e in edges]
        ecol = [COLORS["fault"] if h else COLORS["edge"] for h in hot]
        ewid = [1.6 if h else g.edges[e].get("w", 0.5) for e, h in zip(edges, hot, strict=True)]
        nx.draw_networkx_edges(g, pos, edgelist=edges, edge_color=ecol, width=ewid, ax=ax)
        for kind, marker, size in (("npu", "s", 260), ("l1", "D", 200), ("l2", "o", 150), ("plane", "s", 520),
                                   ("dot", "o", 40), ("extra", "h", 260), ("box", "s", 10)):
            nodes = [n for n, d in g.nodes(data=True) if d["kind"] == kind]
            if not nodes:
                continue
            fill = [COLORS["fault"] if n in red else COLORS["injected"] if n in orange else "#d5d8dc" if n in grey
                    else COLORS["part"] for n in nodes]
            edge = [COLORS["isolated"] if n in grey else "#34495e" for n in nodes]
            nx.draw_networkx_nodes(g, pos, nodelist=nodes, node_color=fill, edgecolors=edge, node_shape=marker,
                                   node_size=size, linewidths=1.6 if kind != "dot" else 0.5, ax=ax)
        marked = red | orange | grey
        labels = {n: d["label"] or n.rsplit(":", 1)[-1] for n, d in g.nodes(data=True)
                  if d.get("label") or n in marked}
        for n in list(labels):
            if n.startswith("l2:") and not labels[n].startswith("sw"):
                labels[n] = f"sw{int(labels[n]):02d}"
        below = {n: t for n, t in labels.items() if g.nodes[n]["kind"] != "plane"}
        nx.draw_networkx_labels(g, {n: (x, y - 0.32) for n, (x, y) in pos.items()}, labels=below, font_size=6.5,
                                font_color="#2c3e50", ax=ax)
        inside = {n: t for n, t in labels.items() if g.nodes[n]["kind"] == "plane"}
        nx.draw_networkx_labels(g, pos, labels=inside, font_size=6, font_color="#2c3e50", ax=ax)
        if node is not None:
            xs = [x for n, (x, y) in pos.items() if g.nodes[n]["kind"] in ("npu", "l1", "extra")]
            ax.add_patch(matplotlib.patches.FancyBboxPatch(
                (min(xs) - 0.6, -0.55), max(xs) - min(xs) + 1.2, 1.85, boxstyle="round,pad=0.05", fill=False,
                edgecolor=COLORS["fault"] if whole_node else "#34495e", linewidth=2.0 if whole_node else 0.8,
                linestyle="-" if whole_node else "--"))
        ax.set_title(title, fontsize=8.5, loc="left", pad=4)
        legend = [Line2D([], [], marker="s", linestyle="none", markersize=7, color=COLORS["fault"],
                         label="diagnosed")]
        if orange:
            legend.append(Line2D([], [], marker="s", linestyle="none", markersize=7, color=COLORS["injected"],
                                 label="injected (ground truth)"))
        if grey - red - orange:
            legend.append(Line2D([], [], marker="s", linestyle="none", markersize=7, color="#d5d8dc",
                                 markeredgecolor=COLORS["isolated"], label="isolated by the runbook"))
        spares = components.get("spares") or []
        if spares:
            legend.append(Line2D([], [], marker="h", linestyle="none", markersize=7, color=COLORS["spare"],
                                 label=f"spare swapped in: {', '.join(short(s) for s in spares)}"))
        ax.legend(handles=legend, loc="upper center", bbox_to_anchor=(0.5, 0.0), frameon=False, fontsize=7,
                  ncol=len(legend))
        ax.margins(0.06, 0.12)
        return to_svg(fig, salt)


def _gid(p: dict[str, Any]) -> str:
    """The graph node that stands for a parsed part."""
    if p["plane"] is not None:
        return f"l2:{p['plane']}:{p['l2']}"
    if p["l1"] is not None:
        return f"l1:{p['l1']}"
    if p["npu"] is not None:
        return f"npu:{p['npu']}"
    if p["sub"]:
        return f"x:{p['sub']}"
    return f"node:{p['node']}"


def _node_graph(g: Any, shape: Any, node: int, plane: int | None, extras: list[str]) -> None:
    n_npu, n_l1 = shape.npus_per_node, shape.l1_per_node
    width = max(n_npu, n_l1) - 1
    for k in range(n_npu):
        g.add_node(f"npu:{k}", pos=(k * width / max(1, n_npu - 1), 0.0), kind="npu", label=f"npu{k}")
    for i in range(n_l1):
        x = i * width / max(1, n_l1 - 1)
        g.add_node(f"l1:{i}", pos=(x, 1.0), kind="l1", label=f"l1sw{i}")
        for k in range(n_npu):
            g.add_edge(f"npu:{k}", f"l1:{i}", w=0.25)
        if i != plane:
            g.add_node(f"plane:{i}", pos=(x, 2.0), kind="plane", label=f"plane\n{i}")
            g.add_edge(f"l1:{i}", f"plane:{i}", w=1.2)
    for j, extra in enumerate(extras):
        g.add_node(f"x:{extra}", pos=(width + 1.3 + j, 0.0), kind="extra", label=extra)
    if plane is not None:
        m = shape.l2_per_plane
        for j in range(m):
            x = -1.0 + j * (width + 2.0) / max(1, m - 1)
            g.add_node(f"l2:{plane}:{j}", pos=(x, 3.0), kind="l2", label=f"sw{j:02d}" if j % 3 == 0 else "")
            g.add_edge(f"l1:{plane}", f"l2:{plane}:{j}", w=0.5)


def _plane_graph(g: Any, shape: Any, plane: int, hot: set[int]) -> None:
    """A plane's chips above every node's L1 chip of that plane. Each L1 chip reaches every chip of its plane;
    to stay legible the picture draws one uplink per node, and all of them (in red) for a chip the incident
    names."""
    m, nodes = shape.l2_per_plane, shape.nodes_per_pod
    for j in range(m):
        g.add_node(f"l2:{plane}:{j}", pos=(j * (nodes - 1) / max(1, m - 1), 2.0), kind="l2", label=f"sw{j:02d}")
    for k in range(nodes):
        g.add_node(f"n:{k}", pos=(float(k), 0.0), kind="dot", label=f"node{k}" if k % 6 == 0 else "")
        for j in hot:
            g.add_edge(f"n:{k}", f"l2:{plane}:{j}", hot=True)
        if not hot:
            g.add_edge(f"n:{k}", f"l2:{plane}:{k % m}", w=0.3)
