"""Defects found in session 44's review of the later merges (review44b)."""

from __future__ import annotations

from opsbrain.ingest import ingest_text

# hccn_tool's answer as in tests/test_transceiver_power.py (ascend-fd's fixture, every Rx lane lit here), its
# module's power thresholds unset: a module whose threshold fields read zero prints them as 0.0000 mW (ethtool -m
# of such a module: ``Laser output power high alarm threshold : 0.0000 mW / -inf dBm`` with lanes lit,
# gist.github.com/Chester-Gillon/d2c3bc6d76394af4fc9551e1be441dd8 "Reading QSFP module information")
UNSET = """\
/usr/local/Ascend/driver/tools/hccn_tool -i 0 -optical -g
optical info:
Tx Power0            : 1.3968 mW
Rx Power0            : 1.0189 mW
TxPower High Thres   : 0.0000 mW
TxPower Low Thres    : 0.0000 mW
RxPower High Thres   : 0.0000 mW
RxPower Low Thres    : 0.0000 mW
Rx Los Flag          : 0x0
"""


def test_a_high_threshold_of_zero_mw_bounds_nothing() -> None:
    """0 mW is the monitor's floor (-40 dBm, no light): a high threshold there is an unset one, not an alarm of
    every lit lane."""
    got = [s for s in ingest_text(UNSET, "dump.txt")[0] if s.kind == "tk:optical_power"]
    assert got == [], got
    over = UNSET.replace("TxPower High Thres   : 0.0000 mW", "TxPower High Thres   : 1.0000 mW")
    got = [s for s in ingest_text(over, "dump.txt")[0] if s.kind == "tk:optical_power"]
    assert [s.text for s in got] == ["Tx Power0            : 1.3968 mW"], got  # a set threshold still counts


def test_a_job_handed_back_while_its_claim_waits_ends_the_claim() -> None:
    """The world of tests/test_orch44b_paged_wait.py: paged at t=979 s, the claim held; the job then leaves the
    cluster (a day/night switch's hand-back detaches it: faultlib.workloads.switch.detach). Before, the spare's return
    at t=1,900 s raised KeyError in the claim: the incident ended as ``error`` with the claim never closed."""
    from benchmarks.refused_scale_in_wait import world
    from faultlib.workloads.switch import detach

    w = world(False, 1200.0, until_s=1000.0)
    orch, sim, job, a = w["orch"], w["sim"], w["job"], w["a"]
    detach(sim, job)
    sim.run(6 * 3600)
    inc = orch.incident("B")
    assert not [x for x in inc["actions"] if x["kind"] == "error"], inc["actions"][-1]
    wait = next(x for x in inc["actions"] if x["action"] == "waiting_for_spare")
    assert wait["status"] == "cancelled" and "in_flight" not in wait["detail"], wait
    assert inc["outcome"] == "escalated_to_human"
    assert a in sim.control.spares  # back at t=1,900 s, not claimed: no job to place
