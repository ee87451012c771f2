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
