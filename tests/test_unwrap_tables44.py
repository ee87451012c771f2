"""A table without borders whose rows are padded to exactly 80 columns is no terminal's wrapped paste (session 44).

The rows are a Huawei switch's ``display interface brief`` in MindCluster's public switch-log sample
(Ascend/mind-cluster
@22bb3d98, docs/zh/resource/switch_logs/diagnostic_information_NAME-D01-XX.224_20260327113617.zip), before the port's
``display interface transceiver verbose``: read as one wrapped line, the transceiver head after them was lost and a
lane beyond its TX threshold (7.98 dBm > 7.00 dBm) gave no signal."""

from opsbrain.ingest.pasterows import unwrap, wrapped_paste

TABLE = ["Interface                  PHY      Protocol  InUti OutUti   inErrors  outErrors",
         "400GE1/0/25                up       up        0.01%  0.01%          0          0",
         "400GE1/0/27                up       up        0.01%  0.01%          0          0",
         "400GE1/0/29                up       up        0.01%  0.01%          0          0",
         " 400GE1/0/25 transceiver information:"]
CUT = ["[ERROR] RUNTIME(3813,python3):2025-01-10-17:53:52.846.403 [device_error_proc.cc:14",
       "09] 3813 ProcessStarsCoreErrorInfo:[INIT][DEFAULT]report error module_type=5, modul",
       "e_name=EZ9999"]


def test_a_padded_table_is_no_wrapped_paste_and_keeps_its_rows() -> None:
    assert all(len(t) == 80 for t in TABLE[:4])
    assert not wrapped_paste(TABLE)
    assert [t for _n, t in unwrap(TABLE, 10_000)] == TABLE


def test_a_terminal_cut_is_still_joined() -> None:
    cut = [t[:80] for t in CUT]
    assert all(len(t) == 80 for t in cut[:2])
    assert wrapped_paste(cut)
    assert [t for _n, t in unwrap(cut, 10_000)] == ["".join(cut)]
