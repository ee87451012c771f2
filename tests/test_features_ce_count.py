"""The HBM correctable-error count an operator reads (npu-exporter, npu-smi) reaches the features: a storm and a
benign burst print the same report line, and their counters tell them apart."""

from __future__ import annotations

from faultlib.injection.spec import FaultSpec
from faultlib.telemetry import formats as fmt
from faultlib.topology import Topology
from opsbrain.diagnosis.features import ce_magnitude, incident_features
from opsbrain.ingest import Signal
from opsbrain.kb import cases as case_lib

NPU = "pod0/node40/npu3"


def _report(t: float) -> Signal:
    return Signal(t, f"dev:{fmt.HBM_CE_CODE}", NPU, NPU, 1, "")


def test_ce_magnitude_is_the_count_in_factors_of_two() -> None:
    assert [ce_magnitude(n) for n in (0, 1, 2, 3, 20, 150, 450, 900)] == [0, 1, 1, 2, 4, 7, 8, 9]
    assert ce_magnitude(-5) == 0  # a counter reset or a missing reading never goes below nothing


def test_the_counter_tells_a_storm_from_a_burst_and_a_text_view_has_no_counter() -> None:
    def reader(count: float):  # type: ignore[no-untyped-def]
        return lambda name, comp: count if (name, comp) == ("hbm_ce_total", NPU + "/hbm") else None

    burst = incident_features([_report(10.0)], 12.0, metric=reader(20.0))
    storm = incident_features([_report(10.0)], 12.0, metric=reader(450.0))
    assert (burst["hbm_ce_log2"], storm["hbm_ce_log2"]) == (4.0, 8.0)
    assert {k: v for k, v in burst.items() if k != "hbm_ce_log2"} == {k: v for k, v in storm.items()
                                                                        if k != "hbm_ce_log2"}
    assert "hbm_ce_log2" not in incident_features([_report(10.0)], 12.0)  # pasted text: no metrics


def test_a_faster_storm_counts_more_by_its_first_reports() -> None:
    topo = Topology.build()

    def count_at_first_report(rate: float) -> float:
        sim = case_lib.build_world(4, topo)
        sim.inject(FaultSpec(at_s=100.0, kind="hbm_ce_storm", target=NPU + "/hbm", params={"rate_per_s": rate}))
        sim.run(100.0 + 300.0 + 1.0)  # five minutes in (the first reports come sooner the faster the storm)
        return float(sim.telemetry.read("hbm_ce_total", NPU + "/hbm") or 0.0)

    slow, fast = count_at_first_report(0.2), count_at_first_report(1.5)
    assert ce_magnitude(slow) < ce_magnitude(fast)
