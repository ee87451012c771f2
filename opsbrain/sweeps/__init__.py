"""Scheduled health sweeps: telemetry snapshot -> checks (thresholds, trend prediction) -> findings."""

from opsbrain.sweeps.checks import SEVERITIES, Finding
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import DomHistory, Snapshot, SweepHistory, take_snapshot
from opsbrain.sweeps.sweep import CHECK_NAMES, SweepReport, run_sweep, sweep_snapshot

__all__ = ["CHECK_NAMES", "SEVERITIES", "DomHistory", "Finding", "Snapshot", "SweepHistory", "SweepParams",
           "SweepReport", "run_sweep", "sweep_snapshot", "take_snapshot"]
