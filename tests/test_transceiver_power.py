"""An optical lane's power beyond the threshold its own dump prints is read (session 44, optread44).

Real lines, quoted in part (the Diagnostic information of each port; the other lines are no reading's):

- a CE switch's ``display interface transceiver verbose``, the MindCluster switch_logs sample
  (Ascend/mind-cluster @22bb3d98, docs/zh/resource/switch_logs/diagnostic_information_NAME-D01-XX.224_20260327113617.zip
  and ``...XX.254...``, diag_display_info_*.txt): port 400GE1/0/25 transmits 7.98 dBm on lane 0 against a 7.00 dBm
  TX high threshold, and its LLDP peer 400GE7/0/0 on switch .254 receives 7.79 dBm on lane 0 against 7.00; the
  other ports are within;
- the same command on CE6870 and Quidway S5328C (Alexander-Berg/2022-tests-examples-2 @2c983247,
  noc/tests/data/vrp_transceiver.py, Data3, Data4, Data6): dark SR4 lanes at -40.00 dBm with ``LOS Alarm``, the
  ``(All lanes)`` sum ``6.32`` over a 5.40 dBm per-lane threshold, an older VRP's ``RX Power(dBM)`` within;
- ``hccn_tool -i 0 -optical -g``, ascend-fd's fixture (Ascend/mind-cluster @22bb3d98,
  component/ascend-faultdiag/test/st_module_testcase/kg_parse/npu_info_before.txt): ``Tx Power0 : 4.4035 mW`` over
  ``TxPower High Thres : 3.5481 mW``, every Rx lane's LOS bit set (``Rx Los Flag : 0xff``), and
  ``present : not present``."""

from __future__ import annotations

from opsbrain.ingest import ingest_text
from opsbrain.ingest.readouts import is_readout

CE_224 = """\
 400GE1/0/25 transceiver information:
-------------------------------------------------------------------
 Alarm information:
    Non-Huawei-certified transceiver
-------------------------------------------------------------------
 Warning information:
-------------------------------------------------------------------
 Diagnostic information:
   Temperature (Celsius)                 :45.13
   Voltage (V)                           :3.17
   Bias Current (mA)                     :7.24|7.24    (Lane0|Lane1)
                                          7.24|7.24    (Lane2|Lane3)
                                          7.24|7.24    (Lane4|Lane5)
                                          7.24|7.24    (Lane6|Lane7)
   Bias High Threshold (mA)              :10.00
   Bias Low Threshold (mA)               :0.50
   Current RX Power (dBm)                :2.04|1.24    (Lane0|Lane1)
                                          2.02|2.15    (Lane2|Lane3)
                                          1.83|1.61    (Lane4|Lane5)
                                          2.13|2.21    (Lane6|Lane7)
   Default RX Power High Threshold (dBm) :7.00
   Default RX Power Low Threshold (dBm)  :-10.00
   Current TX Power (dBm)                :7.98|5.49    (Lane0|Lane1)
                                          5.47|5.42    (Lane2|Lane3)
                                          5.03|5.47    (Lane4|Lane5)
                                          5.42|5.48    (Lane6|Lane7)
   Default TX Power High Threshold (dBm) :7.00
   Default TX Power Low Threshold (dBm)  :-9.50
-------------------------------------------------------------------

 400GE1/0/27 transceiver information:
-------------------------------------------------------------------
 Diagnostic information:
   Temperature (Celsius)                 :46.44
   Voltage (V)                           :3.23
   Current RX Power (dBm)                :1.45|1.44    (Lane0|Lane1)
                                          1.55|2.08    (Lane2|Lane3)
                                          1.91|1.60    (Lane4|Lane5)
                                          1.96|2.21    (Lane6|Lane7)
   Default RX Power High Threshold (dBm) :7.00
   Default RX Power Low Threshold (dBm)  :-10.00
   Current TX Power (dBm)                :1.23|1.20    (Lane0|Lane1)
                                          1.17|1.17    (Lane2|Lane3)
                                          1.16|0.54    (Lane4|Lane5)
                                          0.85|1.13    (Lane6|Lane7)
   Default TX Power High Threshold (dBm) :7.00
   Default TX Power Low Threshold (dBm)  :-9.50
-------------------------------------------------------------------
"""
CE_254_RX = """\
#
sysname NAME-D01-XX.254
#
 400GE7/0/0 transceiver information:
-------------------------------------------------------------------
 Diagnostic information:
   Current RX Power (dBm)                :7.79|5.51    (Lane0|Lane1)
                                          5.43|5.45    (Lane2|Lane3)
                                          5.19|5.36    (Lane4|Lane5)
                                          5.37|5.26    (Lane6|Lane7)
   Default RX Power High Threshold (dBm) :7.00
   Default RX Power Low Threshold (dBm)  :-10.00
   Current TX Power (dBm)                :0.82|0.53    (Lane0|Lane1)
                                          0.81|1.06    (Lane2|Lane3)
                                          0.94|0.77    (Lane4|Lane5)
                                          0.96|1.18    (Lane6|Lane7)
   Default TX Power High Threshold (dBm) :7.00
   Default TX Power Low Threshold (dBm)  :-9.50
-------------------------------------------------------------------
"""
CE6870_DARK_AND_SUM = """\
 100GE1/0/3 transceiver information:
-------------------------------------------------------------------
 Alarm information:
    LOS Alarm
    Non-Huawei-Ethernet-Switch-Certified Transceiver
-------------------------------------------------------------------
 Diagnostic information:
   Current RX Power (dBm)                :-40.00|-40.00(Lane0|Lane1)
                                          -40.00|-40.00(Lane2|Lane3)
   Default RX Power High Threshold (dBm) :5.40
   Default RX Power Low Threshold (dBm)  :-13.31
   Current TX Power (dBm)                :-40.00|-40.00(Lane0|Lane1)
                                          -40.00|-40.00(Lane2|Lane3)
   Default TX Power High Threshold (dBm) :5.40
   Default TX Power Low Threshold (dBm)  :-11.40
-------------------------------------------------------------------

 100GE1/0/1 transceiver information:
-------------------------------------------------------------------
 Diagnostic information:
   Current RX Power (dBm)                :-33.98       (All lanes)
                                          -40.00|-40.00(Lane0|Lane1)
                                          -40.00|-40.00(Lane2|Lane3)
   Default RX Power High Threshold (dBm) :5.40
   Default RX Power Low Threshold (dBm)  :-14.00
   Current TX Power (dBm)                :6.32         (All lanes)
                                          -0.22|0.29   (Lane0|Lane1)
                                          0.81|0.25    (Lane2|Lane3)
   Default TX Power High Threshold (dBm) :5.40
   Default TX Power Low Threshold (dBm)  :-12.10
-------------------------------------------------------------------
"""
S5328_WITHIN = """\
GigabitEthernet0/0/23 transceiver information:
-------------------------------------------------------------
Diagnostic information:
  Bias Current(mA)              :40.96
  Bias High Threshold(mA)       :100.00
  Bias Low  Threshold(mA)       :0.00
  RX Power(dBM)                 :-21.43
  RX Power High Threshold(dBM)  :-5.99
  RX Power Low  Threshold(dBM)  :-36.98
  TX Power(dBM)                 :4.04
  TX Power High Threshold(dBM)  :6.00
  TX Power Low  Threshold(dBM)  :-1.00
-------------------------------------------------------------
"""
HCCN = """\
/usr/local/Ascend/driver/tools/hccn_tool -i 0 -optical -g
optical info:
present              : not present
temperature          : 47 C
Vcc                  : 3262.90 mV
Tx Power0            : 4.4035 mW
Rx Power0            : 1.0189 mW
Tx Power1            : 1.3968 mW
Rx Power1            : 0.0054 mW
Tx Power2            : 1.4140 mW
Rx Power2            : 0.9907 mW
Tx Power3            : 1.4988 mW
Rx Power3            : 1.0213 mW
TxPower High Thres   : 3.5481 mW
TxPower Low Thres    : 0.2818 mW
RxPower High Thres   : 3.5481 mW
RxPower Low Thres    : 0.1445 mW
Tx Bias0             : 7.9360 mA
Tx Los Flag          : 0x0
Rx Los Flag          : 0xff
"""
PRESENT = HCCN.replace("present              : not present\n", "")  # the same answer, its module present


