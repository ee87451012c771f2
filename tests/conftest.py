"""Shared fixtures: the repository root, a CLI runner, and one built superpod topology per test session."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from faultlib.topology import Topology, TopologyParams

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
