"""The blind sets (tests/data/blind/) stay loadable by `kb eval --real FILE --split all` and `kb eval --healthy FILE`,
and stay apart from the real-log corpus (no id in both, none in the text model's training data)."""

from pathlib import Path

from opsbrain.kb.healthyeval import load_healthy
from opsbrain.kb.realeval import load_corpus

DATA = Path(__file__).parent / "data"


def test_blind_sets_load_and_stay_apart_from_the_corpus():
    faults = load_corpus(DATA / "blind" / "blind43.yaml")
    healthy = load_healthy(DATA / "blind" / "blind43_healthy.yaml")
    assert faults and healthy
    blind = {e["id"] for e in faults} | {e["id"] for e in healthy}
    corpus = {e["id"] for e in load_corpus(DATA / "real_logs")} | {e["id"] for e in load_healthy(DATA / "healthy_logs")}
    assert not blind & corpus
    assert all(e["id"].startswith("b43") for e in [*faults, *healthy])
