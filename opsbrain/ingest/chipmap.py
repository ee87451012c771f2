"""Which device numbering a real host's logs use, told by the npu-smi output a collection holds (session 38).

On Atlas A3 (Ascend 910C, two dies a package) every die is its own logical device and the ids programs print are
those logical ids (docs/formats.md, "A3 logical device ids"); on Atlas A2 (910B) one device is one NPU. Nothing in a
log line tells the two apart, so a real host's ids are read as written unless its own npu-smi output shows the
product:

- ``npu-smi info -m`` (the chip mapping table: ``NPU ID  Chip ID  Chip Logic ID  [Chip Phy-ID]  Chip Name``, one row a
  chip, the MCU a row whose logic id is ``-``): an NPU ID with two compute chips of the 910 family that is not a 910A
  or 910B is an A3 package, and the table itself says which NPU and chip each logic id is (ascend-fd reads it so:
  Ascend/mind-cluster @22bb3d98 ``component/ascend-faultdiag/src/ascend_fd/pkg/parse/knowledge_graph/parser/
  npu_info_parser.py`` ConfigInitializer, (NPU ID, Chip ID) -> Chip Logic ID; its toolkit's ``core/common/
  chip_generation.py`` documents the A3 columns with Chip Phy-ID and ``Ascend910``); one compute chip an NPU ID
  is one device an NPU (A2's ``Ascend 910B3`` rows);
- ``npu-smi info`` (the status table): on A3 each NPU ID is listed twice, once a chip (``Chip  Phy-ID`` rows
  ``0 0`` and ``1 1`` under ``Ascend910``, as pasted from A3 hosts in vllm-ascend issues #2035, #2534), on A2 once
  (``910B2``, ``910B3`` with one ``Chip`` row, vllm-ascend #975). The table names no logic id: the A3 rule
  (:func:`faultlib.ids.npu_die`) maps one back.

A name alone is no evidence (a 910B3 runs in A2 servers: ascend-ai-coding/awesome-ascend-skills#18); a card of two
chips that are not 910 (Atlas 300I Duo's ``310P3``) is neither, and its ids stay as written."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from faultlib.ids import logical_device, npu_die
from opsbrain.lazyre import lazy_compile

A3, A2 = "Atlas A3", "Atlas A2"
_MAP_HEAD = lazy_compile(r"^\s*NPU ID\s+Chip ID\s+Chip Logic ID\s+(Chip Phy-ID\s+)?Chip Name\s*$")
_MAP_ROW = lazy_compile(r"^\s*(\d{1,10})\s+(\d{1,10})\s+(\d{1,10}|-)\s+(?:(?:\d+|-)\s+)?(\S.*?)\s*$")
_MAP_ROW_PHY = lazy_compile(r"^\s*(\d{1,10})\s+(\d{1,10})\s+(\d{1,10}|-)\s+(?:\d+|-)\s+(\S.*?)\s*$")
_SMI_NPU_ROW = lazy_compile(r"^\|\s*(\d{1,10})\s+(\S+)\s*\|\s*[A-Za-z]\w*\s*\|")
"""An npu-smi status table's NPU row: ``| 0     Ascend910           | OK            | 166.5 ...``."""
_SMI_CHIP_ROW = lazy_compile(r"^\|\s*(\d{1,10})(?:\s+\d+)?\s*\|\s*[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:")
"""Its chip row: ``| 1     1               | 0000:9F:00.0  | ...`` (A3: Chip and Phy-ID), ``| 0  | 0000:C1:00.0``."""
_A3_CHIP = lazy_compile(r"^(?:Ascend)?\s*910(?![AB]|Pro)", re.I)
"""A chip name of the 910 family that is neither a 910A nor a 910B (A3's dies: ``Ascend910``; ``910C``)."""


