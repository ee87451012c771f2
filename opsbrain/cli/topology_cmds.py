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
from opsbrain.errors import InputError


# ---- topology ---------------------------------------------------------------------------------------
@cli.command()
@click.option("--pods", default=1, show_default=True, type=int, help="Number of superpods in the cluster.")
@click.option("--export-graphml", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write the component/link graph as GraphML to this file.")
@force_option
@param_option
@json_option
def topology(pods: int, export_graphml: Path | None, force: bool, params: tuple[str, ...], as_json: bool) -> None:
    """Build the superpod topology and print component counts and bandwidths."""
    from faultlib.topology import Topology

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
    _print_topology(counts, bandwidth, export_graphml)


def _print_topology(counts: dict[str, int], bandwidth: dict[str, float], graphml: Path | None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(title=f"Superpod topology ({counts['pods']} pod{'s' if counts['pods'] != 1 else ''})")
    table.add_column("component")
    table.add_column("count", justify="right")
    for key, value in counts.items():
        table.add_row(key.replace("_", " "), f"{value:,}")
    console.print(table)
    bw = Table(title="Bandwidth")
    bw.add_column("path")
    bw.add_column("value", justify="right")
    labels = {
        "npu_ub_gbytes_s": ("UB per NPU (unidirectional)", "GB/s"),
        "l1_l2_link_gbytes_s": ("UB per L1-L2 link", "GB/s"),
        "die_ub_link_gbytes_s": ("UB per die link", "GB/s"),
        "npu_rdma_gbits_s": ("RDMA (RoCE) per NPU", "Gb/s"),
        "node_vpc_gbits_s": ("VPC per node", "Gb/s"),
    }
    for key, rate in bandwidth.items():
        label, unit = labels.get(key, (key, ""))
        bw.add_row(label, f"{rate:g} {unit}")
    console.print(bw)
    if graphml is not None:
        console.print(f"graph written to {graphml}")


# ---- params -----------------------------------------------------------------------------------------
@cli.command("params")
@param_option
@json_option
def params_cmd(params: tuple[str, ...], as_json: bool) -> None:
    """List every simulator parameter: path, value, unit and source."""
    from faultlib.params import iter_params
    from faultlib.simparams import SimParams

    prm = sim_params(params)
    overridden = set(parse_params(params))
    rows = []
    for path, default, unit, source, description in iter_params(SimParams):
        value: Any = prm
        for part in path.split("."):
            value = getattr(value, part)
        rows.append({"path": path, "value": value, "default": default, "unit": unit,
                     "source": "override (--param)" if path in overridden else source,
                     "description": description})
    if as_json:
        _emit_json({"parameters": rows})
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"Simulator parameters ({len(rows)})")
    table.add_column("parameter", no_wrap=True)
    table.add_column("value", max_width=24, overflow="fold")
    table.add_column("unit", max_width=14)
    table.add_column("source", overflow="fold")
    for row in rows:
        table.add_row(row["path"], str(row["value"]), row["unit"], row["source"])
    Console().print(table)
