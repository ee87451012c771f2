"""HCCL's start-up lines that name a timeout's setting are no timeout (a healthy job prints them; found by handing
ascend-fd's st_transport_init fixture over with its run/ plogs only, session 25), nor are the variables given a value
by a launch script or an environment dump, and such lines alone are diagnosed as nothing (session 26: five of them
answered collective_timeout_sw at 0.64)."""

from __future__ import annotations

import pytest

from opsbrain.ingest import ingest_text

SETTINGS = (
    "[INFO] HCCL(114725,python3):2025-06-19-09:27:24.674.788 [externalinput.cc:407] [114725]HCCL_CONNECT_TIMEOUT set "
    "by environment to [130]s\n"
    "[INFO] HCCL(114725,python3):2025-06-19-09:27:24.674.879 [externalinput.cc:985] [114725]HCCL_EXEC_TIMEOUT set by "
    "environment to [600]s\n")


SCRIPT = ("export HCCL_EXEC_TIMEOUT=1836\n"
          "export HCCL_CONNECT_TIMEOUT=1200\n"
          "HCCL_EXEC_TIMEOUT=1800\n"
          "HCCL_CONNECT_TIMEOUT = 7200\n"
          'os.environ["HCCL_EXEC_TIMEOUT"] = "3600"\n'
          "HCCL_CONNECT_TIMEOUT: 1200\n")


@pytest.mark.parametrize("text", [SETTINGS, SCRIPT])
def test_timeout_settings_are_no_timeout(text: str) -> None:
    assert not [s for s in ingest_text(text)[0] if s.kind.startswith("hccl:")]


def test_a_launch_script_alone_is_diagnosed_as_nothing() -> None:
    import io

    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    d = diagnose_logs("-", load_engine(), stdin=io.BytesIO(SCRIPT.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown"


@pytest.mark.parametrize("line", [
    "[ERROR] HCCL(1,python):2025-06-19-09:37:24.000.000 [x.cc:1] [1]wait timeout, please check HCCL_EXEC_TIMEOUT",
    "EI0002: The wait execution of the Notify register times out. Reason: HCCL_EXEC_TIMEOUT exceeded",
    "[ERROR] HCCL(1,python):2025-06-19-09:37:24.000.000 [x.cc:1] [1]execute timeout, HCCL_EXEC_TIMEOUT=1836s exceeded",
    "[ERROR] HCCL(1,python):2025-06-19-09:37:24.000.000 [x.cc:1] [1]op timeout (HCCL_EXEC_TIMEOUT: 1836), rank 3",
])
def test_an_error_naming_the_variable_is_still_a_timeout(line: str) -> None:
    assert any(s.kind.startswith("hccl:") for s in ingest_text(line + "\n")[0])