@dataclass(frozen=True, slots=True)
class ChipMap:
    """A real host's device numbering: ``product`` A3 (device ids are dies' logical ids) or A2 (one device an NPU,
    ids as written); ``chips``: the ``npu-smi info -m`` rows (logic id, NPU ID, Chip ID) where the host's output held
    that table (empty: the status table told the product, the A3 rule maps an id back); ``by``: what showed it."""

    product: str
    chips: tuple[tuple[int, int, int], ...] = ()
    by: str = ""

    @property
    def a3(self) -> bool:
        return self.product == A3

    def die_of(self, logical: int) -> tuple[int, int]:
        """(NPU index, die) of an A3 logical id: the table's row, else the A3 rule (:func:`faultlib.ids.npu_die`)."""
        for lid, npu, chip in self.chips:
            if lid == logical:
                return npu, chip
        return npu_die(logical)

    def logic_of(self, npu: int, die: int) -> int:
        """The logical id of die ``die`` of NPU ``npu``: the table's, else the A3 rule."""
        for lid, n, chip in self.chips:
            if (n, chip) == (npu, die):
                return lid
        return logical_device(npu, die)

    def facts(self) -> dict[str, object]:
        """What a report says of it."""
        return {"product": self.product, "device_ids": "logical ids of dies" if self.a3 else "as written",
                "by": self.by}


class ChipMapScan:
    """A host's npu-smi output, line after line (every file of the host's through one scan): :meth:`result`."""

    def __init__(self) -> None:
        self.table: dict[int, tuple[int, int]] = {}  # logic id -> (NPU ID, Chip ID), from ``info -m``
        self.names: dict[int, str] = {}  # NPU ID -> its compute chips' name (either table)
        self.chips: dict[int, set[int]] = defaultdict(set)  # NPU ID -> chip ids (the status table's rows)
        self._row: re.Pattern[str] | None = None  # inside an ``info -m`` table: its row shape
        self._npu: int | None = None  # the status table's last NPU row
        self._by: set[str] = set()
        self.disagree = False  # two tables gave one logic id different chips
        self.a3_named: set[bool] = set()  # per 910 name read: whether an A3 die's (both: the output disagrees)

    def feed(self, lines: Iterable[str | None]) -> ChipMapScan:
        """One file's lines (a table does not go on into the next file)."""
        for text in lines:
            self.step(text)
        self._row = self._npu = None
        return self

    def _name(self, npu: int, name: str) -> None:
        self.names.setdefault(npu, name)
        if "910" in name:  # (a name of the family: A3's dies, or a 910A / 910B; not ``-`` nor an MCU)
            self.a3_named.add(bool(_A3_CHIP.match(name)))

    def step(self, text: str | None) -> None:
        if not text or not text.strip():
            self._row = None
            return
        if m := _MAP_HEAD.match(text):
            self._row = _MAP_ROW_PHY if m.group(1) else _MAP_ROW
            return
        if self._row is not None:
            if (m := self._row.match(text)) is None:
                self._row = None
                return
            npu, chip, lid, name = int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)
            if lid.isdigit():  # (an MCU's row: ``-``)
                self.disagree |= self.table.setdefault(int(lid), (npu, chip)) != (npu, chip)
                self._name(npu, name)
                self._by.add("npu-smi info -m")
            return
        if m := _SMI_NPU_ROW.match(text):
            self._npu = int(m.group(1))
            self._name(self._npu, m.group(2))
        elif (m := _SMI_CHIP_ROW.match(text)) and self._npu is not None:
            self.chips[self._npu].add(int(m.group(1)))
            self._by.add("npu-smi info")

    def result(self) -> ChipMap | None:
        """The host's numbering, or None where its output shows none (no table; a card of two non-910 chips; A3 dies
        and other chips named in one host's output). Where two ``info -m`` tables give one logic id different chips
        (the host's own and a container's, files of two hosts under one name), neither table's rows are used: the A3
        rule maps ids back, and ``by`` says so (session 38's review: before, the last file read won, row by row)."""
        if len(self.a3_named) > 1:
            return None
        per: dict[int, set[int]] = defaultdict(set)
        for npu, chip in self.table.values():
            per[npu].add(chip)
        if not per:
            per = self.chips
        if not per:
            return None
        by = " and ".join(sorted(self._by))
        if all(len(c) == 1 for c in per.values()):
            return ChipMap(A2, by=f"{by}: one chip an NPU ID")
        if all(_A3_CHIP.match(self.names.get(n, "")) for n, c in per.items() if len(c) > 1):
            if self.disagree:
                return ChipMap(A3, (), f"{by}: two dies an NPU ID; its tables disagree on logic ids: the A3 rule")
            rows = tuple(sorted((lid, n, c) for lid, (n, c) in self.table.items()))
            return ChipMap(A3, rows, f"{by}: two dies an NPU ID")
        return None


def chip_map(lines: Iterable[str | None]) -> ChipMap | None:
    """The numbering a host's npu-smi output shows (:class:`ChipMapScan`)."""
    return ChipMapScan().feed(lines).result()
