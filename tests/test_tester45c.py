"""Session 45 (tester45c): a blind look at Chinese-language sources (hiascend forum, CANN / MindCluster guides in
Chinese, Chinese-language issues). Two readings:

- MindIE's configuration manager prints ``The configName X is not found, use default value.`` for an optional
  integer setting config.json leaves out, and takes the default (Ascend/MindIE-LLM
  src/config_manager/param_checker.cpp ``ParamChecker::GetIntegerParamDefaultValue``): a healthy 300I Duo start
  that ends in ``Daemon start success!`` read config_error 0.60 from it by the text model. Its siblings (a value
  that is invalid or of the wrong type) still read.
- MindCluster FaultDiag's root-cause scenario 116, CQE_ERROR (``部分节点发生RoCE重传超次(ERROR CQE)...`` /
  ``Excessive RoCE retransmissions (ERROR CQE) occur on some nodes...``, ascend_fd utils/i18n.py; set from the
  plogs' error-CQE links): the tool's finding is an error CQE, read as HCCL's own record of one is
  (``hccl:rdma_error``); the guide's Chinese sample report gave no signal and read config_error 0.30.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.ingest.parsers import parse_line

# https://www.hiascend.com/forum/thread-02111201427162926575-1-1.html (300I-Duo MindIE 2.2.RC1 start)
MINDIE_START = """g_mainPid = 219897
LogLevelDynamicHandler start
ConfigManager: Load Config from /usr/local/Ascend/mindie/2.2.RC1/mindie-service/conf/config.json.
The configName speculationGamma is not found, use default value.
[ConfigManager::ExecuteConfigInteractions] Configuration interactions completed successfully
[ConfigManager::InitConfigManager] Successfully init config manager
LogLevelDynamicHandler start
{nz}
LogLevelDynamicHandler start
Daemon start success!
""".format(nz="[W compiler_depend.ts:62] Warning: Cannot create tensor with NZ format while dim < 2, tensor will be "
           "created with ND format. (function operator())")

# https://www.hiascend.com/document/detail/zh/mindcluster/60rc1/faultdiag/faultdiagug/mindxdlFDUG029.html
FD_ROWS = [
    "| 根因节点分析 |    类型    | 描述                                                                   |",
    "|              |    说明    | 根因节点分析检测出了多个的疑似故障根因节点,将优先排查这几个节点        |",
    "|              |  根因节点  | ['worker-0 device-0', 'worker-1 device-0']                             |",
]
FD_CQE_ZH = "|              |  现象描述  | 部分节点发生RoCE重传超次(ERROR CQE),此类节点为疑似根因节点,"
# the English text of scenario 116 (Ascend/mind-cluster component/ascend-faultdiag/src/ascend_fd/utils/i18n.py)
FD_CQE_EN = ("|              | Symptom Description | Excessive RoCE retransmissions (ERROR CQE) occur on some nodes. "
             "These nodes may be the root cause nodes. Check them. |")


def _diagnose(tmp_path: Path, engine: Any, text: str) -> dict[str, Any]:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "in.log"
    f.write_text(text)
    result: dict[str, Any] = diagnose_logs(str(f), engine)["diagnosis"]
    return result


def test_a_mindie_start_with_a_default_setting_is_no_fault(tmp_path: Path, engine: Any) -> None:
    assert _diagnose(tmp_path, engine, MINDIE_START)["fault_class"] == "unknown"


def test_an_invalid_mindie_setting_still_reads_as_a_failing_line() -> None:
    from opsbrain.ingest.benign import BENIGN

    assert BENIGN.search("The configName maxSeqLen is not found, use default value.")
    # the same function's other notices: a value the operator wrote that was not taken
    assert not BENIGN.search("The value of configName maxSeqLen for  uint32_t is invalid, use default value.")
    assert not BENIGN.search("The type of configName maxSeqLen should be integer, but is string, use default value.")


def test_the_faultdiag_cqe_scenario_reads_as_an_error_cqe() -> None:
    for row in (FD_CQE_ZH, FD_CQE_EN):
        assert [s.kind for s in parse_line(row)] == ["hccl:rdma_error"]


def test_other_symptom_rows_stay_quiet() -> None:
    # scenario 101's description (utils/i18n.py): no timeout in any plog, no fault of its own
    row = ("|              |  现象描述  | 所有节点的Plog都没有记录超时类错误日志。"
           "日志中有报错的节点为疑似根因节点，请排查。 |")
    assert [s.kind for s in parse_line(row) if not s.kind.startswith("fd:")] == []


def test_the_cqe_report_is_no_software_fault(tmp_path: Path, engine: Any) -> None:
    text = "\n".join(["The diag job starts. Please wait.", *FD_ROWS, FD_CQE_ZH]) + "\n"
    d = _diagnose(tmp_path, engine, text)
    assert d["fault_class"] not in ("config_error", "framework_error")
    assert any("rdma" in e for e in d["evidence"])