def _power(text: str) -> list:
    return [s for s in ingest_text(text, "dump.txt")[0] if s.kind == "tk:optical_power"]


def test_a_switch_lane_over_its_tx_threshold_is_an_optical_power_alarm() -> None:
    got = _power(CE_224)
    assert len(got) == 1, got  # lane 0 of 400GE1/0/25's TX; 400GE1/0/27 is within
    s = got[0]
    assert s.severity == 2 and s.component == "switch/400GE1/0/25~peer", s
    assert "7.98|5.49" in s.text and s.line_no == 23, s
    assert not is_readout(s)  # a stated alarm: the readout cap does not hold it (transceivers' docstring)


def test_the_peer_receiving_over_its_rx_threshold_is_placed_on_its_switch() -> None:
    got = _power(CE_254_RX)
    assert [(s.component, s.severity, s.line_no) for s in got] == [("NAME-D01-XX.254/400GE7/0/0~peer", 2, 7)]


def test_dark_lanes_an_all_lanes_sum_and_readings_within_give_nothing() -> None:
    assert _power(CE6870_DARK_AND_SUM) == []  # not cabled / LOS reads -40.00; the sum is no lane's power
    assert _power(S5328_WITHIN) == []


def test_an_npu_port_over_its_tx_threshold_and_not_its_dark_rx_lanes() -> None:
    got = _power(PRESENT)
    assert [(s.component, s.severity, s.device, s.text) for s in got] == [
        ("npu0", 2, 0, "Tx Power0            : 4.4035 mW")]  # Rx Power1 0.0054 mW: its LOS bit is set


def test_no_module_no_comparison() -> None:
    assert _power(HCCN) == []  # present : not present: the figures are no module's


def test_an_snr_the_module_does_not_measure_is_no_unsupported_operator() -> None:
    sigs = ingest_text("/usr/local/Ascend/driver/tools/hccn_tool -i 0 -optical -g\noptical info:\n"
                       "Host SNR Lane0       : not supported\nHost SNR Lane1       : not supported\n"
                       "Media SNR Lane0      : 23.1211 dB\n", "dump.txt")[0]
    assert [s.kind for s in sigs] == [], sigs
