"""``opsbrain topology`` and ``opsbrain params``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from opsbrain.cli.base import (
    _emit_json,
    _write_atomic,
    cli,
    force_option,
    json_option,
    param_option,
    parse_params,
    sim_params,
)
from opsbrain.cli.output import Table, emit, output_option, resolve_format
from opsbrain.errors import InputError


# ---- topology ---------------------------------------------------------------------------------------
@cli.command()
@click.option("--pods", default=1, show_default=True, type=int,
              help="Number of superpods in the cluster: 1 .. the parameter topology.max_pods (64).")
@click.option("--export-graphml", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the component/link graph as GraphML to this file.")
@force_option
@param_option
@output_option
@json_option
def topology(pods: int, export_graphml: Path | None, force: bool, params: tuple[str, ...], output: str | None,
             as_json: bool) -> None:
    """Build the superpod topology and print component counts and bandwidths."""
    from faultlib.topology import Topology

    fmt = resolve_format(output, as_json)
    as_json = fmt == "json"

    if export_graphml is not None:  # the output policy before building anything
        from opsbrain.fsio import check_target

        check_target(export_graphml, "--export-graphml", force)
    prm = sim_params(params)
    max_pods = prm.topology.max_pods
    if not 1 <= pods <= max_pods:
        raise InputError(f"pod count must be between 1 and {max_pods} (topology.max_pods), got {pods}",
                         path="--pods")
    topo = Topology.build(prm.topology, pods)
    counts = topo.counts()
    fab = prm.fabric
    bandwidth = {
        "npu_ub_gbytes_s": fab.npu_ub_gbytes_s,
        "l1_l2_link_gbytes_s": fab.ub_link_gbytes_s,
        "die_ub_link_gbytes_s": fab.die_link_gbytes_s,
        "npu_rdma_gbits_s": fab.rdma_port_gbits_s * prm.topology.dies_per_npu,
        "node_vpc_gbits_s": fab.vpc_gbits_s,
    }
    if export_graphml is not None:
        import networkx as nx

        graph = topo.graph()
        _write_atomic(export_graphml, lambda fh: nx.write_graphml(graph, fh), "--export-graphml", force)
    if as_json:
        _emit_json({**counts, "bandwidth": bandwidth,
                    "graphml": str(export_graphml) if export_graphml is not None else None})
        return
    for t in _topology_tables(counts, bandwidth):
        click.echo(t.render(fmt))
    if export_graphml is not None and fmt == "table":
        click.echo(f"graph written to {export_graphml}")


def _topology_tables(counts: dict[str, int], bandwidth: dict[str, float]) -> list[Table]:
    table = Table.of(["component", "count"], title=f"Superpod topology ({counts['pods']} pod"
                     f"{'s' if counts['pods'] != 1 else ''})", right=["count"])
    for key, value in counts.items():
        table.add(key.replace("_", " "), f"{value:,}")
    bw = Table.of(["path", "value"], title="Bandwidth", right=["value"])
    labels = {
        "npu_ub_gbytes_s": ("UB per NPU (unidirectional)", "GB/s"),
        "l1_l2_link_gbytes_s": ("UB per L1-L2 link", "GB/s"),
        "die_ub_link_gbytes_s": ("UB per die link", "GB/s"),
        "npu_rdma_gbits_s": ("RDMA (RoCE) per NPU", "Gb/s"),
        "node_vpc_gbits_s": ("VPC per node", "Gb/s"),
    }
    for key, rate in bandwidth.items():
        label, unit = labels.get(key, (key, ""))
        bw.add(label, f"{rate:g} {unit}")
    return [table, bw]


# ---- params -----------------------------------------------------------------------------------------
@cli.command("params")
@click.argument("pattern", required=False)
@click.option("--sources", is_flag=True, help="Also print each parameter's source (long: one paragraph each).")
@param_option
@output_option
@json_option
def params_cmd(pattern: str | None, sources: bool, params: tuple[str, ...], output: str | None, as_json: bool) -> None:
    """List the simulator parameters: path, value and unit (with --sources, where each number comes from).
    PATTERN keeps the paths containing it (``fabric.``) or matching it as a glob (``*timeout*``)."""
    import fnmatch

    from faultlib.params import iter_params
    from faultlib.simparams import SimParams

    fmt = resolve_format(output, as_json)
    prm = sim_params(params)
    overridden = set(parse_params(params))
    rows = []
    for path, default, unit, source, description in iter_params(SimParams):
        if pattern and pattern not in path and not fnmatch.fnmatchcase(path, pattern):
            continue
        value: Any = prm
        for part in path.split("."):
            value = getattr(value, part)
        rows.append({"path": path, "value": value, "default": default, "unit": unit,
                     "source": "override (--param)" if path in overridden else source,
                     "description": description})
    if pattern and not rows:
        raise InputError(f"no parameter path contains or matches {pattern!r} (see 'opsbrain params')")
    cols = ["parameter", "value", "unit"] + (["source"] if sources else [])
    table = Table.of(cols, title=f"Simulator parameters ({len(rows)})", wrap=["value", "unit", "source"])
    for row in rows:
        table.add(row["path"], str(row["value"]), row["unit"], *([row["source"]] if sources else []))
    if not sources and fmt == "table":
        table.note("sources: --sources, or docs/parameters.md; one group: opsbrain params fabric.")
    emit(table, fmt, {"parameters": rows})
