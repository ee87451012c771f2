"""The twin's ``npu-smi`` tables in the tool's own layout on Atlas A3 (session 38): ``npu-smi info`` (the status
table) and ``npu-smi info -m`` (the chip mapping table).

The status table of an A3 host lists every die: each NPU ID twice, an ``Ascend910`` row with its ``Chip  Phy-ID``
row under it (chip 0 and 1, the die's physical id), a full-width ``-`` rule between an NPU's two dies and the ``=``
rule after the NPU; the power column shows the package's draw on chip 0's row and ``-`` on chip 1's; temperature,
Bus-Id and HBM usage are each die's (as pasted from A3 hosts: vllm-ascend issues #2035, #2534). One die an NPU gives
the A2 layout (one ``Chip`` row, vllm-ascend #975). The mapping table lists per NPU its compute chips
(``NPU ID  Chip ID  Chip Logic ID  Chip Phy-ID  Chip Name``, the A3 columns Ascend/mind-cluster's toolkit documents
in ascend_fd_tk core/common/chip_generation.py) and its MCU, a row with no logic id (``-``, which ascend-fd's
npu_info_parser ConfigInitializer skips). Values the twin does not model are the callers' to print ``NA``."""

from __future__ import annotations

from dataclasses import dataclass

from faultlib import ids

NPU_SMI = "/usr/local/bin/npu-smi"
VERSION_ROW = "npu-smi 24.1.rc1                 Version: 24.1.rc1"
"""The table's first row (MindCluster docs faultdiag/user_guide/03_collecting_logs.md). ascend-fd takes an
``npu-smi info`` output without it for a failed command and reports the NPU driver as missing (Comp_Network_Custom_06,
npu_info_parser.NpuSmiInfoParser)."""
CHIP_NAME = "Ascend910"
"""The name npu-smi prints for an A3 die (both tables; vllm-ascend #2035, chip_generation.py)."""
MCU_NAME = "Mcu"
_W = 96  # the table's inner width: columns of 27, 15 and 52 characters
_FULL = "+" + "-" * _W + "+"
_COLS = "+" + "-" * 27 + "+" + "-" * 15 + "+" + "-" * 52 + "+"
_BAR = "+" + "=" * 27 + "+" + "=" * 15 + "+" + "=" * 52 + "+"
_MAP_COL = 31  # ``npu-smi info -m`` pads each column to 31 characters after a tab (ascend-fd's fixture kg_parse/)


@dataclass(frozen=True, slots=True)
class DieRow:
    """One die's two rows of the status table, each field as printed (``NA`` where the twin does not model it)."""

    npu: int
    die: int
    health: str = "OK"
    power: str = "NA"
    temp: str = "NA"
    hugepages: str = "0    / 0"
    bus: str = "NA"
    aicore: str = "NA"
    memory: str = "0    / 0"
    hbm: str = "NA"


def bus_id(logical: int) -> str:
    """The twin's PCIe address of a die (the tool's ``0000:BB:00.0`` form; the bus number is the twin's own, from
    the die's logical id: real hosts' numbers follow their board's wiring)."""
    return f"0000:{0x80 + logical:02X}:00.0"


def status_table(rows: list[DieRow], dies: int = ids.A3_DIES_PER_NPU) -> list[str]:
    """``npu-smi info``'s table (without the command line) of ``rows``, in NPU then die order."""
    chip_head = "Chip  Phy-ID" if dies > 1 else "Chip"
    out = [_FULL, f"| {VERSION_ROW:<94} |", _COLS,
           "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|",
           f"| {chip_head:<25} | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |", _BAR]
    for r in rows:
        power = r.power if r.die == 0 else "-"  # (the package's draw, shown on chip 0's row)
        chip = f"{r.die:<5} {ids.logical_device(r.npu, r.die, dies)}" if dies > 1 else f"{r.die}"
        out += [f"| {r.npu:<5} {CHIP_NAME:<19} | {r.health:<13} | {power:<11} {r.temp:<17} {r.hugepages:<20} |",
                f"| {chip:<25} | {r.bus:<13} | {r.aicore:<11} {r.memory:<17} {r.hbm:<20} |",
                _BAR if r.die == dies - 1 else _FULL]
    return out


def mapping_table(npus: list[int], dies: int = ids.A3_DIES_PER_NPU) -> list[str]:
    """``npu-smi info -m``'s table (without the command line) of NPUs ``npus``: each die a row with its logic and
    physical id (on a full node the same number), then the NPU's MCU."""
    def row(*cells: object) -> str:
        return "\t" + "".join(f"{c!s:<{_MAP_COL}}" for c in cells).rstrip()

    out = [row("NPU ID", "Chip ID", "Chip Logic ID", "Chip Phy-ID", "Chip Name")]
    for k in npus:
        out += [row(k, d, lid, lid, CHIP_NAME) for d in range(dies) for lid in [ids.logical_device(k, d, dies)]]
        out.append(row(k, dies, "-", "-", MCU_NAME))
    return out
