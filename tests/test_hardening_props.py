"""Property tests (hypothesis) of the bad-input promise, one per input kind the CLI reads (issue 18).

Whatever hypothesis makes of a real input (mutations from :mod:`fuzz_cli`): exit 0/1, or exit 2 with one stderr
line naming the file (validate commands: one such line per error); never a traceback; within a time bound.
A few examples per kind by default; ``OPSBRAIN_PROP_EXAMPLES=200`` runs more (``tests/fuzz_cli.py`` runs
thousands).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import fuzz_cli
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("OPSBRAIN_PROP_EXAMPLES", "4"))
TIME_BOUND_S = 30.0  # a case slower than this counts as a hang
CHEAP = ["scenario", "scenario_dry", "runbook", "kb_class", "vendor_kg", "vendor_faultcode", "trace", "journal",
         "incident", "logs", "logs_gz", "bundle_archive", "logs_archive", "logs_nested", "bundle_nested",
         "logs_misnamed"]


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    w = tmp_path_factory.mktemp("props")
    (w / "home").mkdir()
    return w


def check_outcome(case: fuzz_cli.Case, work: Path) -> None:
    out = fuzz_cli.run_case(case, work / "home", TIME_BOUND_S)
    assert out.status in ("ok", "refused"), (out.status, case.args[:4], out.stderr[-500:], out.detail[-1500:])


@pytest.mark.parametrize("kind", CHEAP)
def test_mutated_inputs_give_exit_0_or_one_line(kind: str, work: Path) -> None:
    counter = {"n": 0}

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(st.integers(0, 2**32 - 1))
    def prop(seed: int) -> None:
        counter["n"] += 1
        case = fuzz_cli.make_case(fuzz_cli.KINDS[kind], work, random.Random(seed), counter["n"] + 10_000 * len(kind))
        check_outcome(case, work)

    prop()


TEMPLATES = [c for c in fuzz_cli.OPTION_CASES if c[:2] != ["topology", "--pods"]]  # 64 pods: slow, not wrong


@settings(max_examples=EXAMPLES * 2, deadline=None, database=None)
@given(st.sampled_from(TEMPLATES), st.one_of(st.sampled_from(fuzz_cli.OPTION_VALUES),
                                                          st.text(max_size=30), st.floats().map(str),
                                                          st.integers().map(str)))
def test_option_values_give_exit_0_or_one_line(template: list[str], value: str) -> None:
    args = [a.replace("{v}", value) for a in template]
    work = Path(os.environ.get("TMPDIR", "/tmp"))
    import tempfile

    with tempfile.TemporaryDirectory(dir=work) as home:
        out = fuzz_cli.run_case(fuzz_cli.Case("option", args), Path(home), TIME_BOUND_S)
    assert out.status in ("ok", "refused"), (out.status, args[:6], out.stderr[-500:], out.detail[-1500:])
