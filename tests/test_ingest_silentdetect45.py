"""Readings added after session 45's tester45i (fail-slow, NaN and silent corruption, unseen public text):
MindSpore's combined feature-value + CheckSum silent detection and the SoC check-sensor event it raises. Every line
is copied from the source its comment names."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.diagnosis.knowledge import documented_rows
from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_mindspore_silent_detector_warnings_read_as_the_silent_check() -> None:
    # MindSpore "Feature Value Detection" tutorial (mindspore-ai/docs tutorials/source_en/debug/sdc.md, combined
    # detection): "The keyword for feature value detection anomalies is 'Silent detect strike'"
    strike = ("[WARNING] DEBUG(2950752,fffee7e591e0,python):2025-08-26-10:46:26.665.782 "
              "[mindspore/ccsrc/tools/silent_detect/silent_detector.cc:109] SilentDetect] Silent detect strike "
              "detected: StrikeRecord{timestamp: 1756176386, name: fc1.weight, value: inf, stat: StatData{avg: "
              "6.44326e+12, pre_value: 6.441e+14, count: 6, none_zero_count: 6}}")
    assert "sdc:silent_check" in kinds(strike)
    # the other keywords the tutorial names, as silent_detector.cc (mindspore ccsrc/tools/silent_detect) logs them
    # at WARNING: the strike-out that starts CheckSum, and the rank whose MatMul CheckSum failed
    for said in ("Feature value detection strikes out on rank 2, strikes_num: 1, CheckSum will be enabled globally.",
                 "CheckSum detects MatMul error on rank 2"):
        assert "sdc:silent_check" in kinds(f"[WARNING] DEBUG(1,f,python):2025-08-26-10:47:28.934.305 {said}"), said
    # the global result line reads nothing by itself: 0 is no rank found a MatMul error (silent_detector.cc DoCheckSum)
    done = ("[WARNING] DEBUG(2950752,fffda37fe1e0,python):2025-08-26-10:47:28.934.305 "
            "[mindspore/ccsrc/tools/silent_detect/silent_detector.cc:316] DoCheckSum] Global CheckSum result is 0")
    assert "sdc:silent_check" not in kinds(done)


def test_the_feature_value_check_event_80818C00_is_a_documented_device_code(tmp_path: Path, engine: Any) -> None:
    # the tutorial's "Abnormal Detection Results": Error Code 80818C00, node type=SoC, sensor type=Check Sensor,
    # event state=check fail; the npu-smi health field with that code reads as the class the tutorial describes
    from opsbrain.diagnosis.oneclick import diagnose_logs

    rows = {str(r.get("code")): r for _, r in documented_rows()}
    assert rows["80818C00"]["category"] == "silent_check"
    f = tmp_path / "health.log"
    f.write_text("Error Code : 80818C00\n")
    assert diagnose_logs(str(f), engine)["diagnosis"]["fault_class"] == "silent_data_corruption"
