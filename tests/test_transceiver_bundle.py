"""``diagnose --bundle`` reads an optical lane's power against the dump's own thresholds as ``--logs`` does (session 44,
optbundle44): the same files give the same ``tk:optical_power`` signals both ways (opsbrain/ingest/transceivers.py,
one scanner for both readers).

The bundles are built from the documented layouts (docs/bundles.md): ascend-fd's ``environment_check/worker-N/
npu_info_after.txt`` (``Datetime:`` first, each command with its full path, as ascend-fd's st_testcase fixtures
write it) and its LCNE folder's ``diag_display_info.txt`` ("LCNE SuperPoD information": Ascend/mind-cluster @22bb3d98,
docs/en/faultdiag/user_guide/03_collecting_logs.md, "LCNE log directory structure", and parser_saver.py
``DIAG_DISPLAY_INFO_KEY``), the MindCluster switch_logs sample's name for it being ``diag_display_info_224.txt``. The
readout lines are tests/test_transceiver_power.py's, each quoted there with its source: the switch_logs sample's
400GE1/0/25 (TX lane 0 at 7.98 dBm over 7.00) and its ``sysname NAME-D01-XX.224``, and ascend-fd's
``hccn_tool -i 0 -optical -g`` fixture (its ``present : not present`` taken off in ``PRESENT``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.bundle import diagnose_bundle
from opsbrain.bundle.reader import real_nodes, scan_bundle, signals_of
from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest import ingest_text
from tests.test_transceiver_power import CE_224, HCCN, PRESENT

KIND = "tk:optical_power"
STAMP = "Datetime: 2026-03-27 11:36:17.000000\n"  # (the collection script's first line, ascend-fd's fixtures)
SWITCH = "#\nsysname NAME-D01-XX.224\n#\n" + CE_224  # (display current-configuration's sysname, then the dump)


def _bundle(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _power(root: Path) -> list[tuple[str | None, int, int | None, str, str, int]]:
    """The bundle's optical-power signals: (component, severity, device, text, file, line)."""
    r = scan_bundle(root)
    sigs, where = signals_of(r.lines, r.placement, None, real_nodes(r.report["workers"]), r.chips, r.optics)
    return [(s.component, s.severity, s.device, s.text, r.lines[where[id(s)]].file, r.lines[where[id(s)]].line)
            for s in sigs if s.kind == KIND]


def _logs(text: str) -> list[tuple[int, str]]:
    """The same file's optical-power signals under ``--logs``: (line, text)."""
    return [(s.line_no, s.text) for s in ingest_text(text, "f.txt")[0] if s.kind == KIND]


def test_an_npu_port_over_its_threshold_in_an_npu_info_file(tmp_path: Path) -> None:
    text = STAMP + PRESENT
    got = _power(_bundle(tmp_path, {"environment_check/worker-0/npu_info_after.txt": text}))
    assert [(c, sev, dev) for c, sev, dev, *_ in got] == [("pod0/node0/npu0", 2, 0)], got
    assert [(line, t) for *_, t, _f, line in got] == _logs(text) == [(6, "Tx Power0            : 4.4035 mW")]


def test_a_switch_dump_in_the_lcne_folder_is_read_and_its_port_placed(tmp_path: Path) -> None:
    rel = "lcne_log/NAME-D01-XX.224/diag_display_info.txt"
    got = _power(_bundle(tmp_path, {rel: SWITCH}))
    assert [(c, sev, f) for c, sev, _d, _t, f, _n in got] == [("NAME-D01-XX.224/400GE1/0/25~peer", 2, rel)], got
    assert [(line, t) for *_, t, _f, line in got] == _logs(SWITCH)


def test_the_sample_s_own_file_name_and_a_dump_without_its_sysname(tmp_path: Path) -> None:
    got = _power(_bundle(tmp_path, {"lcne_log/NAME-D01-XX.224/diag_display_info_224.txt": CE_224}))
    assert [c for c, *_ in got] == ["NAME-D01-XX.224/400GE1/0/25~peer"], got  # the folder names the switch


def test_both_devices_of_one_file_with_the_same_reading(tmp_path: Path) -> None:
    text = STAMP + PRESENT + "\n" + PRESENT.replace("-i 0 ", "-i 1 ") + "\n"  # (one file: two ports' answers)
    got = _power(_bundle(tmp_path, {"environment_check/worker-0/npu_info_after.txt": text}))
    assert [(c, dev) for c, _s, dev, *_ in got] == [("pod0/node0/npu0", 0), ("pod0/node0/npu1", 1)], got
    assert len(_logs(text)) == 2


def test_a_module_not_present_gives_nothing_on_either_path(tmp_path: Path) -> None:
    text = STAMP + HCCN
    assert _power(_bundle(tmp_path, {"environment_check/worker-0/npu_info_after.txt": text})) == []
    assert _logs(text) == []


def test_diagnose_bundle_answers_as_diagnose_logs(tmp_path: Path, engine: Any, vendor_matcher: Any) -> None:
    """With a matcher, as the CLI reads: the reader keeps a record only of the lines a parser or the matcher may use
    (``keep``), and an optical lane's line is none of them."""
    for name, files in (("npu", {"environment_check/worker-0/npu_info_after.txt": STAMP + PRESENT}),
                        ("sw", {"lcne_log/NAME-D01-XX.224/diag_display_info.txt": SWITCH}),
                        ("console", {"worker-0/rank-0.log": "[rank0] switch check:\n" + SWITCH})):
        root = _bundle(tmp_path / name, files)
        for matcher in (None, vendor_matcher):
            bundle = diagnose_bundle(root, engine, matcher)["diagnosis"]
            logs = diagnose_logs(str(root), engine, matcher)["diagnosis"]
            assert bundle["fault_class"] == logs["fault_class"] == "optical_degradation", (name, bundle, logs)
