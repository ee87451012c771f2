"""Session 51 (tester51k): a blind look at security, certificate and access-configuration text on Ascend stacks. One
fix: the file-security check of MindIE's components logged at WARN is a harmless notice
(:data:`opsbrain.ingest.runnotices.RUN_NOTICES`, joined into BENIGN): no signal, and left out of the text the fallback
reads. The check (Ascend/MindIE-LLM src/utils/log/file_utils.cpp, ``FileUtils::ConstrainPermission``) returns its
message to the caller, which picks the level: at ERROR the file is refused and the service stops (the MindIE LLM FAQ
"Check_path: config.json failed", read cfg:env since session 47, tests/test_tester47l.py), while MindIE LLM's parameter
checker logs the weight directory's config.json at WARN and the daemon goes on to profiling and HCCL set-up
(gpustack/gpustack#3153, the same line in #3352, both failing later for other reasons)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.ingest.parsers import parse_line

# gpustack/gpustack#3153 (MindIE 2.1.rc2 in GPUStack on a 910B2), the daemon's start-up
WARN_LINE = ("[2025-11-05 20:32:25.735] [34] [281473375264256] [llm] [WARN] [param_checker.cpp:98]  Check Other group "
             "permission failed: /var/lib/gpustack/cache/model_scope/Qwen/Qwen2.5-VL-7B-Instruct/config.json current "
             "permission is 4, but required no greater than 0. Required permisssion is 750, but got permission is 644")
START_UP = [
    "2025-11-05 20:32:25.734 36 LLM log default format: [yyyy-mm-dd hh:mm:ss.uuuuuu] [processid] [threadid] [llm] "
    "[loglevel] [file:line] [status code] msg",
    "[2025-11-05 20:32:25.734] [34] [281473375264256] [llm] [INFO] [llm_manager_impl.cpp:76] LLMRuntime init success!",
    WARN_LINE,
    "[INFO] PROFILING(34,mindieservice_daemon_):2025-11-05-20:32:30.212.199 [prof_atls_plugin.cpp:122] (tid:36) "
    "RegisterProfileCallback, callback type is 7",
]


def test_the_check_logged_at_warn_is_not_read() -> None:
    assert "cfg:env" not in [s.kind for s in parse_line(WARN_LINE)]


def test_the_check_at_error_is_still_the_files_mode() -> None:
    # the same message at ERROR level (hiascend forum thread-0275134818179133091, MindX SDK base.mx_init refused)
    line = ("E20231108 17:22:50.684195 38674 FileUtils.cpp:468] Check Owner permission failed: Current permission "
            "is 7, but required no greater than 6.")
    assert "cfg:env" in [s.kind for s in parse_line(line)]


def test_a_start_up_with_the_warning_is_no_fault(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "mindie.log"
    f.write_text("\n".join(START_UP) + "\n")
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert d["fault_class"] == "unknown"
