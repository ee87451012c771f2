"""``aicore`` inside a path or file name is no AI Core exception (session 45, tester45f).

CANN's fusion engine loads its pass libraries at GE initialisation; when the toolkit is incomplete it reports
``[FEInit][OpPluginSo] Fail to load so file <path>, error message is <dlerror>.`` (FE PluginManager::OpenPlugin).
One of those libraries is ``opp/fusion_pass/built_in/libops_fusion_pass_aicore.so``: Paddle-Lite#10417's GE init
read ``rt:aicore_exception`` from the file name and the word ``error`` later on the line.
"""

from __future__ import annotations

from opsbrain.ingest.parsers import parse_line

# https://github.com/PaddlePaddle/Paddle-Lite/issues/10417 (Ascend 310, CANN 5.0.4.alpha005)
FE_LOAD = ('[ERROR] FE(7924,demo):2023-04-05-07:55:43.928.710 [plugin_manager.cc:62]7924 OpenPlugin:"[FEInit]'
           "[OpPluginSo] Fail to load so file /usr/local/Ascend/ascend-toolkit/5.0.4.alpha005/arm64-linux/opp/"
           'fusion_pass/built_in/libops_fusion_pass_aicore.so, error message is (null)."')
FE_PASS = ('[ERROR] FE(7924,demo):2023-04-05-07:55:43.928.827 [fusion_pass_manager.cc:164]7924 OpenPassPath:'
           '"[GraphOpt][Init][OpenPassPath] Failed to open the fusion pass so [/usr/local/Ascend/ascend-toolkit/'
           '5.0.4.alpha005/arm64-linux/opp/fusion_pass/built_in/libops_fusion_pass_aicore.so]."')


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_a_library_named_aicore_is_no_aicore_exception() -> None:
    assert "rt:aicore_exception" not in kinds(FE_LOAD)
    assert "rt:aicore_exception" not in kinds(FE_PASS)


def test_aicore_exceptions_keep_their_reading() -> None:
    # hicann/runtime device_error_proc: the AI Core exception lines as CANN prints them
    for line in (
        "[ERROR] RUNTIME(1567697,python3):2026-03-28-11:32:18.888.239 [davinci_kernel_task.cc:1639]1568661 "
        "PrintErrorInfoForDavinciTask:[DFX_INFO]Aicore kernel execute failed, device_id=0, stream_id=70, "
        "report_stream_id=73, task_id=0, flip_num=0, fault kernel_name=te_superkernel_911c4c52, error",
        "EZ9999: The error from device(chipId:5, dieId:0), serial number is 11, there is an aicore error, core id is 2",
        "The error from device(6), serial number is 13, there is an aivec error, core id is 5, error code = 0x10",
    ):
        assert "rt:aicore_exception" in kinds(line), line
