"""``diagnose --logs DIR`` reads a collection's ``npu_info_*.txt`` files and its host-named L1 switch chips by the
bundle reader's rules (session 33, helper CF: ``opsbrain/ingest/npuinfo.py``, ``ingest.hostnames.chip_host``).

Every input is written here: the npu_info files in the layout docs/bundles.md describes (command with its full path,
its answer, a blank line) and one LCNE alarm line in the twin's own format; nothing is copied from ../shared."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

HCCN = "/usr/local/Ascend/driver/tools/hccn_tool"
ALARM = ("2025-03-01 00:10:00.000 {chip} UBSW/4/ALARM: WARN [0x08520003,na,L2,na] Assertion alarmID=0x08520003 "
         "port=UB0/0/5\n")


def _npu_info(path: Path, when: str, states: dict[int, str], ce: int = 0) -> None:
    """One node's npu_info file: per port ``-link -g`` and an empty ``-link_stat -g``, then npu-smi's ECC field."""
    out = [f"Datetime: 2025-03-01 00:{'05' if when == 'before' else '20'}:00.000000", ""]
    for dev, st in states.items():
        out += [f"{HCCN} -i {dev} -link -g", f"link status: {st}", "",
                f"{HCCN} -i {dev} -link_stat -g", f"[devid {dev}]current time        : Sat Mar  1 00:20:00 2025",
                f"[devid {dev}]link up count       : 0", f"[devid {dev}]link change records :", ""]
    out += ["/usr/local/bin/npu-smi info -t ecc -i 0", "NPU ID                         : 0",
            f"HBM Single Bit Error Count     : {ce}", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _collection(root: Path, down_after: bool = False) -> Path:
    """Three hosts' environment checks (eight ports UP each; with ``down_after`` port 3 of ``gz-x-n2`` DOWN in its
    after file) and the LCNE log of the L1 chip inside ``gz-x-n2``."""
    for host in ("gz-x-n1", "gz-x-n2", "gz-x-n3"):
        ports = {d: "UP" for d in range(8)}
        _npu_info(root / host / "environment_check/npu_info_before.txt", "before", ports)
        if down_after and host == "gz-x-n2":
            ports[3] = "DOWN"
        _npu_info(root / host / "environment_check/npu_info_after.txt", "after", ports, ce=31)
    chip = root / "lcne_log/gz-x-n2-l1sw2/log.log"
    chip.parent.mkdir(parents=True)
    chip.write_text(ALARM.format(chip="gz-x-n2-l1sw2"), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def _signals(root: Path) -> list[Any]:
    from opsbrain.ingest.text import LineReader
    from opsbrain.ingest.textpaths import ingest_paths

    r = LineReader()
    ingest_paths([str(root)], None, r)
    return r.signals


def test_a_link_state_or_a_counter_of_npu_info_is_no_signal(tmp_path: Path) -> None:
    """Before: 48 ``hccn:up`` signals (one a port a file) and an ``ecc:ce`` from the after files' counters; the
    bundle reader reads them as states and metrics."""
    kinds = [s.kind for s in _signals(_collection(tmp_path / "c"))]
    assert "hccn:up" not in kinds and "ecc:ce" not in kinds, kinds
    assert kinds == ["sw:down"]  # the chip's alarm only


def test_a_port_up_before_and_down_after_is_a_link_down_in_both_modes(tmp_path: Path, engine: Any) -> None:
    from opsbrain.bundle.reader import read_bundle

    root = _collection(tmp_path / "c", down_after=True)
    downs = [s for s in _signals(root) if s.kind == "hccn:down"]
    assert [(s.device, s.file, s.line_no) for s in downs] == [
        (3, "gz-x-n2/environment_check/npu_info_after.txt", 28)], downs  # its link status line
    lines, _rep = read_bundle(root)
    assert sum("LINK DOWN" in ln.text for ln in lines) == 1  # the bundle reader's one record (the shared rule)


def test_a_switch_chip_named_after_a_host_is_that_hosts_in_both_modes(tmp_path: Path, engine: Any) -> None:
    """Before: ``--logs`` named the chip ``gz-x-n2-l1sw2`` as the root host; the bundle reader placed it on
    ``gz-x-n2``."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    root = _collection(tmp_path / "c")
    lg = diagnose_logs(str(root), engine)["diagnosis"]
    b = diagnose_bundle(root, engine, None)["diagnosis"]
    assert lg["root"]["host"] == b["root"]["host"] == "gz-x-n2", (lg["root"], b["root"])
    assert any("gz-x-n2/l1sw2/UB0/0/5" in e for e in lg["evidence"]), lg["evidence"]


