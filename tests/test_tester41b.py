"""Collective-communication text from session 41's blind look (tester41b): the root-info exchange (EI0015) names
the ranks that never reached the root, and those ranks, not the root that waited, are the root cause to look at;
the Ascend 950's HCCL start-up lines that echo the timeout variables are no timeout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.rootcluster import analyse
from opsbrain.ingest.text import ingest_text
from tests.test_rootcluster import collect

# https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/850alpha002/hccl/hcclug/hcclug_000036.html
# (HCCL guide, "some ranks did not connect to the server node"): the root timed out; rank 9 is missing from the list
# of agents that connected (the guide's own reading of these lines).
SERVER_RANK9 = [
    "[ERROR] HCCL(10261,python):2025-09-11-01:20:11.205.229 [topoinfo_exchange_server.cc:113] [57044][Get][Connection]"
    "topo exchange server get socket timeout! timeout[720 s]",
    "[ERROR] HCCL(10261,python):2025-09-11-01:20:11.205.296 [topoinfo_exchange_server.cc:240][57044]"
    "[TopoInfoExchangeServer][DisplayConnectedRank]total connected num is [15],line num is [2]",
    "[ERROR] HCCL(10261,python):2025-09-11-01:20:11.205.304 [topoinfo_exchange_server.cc:253][57044]"
    "[TopoInfoExchangeServer][DisplayConnectedRank]connected rankinfo[LINE 0]: [0000000000000000],[0000000000000001],"
    "[0000000000000002],[0000000000000003],[0000000000000004],[0000000000000005],[0000000000000006],[0000000000000007];",
    "[ERROR] HCCL(10261,python):2025-09-11-01:20:11.205.308 [topoinfo_exchange_server.cc:253][57044]"
    "[TopoInfoExchangeServer][DisplayConnectedRank]connected rankinfo[LINE 1]: [0000000000000008],[0000000000000010],"
    "[0000000000000011],[0000000000000012],[0000000000000013],[0000000000000014],[0000000000000015];",
]

# https://github.com/hicann/hccl/blob/f97e5675a3e602b797fa834b82d9f93625d784cd/docs/zh/user_guide/fault_diagnosis/
# cluster_info_nego.md (EI0015): a root that needed 8 ranks and got 0, 2, 4, 6; its agents were told 1, 3, 5, 7.
SERVER_NEED8 = [
    "[ERROR] HCCL(1041081,all_reduce_test):2025-11-21-01:20:01.624.966 [topoinfo_exchange_server.cc:314] [1041362]"
    "[InitGroupStage][RanktableDetect]topo exchange server get socket timeout! timeout[120 s]",
    "[ERROR] HCCL(1041081,all_reduce_test):2025-11-21-01:20:01.625.103 [topoinfo_exchange_server.cc:501] [1041362]"
    "[InitGroupStage][DisplayConnectionedRank]total connected num is [4],line num is [1]",
    "[ERROR] HCCL(1041081,all_reduce_test):2025-11-21-01:20:01.625.112 [topoinfo_exchange_server.cc:503] [1041362]"
    "[InitGroupStage][DisplayConnectionedRank]need connect rankNum is [8]",
    "[ERROR] HCCL(1041081,all_reduce_test):2025-11-21-01:20:01.625.145 [topoinfo_exchange_server.cc:517] [1041362]"
    "[InitGroupStage][DisplayConnectionedRank]connected rankinfo[LINE 0]: [0000000000000000],[0000000000000002],"
    "[0000000000000004],[0000000000000006];",
]
AGENT = ('[ERROR] HCCL(1041085,all_reduce_test):2025-11-21-01:20:01.630.122 [topoinfo_exchange_base.cc:145] [1041085]'
         '[InitGroupStage][RanktableDetect] TopoDetect ERROR occur !!! fault_type[1], fault_info["Failed to connect '
         'agent[1,3,5,7,]"]')

# https://github.com/Fengfengst123/hccl-mirror/blob/1e80edd9b409436d0427b61dbc4d244ce919c274/docs/zh/user_guide/
# fault_diagnosis/topo_detect_timeout_EI0015.md: a 2048-rank root lists the agents that never connected (the guide
# takes rank 10, the first, as the one to look at).
FAILED_LIST = ("[ERROR] HCCL(340,python3.9):2026-07-15-19:50:49.450.492 [topoinfo_exchange_server.cc:115] [5590]"
               "[TopoInfoExchangeServer][Setup]Broadcast Rank Basic Infos failed，connectFailedAgentIdList[10,17,40,79,"
               "119,310,358,682,755,812,850,860,865,925,961,989,1025,1054,1077,1164,1170,1178,1203,1224,1341,1375,"
               "1422,1469,1562,1563,1583,1629,1634,1637,1641,1650,1738,1775,1829,1840,1866,1951,1975,2007,]")
SERVER_2048 = [
    "[ERROR] HCCL(340,python3.9):2026-07-15-19:50:49.176.080 [topoinfo_exchange_server.cc:314] [5590][Get][Connection]"
    "topo exchange server get socket timeout! timeout[3600 s] ",
    FAILED_LIST,
]

# https://github.com/hicann/hccl/blob/f97e5675a3e602b797fa834b82d9f93625d784cd/docs/zh/user_guide/fault_diagnosis/
# debug_thinking.md, the Ascend 950's "base_config" listing: INFO lines echoing each HCCL variable read.
BASE_CONFIG = "\n".join([
    '[INFO] HCCL(229424,python3.8):2025-12-23-22:31:40.239.170[base_config.cc:33][229424][Init][EnvVarParam]'
    'Env config "HCCL_IF_IP" is not set. Default value is used. ',
    '[INFO] HCCL(229424,python3.8):2025-12-23-22:31:40.239.206[base_config.cc:33][229424][Init][EnvVarParam]'
    'Env config "HCCL_CONNECT_TIMEOUT" is parsed. ',
]) + "\n"


def _roots(lines: list[str]) -> list[str]:
    return [p.name for p in analyse(collect({"paste.log": lines})).roots]


def test_a_gap_in_the_root_s_connected_list_is_the_rank_to_blame() -> None:
    rc = analyse(collect({"paste.log": SERVER_RANK9}))
    assert rc.kind == "rootinfo" and [p.name for p in rc.roots] == ["rank 9"]
    assert "absent" in rc.rule and "waited" in rc.rule


def test_the_needed_size_names_the_missing_tail_and_the_agent_s_list_names_the_same() -> None:
    assert _roots(SERVER_NEED8) == ["rank 1"]
    assert _roots([AGENT]) == ["rank 1"]
    errs = collect({"paste.log": SERVER_NEED8}).processes[0].errors
    assert sorted(e.remote_rank for e in errs if e.remote_rank is not None) == [1, 3, 5, 7]


def test_the_root_s_failed_agent_list_names_the_ranks() -> None:
    assert _roots(SERVER_2048) == ["rank 10"]
    errs = collect({"paste.log": SERVER_2048}).processes[0].errors
    assert len([e for e in errs if e.remote_rank is not None]) == 44


def test_a_connected_list_with_lines_left_out_infers_no_gap() -> None:
    # LINE 1 left out of a paste: ranks 8..15 are not missing, only not shown; no rank is blamed for them
    cut = [SERVER_RANK9[0], SERVER_RANK9[1].replace("line num is [2]", "line num is [3]"), SERVER_RANK9[2],
           SERVER_RANK9[3].replace("[LINE 1]", "[LINE 2]").replace("[0000000000000008],", "[0000000000000016],")]
    errs = collect({"paste.log": cut}).processes[0].errors
    assert [e.remote_rank for e in errs if e.remote_rank is not None] == []


def test_a_root_info_timeout_naming_no_rank_keeps_the_waiting_device() -> None:
    rc = analyse(collect({"paste.log": SERVER_RANK9[:1]}))
    assert rc.kind == "rootinfo" and [p.pid for p in rc.roots] == ["10261"]


def test_the_950_variable_echo_is_no_timeout() -> None:
    kinds = {s.kind for s in ingest_text(BASE_CONFIG)[0]}
    assert "hccl:exec_timeout" not in kinds


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_the_950_variable_echo_is_no_fault(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "paste.log"
    log.write_text(BASE_CONFIG)
    assert diagnose_logs(str(log), engine)["diagnosis"]["fault_class"] == "unknown"


def test_the_one_click_root_is_the_missing_rank(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "paste.log"
    log.write_text("\n".join(SERVER_RANK9) + "\n")
    d = diagnose_logs(str(log), engine)["diagnosis"]
    assert d["fault_class"] == "collective_timeout_sw" and d["root"]["name"] == "rank 9"
