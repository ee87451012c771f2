"""Shared fixtures: the repository root, a CLI runner, one built superpod topology per test session, a webhook
receiver that never answers, the knowledge matcher with the small vendor fixtures imported, and the shipped diagnosis
engine (a test module's own ``engine`` fixture, where it has one, takes its place)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import CliRunner

from faultlib.topology import Topology, TopologyParams

if TYPE_CHECKING:
    from opsbrain.kb import SignatureMatcher


@pytest.fixture(autouse=True, scope="session")
def _own_data_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Commands a test runs without --data-dir write to a run store of the test session's own, never to the user's
    ``~/.local/share/opsbrain`` (a ``sweep once`` keeps its history and takes its schedule's lock there)."""
    if os.environ.get("OPSBRAIN_HOME"):
        yield
        return
    os.environ["OPSBRAIN_HOME"] = str(tmp_path_factory.mktemp("opsbrain-home"))
    try:
        yield
    finally:
        os.environ.pop("OPSBRAIN_HOME", None)


REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def topo1() -> Topology:
    """One CloudMatrix384 pod with default parameters (read-only: do not mutate it)."""
    return Topology.build(TopologyParams(), pods=1)


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture()
def blackhole() -> Iterator[str]:
    """A TCP port that completes connections (the kernel's backlog) and never answers: each webhook POST to it hits
    its timeout."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(128)
    yield f"http://127.0.0.1:{srv.getsockname()[1]}/hook"
    srv.close()


STATEFUL_EVENTS = frozenset({"80E01805", "80E20207", "81078603", "81B18603"})
"""Device events held as active until a resume, for the tests of the resume machinery (the twin ships none:
:data:`faultlib.telemetry.devicelines.RESUMED_EVENTS`; session 35)."""


@pytest.fixture
def stateful_events(monkeypatch: pytest.MonkeyPatch) -> frozenset[str]:
    """The twin as it would be if these events' sensors had a deassert mask: held until the resume it prints."""
    import faultlib.telemetry.emit as emit

    monkeypatch.setattr(emit, "RESUMED_EVENTS", STATEFUL_EVENTS)
    return STATEFUL_EVENTS


@pytest.fixture(scope="module")
def vendor_matcher(tmp_path_factory: pytest.TempPathFactory) -> SignatureMatcher:
    """The knowledge matcher with the small vendor fixtures imported (``tests/fixtures/vendor_small``: its knowledge
    graph and fault-code table), built once per test module (the block scan's and the screens' tests; session 40)."""
    from opsbrain.kb import SignatureMatcher, import_faultcode, import_kg, load_imported, load_kb

    fix = Path(__file__).resolve().parent / "fixtures" / "vendor_small"
    d = tmp_path_factory.mktemp("imports")
    import_kg(fix / "kg_good.json", d)
    import_faultcode(fix / "faultcode_good.json", d)
    return SignatureMatcher(load_kb(), load_imported(d))


@pytest.fixture(scope="module")
def engine() -> Any:
    """The shipped diagnosis engine (the package's model), loaded once per test module (session 40: the blind looks'
    test files shared this fixture's body)."""
    from opsbrain.kb.training import load_engine

    return load_engine()