def test_the_chip_rule_takes_the_longest_host_and_leaves_other_chips_alone() -> None:
    from opsbrain.ingest.hostnames import chip_host

    assert chip_host("gz-x-n2-l1sw2", ["gz-x", "gz-x-n2", "gz-x-n21"]) == ("gz-x-n2", "l1sw2")
    assert chip_host("gz-l2p0-sw00", ["gz-x-n2"]) is None
    assert chip_host("gz-x-n2", ["gz-x-n2"]) is None  # a host is not its own chip


def test_a_real_bundles_incidents_name_their_hosts_by_the_users_names(tmp_path: Path, engine: Any) -> None:
    """``--json``'s ``incidents[].nodes``: the hosts as the bundle names them; the reader's own numbering of a real
    host (``pod0/node1``) only under ``internal_nodes`` (before: the keys of ``nodes``)."""
    from opsbrain.bundle import diagnose_bundle

    res = diagnose_bundle(_collection(tmp_path / "c"), engine, None)
    inc = next(i for i in res["incidents"] if i["id"] == res["primary"])
    assert inc["nodes"] == ["gz-x-n2"], inc["nodes"]
    assert set(inc["internal_nodes"]) == {"gz-x-n2"} and inc["internal_nodes"]["gz-x-n2"].startswith("pod0/node")


PORT_DOWN = ("2025-03-01 00:10:00.000 {chip} %%01IFNET/2/linkDown_active(l): The interface status changes. "
             "(ifName=UB0/0/{port}, AdminStatus=UP, OperStatus=DOWN)\n")


def _crash(root: Path) -> Path:
    """Host ``gz-x-n3``'s kdump (``crash/<ip>-<time>/vmcore-dmesg.txt``, a panic) and the port toward it down on two
    L2 chips, whose LCNE logs sit in their own folders (chips named by no host)."""
    dump = root / "gz-x-n3/crash/10.0.0.4-2025-03-01-00:10:00/vmcore-dmesg.txt"
    dump.parent.mkdir(parents=True)
    dump.write_text("[ 1800.000000] Kernel panic - not syncing: Fatal machine check\n", encoding="utf-8")
    (root / "gz-x-n3/messages").write_text("Mar  1 00:05:00 gz-x-n3 kernel: [  100.0] eth0: link up\n",
                                           encoding="utf-8")
    for chip in ("gz-l2p0-sw00", "gz-l2p1-sw00"):
        log = root / "lcne_log" / chip / "log.log"
        log.parent.mkdir(parents=True)
        log.write_text(PORT_DOWN.format(chip=chip, port=38), encoding="utf-8")
    return root


def test_a_kdump_is_its_hosts_and_an_l2_chip_no_host_in_both_modes(tmp_path: Path, engine: Any) -> None:
    """Before: ``--logs`` took the dump's folder (``gz-x-n3/crash/10.0.0.4-...``) for a host and an L2 chip's folder
    for another, and a node crash's root was the chip ``gz-l2p0-sw00`` (its links' near end)."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.ingest.where import node_of
    from opsbrain.ingest.workers import host_root

    assert host_root("gz-x-n3/crash/10.0.0.4-2025-03-01-00:10:00/vmcore-dmesg.txt")[0] == "gz-x-n3"
    assert node_of("gz-l2p0-sw00/UB0/0/38~peer") is None  # a chip's own port: the chip is no node
    assert node_of("gz-x-n2/l1sw2/UB0/0/5~L2") == "gz-x-n2"  # an L1 chip placed in its host
    root = _crash(tmp_path / "c")
    lg = diagnose_logs(str(root), engine)["diagnosis"]
    b = diagnose_bundle(root, engine, None)["diagnosis"]
    assert lg["root"]["host"] == b["root"]["host"] == "gz-x-n3", (lg["root"], b["root"])
    assert lg["fault_class"] == b["fault_class"] == "node_crash", (lg["fault_class"], b["fault_class"])
