"""The twin's pod rendered as npu-exporter's page (so the twin and a real cluster are read by the same parser,
:mod:`opsbrain.sources.exporter`)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from faultlib.engine import Simulation


def _series(out: list[str], name: str, help_: str, rows: Iterator[tuple[str, float, int]]) -> None:
    out.append(f"# HELP {name} {help_}")
    out.append(f"# TYPE {name} gauge")
    out.extend(f"{name}{{{labels}}} {value!r} {ts}" for labels, value, ts in rows)


def render_twin_page(sim: Simulation, t: float | None = None, optics: bool = True) -> str:
    """The twin's pod at ``t`` (default: now) as npu-exporter series: what its operator's exporters would publish.

    Read only from what an operator sees (the metric store and the DOM readings, as the twin's sweep reads them):
    chip series carry the time the chip was last read (``t`` minus its heartbeat age), the others ``t``.
    ``optics=False`` leaves out the switch-port optical and CRC series (the NPUs' own series only).
    """
    from faultlib.telemetry import formats as fmt

    t = sim.now if t is None else float(t)
    store = sim.telemetry.scraped  # a stopped host's exporter serves nothing: its rows are left out
    npus = sorted(sim.topology.by_kind.get("npu", ()))
    gone = {npus[i] for i, _since in store.absent(npus, t)}
    ms = int(round(sim.wallclock(t).timestamp() * 1000))
    age = store.read_many("npu_heartbeat_age_s", npus, t)
    chip_ms = [ms - int(round(a * 1000)) if math.isfinite(a) else ms for a in age]
    lab = [f'id="{fmt.device_index(n)}",instance="{fmt.hostname(n)}"' for n in npus]
    out = ["# HELP machine_npu_nums Amount of npu installed on the machine.", "# TYPE machine_npu_nums gauge"]
    nodes = sorted({fmt.hostname(n) for n in npus if n not in gone})
    out += [f'machine_npu_nums{{instance="{h}"}} {sum(1 for n in npus if fmt.hostname(n) == h)} {ms}' for h in nodes]
    hbms = [n + "/hbm" for n in npus]
    for name, metric, comps, default in (
            ("npu_chip_info_temperature", "npu_temp_c", npus, math.nan),
            ("npu_chip_info_hbm_temperature", "hbm_temp_c", hbms, math.nan),
            ("npu_chip_info_hbm_ecc_total_single_bit_error_cnt", "hbm_ce_total", hbms, 0.0),
            ("npu_chip_info_hbm_ecc_double_bit_isolated_pages_cnt", "hbm_isolated_rows", hbms, math.nan)):
        vals = store.read_many(metric, comps, t, default=default)
        _series(out, name, f"the npu {name.removeprefix('npu_chip_info_').replace('_', ' ')}",
                ((lab[i], float(v), chip_ms[i]) for i, v in enumerate(vals) if math.isfinite(v)))
    if not optics:
        return "\n".join(out) + "\n"
    reading = sim.dom.read(t)
    mods = sim.dom.modules
    dark = {i for i, _since in store.absent(mods, t)}  # modules on a stopped host's board: its exporter is down
    mlab = [f'id="0",instance="{fmt.hostname(m)}",port="{fmt.switch_port(m)}",udie="0"' for m in mods]
    for key, fld in (("rx", "rx_dbm"), ("tx", "tx_dbm")):
        arr = reading[fld]
        for lane in range(arr.shape[1]):
            col = arr[:, lane]
            _series(out, f"npu_chip_info_optical_{key}_power_{lane}",
                    f"npu interface receive optical_{key}_power_{lane} on ub port",
                    ((mlab[i], float(col[i]), ms) for i in range(len(mods)) if i not in dark))
    links = sorted({lk for lk in sim.dom.link_of})
    crc = store.read_many("link_crc_total", links, t, default=0.0)
    first: dict[str, str] = {}
    for i, (m, lk) in enumerate(zip(mods, sim.dom.link_of, strict=True)):
        if i not in dark:  # the link's count as its first served end's exporter publishes it
            first.setdefault(lk, m)
    _series(out, "npu_chip_info_crc_error_sum", "number of crc check errors on ub port",
            ((f'id="0",instance="{fmt.hostname(first[lk])}",port="{fmt.switch_port(first[lk])}",udie="0"',
              float(crc[i]), ms) for i, lk in enumerate(links) if lk in first))
    return "\n".join(out) + "\n"
