"""The blind sets (tests/data/blind/) stay loadable by `kb eval --real FILE --split all` and `kb eval --healthy FILE`,
and stay apart from the real-log corpus (no id and no text in both, so none in the text model's training data)."""

import re
from pathlib import Path

import pytest

from opsbrain.kb.healthyeval import load_healthy
from opsbrain.kb.realeval import load_corpus

DATA = Path(__file__).parent / "data"
SESSIONS = sorted(re.fullmatch(r"blind(\d+)\.yaml", p.name).group(1)  # type: ignore[union-attr]
                  for p in (DATA / "blind").glob("blind*.yaml") if re.fullmatch(r"blind\d+\.yaml", p.name))


def test_every_session_kept_its_faults_and_its_healthy_runs():
    assert {"43", "44"} <= set(SESSIONS)
    for s in SESSIONS:
        assert (DATA / "blind" / f"blind{s}_healthy.yaml").is_file()


@pytest.mark.parametrize("session", SESSIONS)
def test_blind_sets_load_and_stay_apart_from_the_corpus(session):
    faults = load_corpus(DATA / "blind" / f"blind{session}.yaml")
    healthy = load_healthy(DATA / "blind" / f"blind{session}_healthy.yaml")
    assert faults and healthy
    blind = {e["id"] for e in faults} | {e["id"] for e in healthy}
    corpus = load_corpus(DATA / "real_logs") + load_healthy(DATA / "healthy_logs")
    assert not blind & {e["id"] for e in corpus}
    assert not {e["text"] for e in [*faults, *healthy]} & {e["text"] for e in corpus}
    assert all(e["id"].startswith(f"b{session}") for e in [*faults, *healthy])
