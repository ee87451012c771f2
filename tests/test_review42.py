"""Session 42 review (review42): bugs found in the session's merged work, each test failing before its fix."""

from __future__ import annotations

from typing import Any

import pytest

from opsbrain.ingest.exporterpage import page_signals

PAGE = ["# HELP machine_npu_nums x", "# TYPE machine_npu_nums gauge", "machine_npu_nums 8",
        "machine_unhealthy_npu_nums {}", 'npu_chip_info_health_status{{id="0"}} 0']


@pytest.mark.parametrize("value", ["NaN", "+Inf", "-Inf"])
def test_a_page_of_no_node_with_a_summary_that_is_no_count_is_read(value: str) -> None:
    # a NaN summary made the whole page "not the Prometheus text format" (int(nan): ValueError) and +Inf crashed
    # diagnose (int(inf): OverflowError); the text format allows both values (Prometheus docs, "Exposition formats")
    lines = [x.format(value) for x in PAGE]
    out, note = page_signals(lines, None, "m.prom", 0.0)
    assert [s.kind for s in out] == ["smi:alarm"]
    assert "machine_unhealthy_npu_nums" not in note


def test_the_950_hccn_tool_s_no_address_answer_is_a_setting() -> None:
    # the Ascend 950 hccn_tool words the same error "Get ip failed" (not 910B's "Get ipconf failed"):
    # https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/src/custom/network/hccn/
    # ascend950/hccn_tool/tool_cmd_err.c, DEV_EXE_IP_ADDRESS_NOT_PRESET_ERR
    from tests.test_tester40b import kinds

    assert kinds("hccn_tool -i 2 -ip -g Get ip failed, because no ip was preset there!\n") == ["cfg:env"]


def test_a_page_whose_only_summary_is_the_unknown_count_is_read() -> None:
    # port_state and merge read machine_unknown_npu_nums alone (a Warning on the node); read_anything and fed_checks
    # did not, so a sweep of such a page was refused as "no npu-exporter series" while the unhealthy count alone was
    # read (collector_for_npu.go machineUnknownDesc, Ascend/mind-cluster)
    from opsbrain.sources.exporter import parse_page
    from opsbrain.sources.readings import fed_checks, read_anything

    for name in ("machine_unhealthy_npu_nums", "machine_unknown_npu_nums"):
        r = parse_page(f'{name}{{instance="n1"}} 2\n', now=1.7e9)
        assert read_anything(r), name
        assert "npu_count" in fed_checks(r), name


def test_a_word_and_a_long_run_of_blanks_is_told_from_a_page_at_once() -> None:
    # the cut-line regex tried a name, then a run of blanks, in cubic time: a two-line text whose last line is a
    # word, 4000 blanks and more words took 2.5 minutes in diagnose (is_exporter_page); the same lines match now
    import time

    from opsbrain.ingest.exporterpage import RE_CUT, is_exporter_page

    t0 = time.perf_counter()
    assert not is_exporter_page(["npu_chip_info_health_status 1", "x" + " " * 1500 + "Unexpected Exception Raised"])
    assert time.perf_counter() - t0 < 0.5
    for cut in ['npu_chip_info_health_status{id="0"', "npu_chip_info_health_status 1 ", "machine_npu_nums 8 -",
                "machine_npu_nums 8 17236", "machine_npu_nums", "machine_npu_nums{} 8"]:
        assert RE_CUT.match(cut), cut
    assert not RE_CUT.match("machine_npu_nums 8 x")


def test_a_restart_that_began_with_the_part_only_degraded_does_not_cover_it(topo1: Any) -> None:
    """The in-place recovery's cover (WorkloadActions._covering, session 42) needs the part out of service when the
    restart began (docs/recovery.md: "began with this response's part already out of service"); a DEGRADED link (up,
    at reduced capacity, carrying traffic: faultlib.health.UP) was counted too, as any health but HEALTHY was."""
    from faultlib.control import ActionResult
    from faultlib.engine import Simulation
    from faultlib.health import Health
    from opsbrain.recovery import Orchestrator, load_runbooks
    from opsbrain.recovery.record import IncidentRecord
    from opsbrain.recovery.targets import Context

    sim = Simulation(seed=1, topology=topo1)
    ex = Orchestrator(sim, load_runbooks()).exec
    degraded, dead = sim.fabric.node_uplinks(sim.topology.nodes()[0])[:2]
    sim.state.set_health(degraded, Health.DEGRADED, "test: reduced capacity")
    sim.state.set_health(dead, Health.FAILED, "test: dark")
    env = sim.env

    def restart() -> Any:
        yield env.timeout(5)
        return ActionResult("restart_process", "llm", "succeeded", 0.0, float(env.now))

    ex._one_restart_at_a_time("restart_process", "llm", lambda: True, lambda: env.process(restart()))
    sim.run(10)
    rec = IncidentRecord("i2", "opsbrain", False, 1.0, None)
    assert ex._covering("llm", Context(sim, dead), rec) == "-"  # out of service at its start: covered
    assert ex._covering("llm", Context(sim, degraded), rec) is None
