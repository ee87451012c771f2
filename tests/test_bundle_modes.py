"""``diagnose --bundle`` and ``diagnose --logs`` on the same files: the same evidence, the same answer; and the
text answer of a bundle says what it did not read or list (session 32, tester BJ).

Every input is written here (hand-made plog lines in the format the HCCL runtime writes; a vendor graph entry with
our own words), never copied from ../shared."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

RUN = ("[INFO] HCCL({pid},python3):2026-03-02-08:00:01.000.100 [topoinfo_detect.cc:506] [{pid}][HCCL_TRACE][Flat]"
       "SetupAgent rankNum[3], rank[{rank}], rootInfo identifier[10.9.0.1%eth0_60000_0_1], server[{ip}%eth0], "
       "serverPort[60000]deviceType[{rank}], logicDevId[{rank}], phydevId[{rank}], deviceIp[10.8.0.{rank}]\n")
RECV = ("[ERROR] HCCL(77,python3.8):2026-03-02-{hh}:10:00.000.100 [adapter_hccp.cc:1357] [5][Recv][RaSocket]"
        "errNo[0x000000000500000d] recv fail, data[0xffff0000], size[100]\n")
INIT = ("[ERROR] HCCL(77,python3.8):2026-03-02-09:10:00.000.300 [transport_manager.cc:777] [5][Create][DestLink]"
        "Transport init error! createLink para:rank[{rank}]-localUserrank[{rank}]-localIpAddr[], dst_rank[{dst}]-"
        "remoteUserrank[{dst}]-remoteIpAddr[{rip}], machineType[1],\n"
        "[ERROR] HCCL(77,python3.8):2026-03-02-09:10:00.000.400 [transport_manager.cc:247] [5][Create]"
        "errNo[0x0000000005000006] transport create fail in thread, local rank[{rank}] remote rank[{dst}]\n")


def _write(p: Path, text: str) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def _chain(root: Path, names: tuple[str, ...] = ("worker-0", "worker-1", "worker-2")) -> Path:
    """Three workers of one job: the third waits on the second, the second on the first (the root), whose only line
    is a socket receive failure stamped after the others' (a host clock an hour behind puts the waiters' first)."""
    ips = ["10.9.0.1", "10.9.0.2", "10.9.0.3"]
    for w, name in enumerate(names):
        pid = 500 + w
        _write(root / f"{name}/process_log/run/plog/plog-{pid}_1.log", RUN.format(pid=pid, rank=w, ip=ips[w]))
        err = RECV.format(hh="09" if w == 0 else "08")
        if w:
            err += INIT.format(rank=w, dst=w - 1, rip=f"{ips[w - 1]}/{w - 1}")
        _write(root / f"{name}/process_log/debug/plog/plog-{pid}_2.log", err)
    return root


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    """The shipped engine; a matcher with one imported vendor entry (an HCCL socket family id, our own words)."""
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb
    from opsbrain.kb.training import load_engine

    d = tmp_path_factory.mktemp("kg")
    graph = {"AISW_CANN_HCCL_018": {"attribute": {"cause_en": "A socket receive failed", "class": "Software",
                                                  "description_en": "A socket receive between ranks failed"},
                                    "regex": {"in": ["recv fail"]}}}
    (d / "kg.json").write_text(json.dumps({"knowledge-repository": graph}), encoding="utf-8")
    import_kg(d / "kg.json", d)
    return load_engine(), SignatureMatcher(load_kb(), load_imported(d))


@pytest.mark.parametrize("names", [("worker-0", "worker-1", "worker-2"), ("worker-9", "worker-1", "worker-2")])
def test_the_same_files_weigh_the_same_vendor_entries_in_both_modes(tmp_path: Path, tools: Any,
                                                                     names: tuple[str, ...]) -> None:
    """The entry matched every worker's socket line; the root's own is counted wherever the reader met the entry
    first (the bundle reads in time order, ``--logs`` in path order: worker-9's file is read last)."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.diagnosis.oneclick import diagnose_logs

    engine, matcher = tools
    root = _chain(tmp_path / "job", names)
    b = diagnose_bundle(root, engine, matcher)["diagnosis"]
    lg = diagnose_logs(str(root), engine, matcher)["diagnosis"]
    assert lg["root"]["host"] == names[0] and b["root"]["host"] == names[0]
    assert b["fault_class"] == lg["fault_class"] == "collective_timeout_sw"
    for d in (b, lg):  # the vendor entry on the root's own line counts in both modes' root cluster
        assert "documented signatures" in d["root_cluster"]["class_from"], d["root_cluster"]["class_from"]
    assert b["confidence"] == pytest.approx(lg["confidence"], abs=0.02)


@pytest.mark.parametrize("archive", [False, True])
def test_a_collection_below_wrapper_directories_is_read_as_without_them(tmp_path: Path, tools: Any,
                                                                         archive: bool) -> None:
    """Twelve directories whose only entry is the next (where a collection was unpacked) are no levels of the
    collection: its plogs are read, as ``--logs`` reads them, and the answer is the unwrapped bundle's. Before,
    every file was refused as deeper than 10 levels and the answer was "no fault found"."""
    import tarfile

    from opsbrain.bundle import diagnose_bundle

    engine, matcher = tools
    plain = diagnose_bundle(_chain(tmp_path / "plain"), engine, matcher)
    deep = tmp_path.joinpath("wrapped", *[f"w{i}" for i in range(12)])
    _chain(deep)
    path = tmp_path / "wrapped"
    if archive:
        path = tmp_path / "wrapped.tar.gz"
        with tarfile.open(path, "w:gz") as tf:
            tf.add(tmp_path / "wrapped", arcname="wrapped")
    rep = diagnose_bundle(path, engine, matcher)
    assert rep["refused"] == []
    assert rep["files"] == plain["files"] and rep["files"]["read"] == 6 and rep["lines"] == plain["lines"]
    assert rep["diagnosis"]["fault_class"] == plain["diagnosis"]["fault_class"] == "collective_timeout_sw"
    assert rep["diagnosis"]["root"] == plain["diagnosis"]["root"]


def test_a_deep_folder_beside_others_is_still_refused(tmp_path: Path, tools: Any) -> None:
    """The wrappers are only the chain from the bundle's root: a folder twelve levels down beside the workers is
    deeper than the limit, refused as before."""
    from opsbrain.bundle import diagnose_bundle

    engine, matcher = tools
    root = _chain(tmp_path / "job")
    deep = root.joinpath(*[f"d{i}" for i in range(12)])
    _write(deep / "messages", "Mar  1 10:00:00 h kernel: Kernel panic - not syncing\n")
    rep = diagnose_bundle(root, engine, matcher)
    assert any("deeper than 10" in x["reason"] for x in rep["refused"])


SWITCH_ALARM = ("[WARN]     2026/03/02 08:20:00.000000 17      deviceswitch/ascend_switch.go:174    switch subscribe "
                "got fault:AlarmId: 0x08520003, FaultID: na, AssembledFaultCode: [0x08520003,na,L2,na], "
                "PeerPortDevice: 1, PeerPortId: 0, SwitchChipId: 1, SwitchPortId: 3, Assertion: 1, "
                "AlarmRaisedTime: 1772439600000,\n")


def test_a_documented_alarm_without_an_incident_is_no_no_fault_found(tmp_path: Path, tools: Any) -> None:
    """A device plugin's one switch alarm (a warning: the detector opens no incident) is a signal the knowledge
    base documents: the headline is the engine's verdict on it, as under ``--logs``, not "no known fault signal"
    above the matches of that very code."""
    from opsbrain.bundle import diagnose_bundle

    engine, matcher = tools
    _write(tmp_path / "b" / "gz-x-n7/dl_log/devicePlugin/devicePlugin.log", SWITCH_ALARM)
    rep = diagnose_bundle(tmp_path / "b", engine, matcher)
    assert rep["signals"] == 1 and rep["incidents"] == []
    assert any(k["code"] and "0x08520003" in k["code"] for k in rep["knowledge"])
    d = rep["diagnosis"]
    assert not any("no known fault signal" in e for e in d["evidence"]), d["evidence"]
    assert d["root"]["host"] == "gz-x-n7"
    assert any("knowledge base recognises" in e for e in d["evidence"]) or d["fault_class"] != "unknown"
    assert [e["line"] for e in d["evidence_lines"]] == [1]


def test_a_documented_alarm_without_an_incident_written_again_says_how_often(tmp_path: Path, tools: Any) -> None:
    """Review 36: the no-incident verdict's evidence row of a line written several times in a row (folded at reading)
    says how many times, as an incident's does (before, it built its rows by hand and dropped ``repeats``)."""
    from opsbrain.bundle import diagnose_bundle

    engine, matcher = tools
    _write(tmp_path / "b" / "gz-x-n7/dl_log/devicePlugin/devicePlugin.log", SWITCH_ALARM * 3)
    rep = diagnose_bundle(tmp_path / "b", engine, matcher)
    assert rep["incidents"] == []
    assert [(e["line"], e.get("repeats")) for e in rep["diagnosis"]["evidence_lines"]] == [(1, 3)]


def test_a_bundle_without_any_signal_is_still_no_fault_found(tmp_path: Path, tools: Any) -> None:
    from opsbrain.bundle import diagnose_bundle

    engine, matcher = tools
    _write(tmp_path / "b" / "gz-x-n7/process_log/run/plog/plog-500_1.log", RUN.format(pid=500, rank=0, ip="10.9.0.1"))
    d = diagnose_bundle(tmp_path / "b", engine, matcher)["diagnosis"]
    assert d["fault_class"] == "unknown" and any("no known fault signal" in e for e in d["evidence"])


def test_the_text_answer_says_how_many_knowledge_matches_it_left_out(tmp_path: Path, tools: Any,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Twelve imported entries match (a graph entry has no handling level): the text lists 8, says "... and 4 more
    (--json lists all)", and prints no ``[None]`` (before: 8 listed, the rest dropped silently, ``[None]`` each)."""
    from opsbrain.cli.diagnose_cmd import _diagnose_bundle
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb

    engine, _ = tools
    graph = {f"AISW_ZQX_Test_{n:02d}": {"attribute": {"cause_en": f"Marker {n} seen", "class": "Software",
                                                      "description_en": f"Marker {n} seen"},
                                        "regex": {"in": [f"zqx marker {n:02d}"]}} for n in range(12)}
    (tmp_path / "kg.json").write_text(json.dumps({"knowledge-repository": graph}), encoding="utf-8")
    import_kg(tmp_path / "kg.json", tmp_path / "imp")
    matcher = SignatureMatcher(load_kb(), load_imported(tmp_path / "imp"))
    text = "".join(f"[ERROR] HCCL(77,python3.8):2026-03-02-09:10:{n:02d}.000.100 [x.cc:1] [5]zqx marker {n:02d}\n"
                   for n in range(12))
    _write(tmp_path / "b" / "gz-x-n7/process_log/debug/plog/plog-500_2.log", text)
    _diagnose_bundle(str(tmp_path / "b"), engine, matcher, False)
    out = capsys.readouterr().out
    assert sum(1 for ln in out.splitlines() if ln.startswith(("  vendor: AISW_ZQX", "  kb: "))) == 8, out
    assert "  ... and 4 more knowledge matches (--json lists all)" in out
    assert "[None]" not in out
