"""Logs saved in other encodings than UTF-8 (opsbrain.ingest.encoding): UTF-16 with its BOM (PowerShell's ``>``),
GB18030 / GBK (a Chinese-locale Windows' "ANSI"). Their text is read, not replaced by U+FFFD, and the answer says
how."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain.ingest.encoding import decode, decoded_lines, sniff

TOOLKIT = "光模块光功率异常，RX功率-18.5dBm低于阈值-15dBm"  # MindCluster FaultDiag toolkit's verdict (tk:optical_power)
LINES = ["[INFO] 2025-03-01 10:00:00 开始检测 device 3", TOOLKIT, "检测完成"]


@pytest.mark.parametrize(("data", "codec"), [
    (b"plain ascii\n", "utf-8"),
    ("\n".join(LINES).encode("utf-8"), "utf-8"),
    ("\n".join(LINES).encode("utf-8")[:-1] + b"\xff" + "完成".encode(), "utf-8"),  # one damaged byte: still UTF-8
    ("caf\u00e9 cr\u00e8me\n".encode("latin-1"), "utf-8"),  # not Chinese: UTF-8, the bytes replaced
    ("\n".join(LINES).encode("gbk"), "gb18030"),
    ("\n".join(LINES).encode("gb18030"), "gb18030"),
    (("[INFO] RUNTIME(1,python):2025-03-01-10:00:00.000.000 [x.cc:1] step ok\n" * 9
      + "[ERROR] 设备内存不足\n").encode("gbk"), "gb18030"),  # mostly ASCII, one Chinese line in ten
    (b"\xff\xfe" + "\n".join(LINES).encode("utf-16-le"), "utf-16-le"),
    (b"\xfe\xff" + "\n".join(LINES).encode("utf-16-be"), "utf-16-be"),
    ("\n".join(LINES).encode("utf-16-le"), "utf-16-le"),  # no BOM (PowerShell's Out-File -Encoding Unicode ...)
    ("\n".join(LINES).encode("utf-16-be"), "utf-16-be"),
    (b"\xff\xfe" + random.Random(0).randbytes(4096), "utf-8"),  # binary that only starts like a BOM: not text
    (b"\xff\xfe" + "ok\n".encode("utf-16-le") + b"\x00\xd8A\x00", "utf-8"),  # a broken surrogate pair
])
def test_the_encoding_is_told_from_the_first_bytes(data: bytes, codec: str) -> None:
    assert sniff(data) == codec
    if codec != "utf-8":
        text = decode(data)
        assert "\ufffd" not in text and (text.split("\n") == LINES or text.endswith("设备内存不足\n"))

@pytest.mark.parametrize("line", [
    "[ERROR] 2025-01-01 デバイス 3 のメモリエラーが発生しました HBM ECC",
    "[ERROR] 장치 3에서 메모리 오류가 발생했습니다 HBM ECC 오류",
    "[ERROR] Ошибка памяти на устройстве 3: HBM ECC, многобитная",
    "[ERROR] Fehler: Gerät 3 – Speicherfehler „HBM“ äöüß",
], ids=["japanese", "korean", "russian", "german"])
def test_utf16_text_of_any_one_script_is_text(line: str) -> None:
    """A UTF-16 log in another language than Chinese or English (session 26: Japanese, Korean and Russian ones went
    to the binary checks, their lines lost)."""
    body = ((line + "\n") * 20).encode("utf-16-le")
    assert sniff(b"\xff\xfe" + body) == "utf-16-le"


@pytest.mark.parametrize("seed", range(20))
def test_random_bytes_behind_a_bom_are_no_text(seed: int) -> None:
    assert sniff(b"\xff\xfe" + random.Random(seed).randbytes(4096)) == "utf-8"



@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(list("ab 1\u4e2d\u6587\uff0c-")), max_size=12), min_size=1,
                max_size=8), st.sampled_from(["gb18030", "utf-16-le"]), st.lists(st.integers(1, 7), max_size=20))
def test_lines_split_across_chunks_come_out_whole(lines: list[str], codec: str, cuts: list[int]) -> None:
    data = (b"\xff\xfe" if codec == "utf-16-le" else b"") + "\n".join(lines).encode(codec)
    chunks, at = [], 0
    for c in cuts:
        chunks.append(data[at:at + c])
        at += c
    chunks.append(data[at:])
    got = list(decoded_lines(iter(chunks), codec, 1 << 20))
    want = "\n".join(lines).split("\n")
    assert got == (want if want[-1] else want[:-1])


@pytest.mark.parametrize("codec", ["gbk", "utf-16"])
def test_a_log_in_another_encoding_is_diagnosed_from_its_words(tmp_path: Path, codec: str) -> None:
    from opsbrain.cli import cli

    f = tmp_path / f"toolkit-{codec}.txt"
    f.write_bytes("\n".join(LINES).encode(codec))  # Python's utf-16 writes the BOM, as PowerShell does
    out = CliRunner().invoke(cli, ["diagnose", "--logs", str(f), "--json", "--data-dir", str(tmp_path / "d")])
    assert out.exit_code == 0, out.output
    rep = json.loads(out.output)
    assert rep["diagnosis"]["fault_class"] == "optical_degradation"
    assert any(TOOLKIT in ev["text"] for ev in rep["diagnosis"]["evidence_lines"])
    assert any("read as" in n for n in rep["input"]["notes"])


def test_a_bundle_file_in_another_encoding_is_read(tmp_path: Path) -> None:
    from opsbrain.bundle.diagnose import diagnose_bundle
    from opsbrain.kb.training import load_engine

    w = tmp_path / "b" / "worker-0"
    w.mkdir(parents=True)
    (w / "rank-0.log").write_bytes("\n".join(LINES).encode("utf-16"))
    (w / "rank-1.log").write_bytes("\n".join(LINES).encode("gbk"))
    rep = diagnose_bundle(tmp_path / "b", load_engine())
    assert rep["diagnosis"]["fault_class"] == "optical_degradation"
    assert not rep["skipped"] and not rep["refused"]


@pytest.mark.parametrize("seed", range(10))
def test_binary_with_nuls_is_no_bomless_utf16(seed: int) -> None:
    rng = random.Random(seed)
    data = bytes(b if rng.random() < 0.5 else 0 for b in rng.randbytes(4096))  # NULs on both halves
    assert sniff(data) == "utf-8"  # (left to the binary checks)
