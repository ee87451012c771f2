"""Detection: turn the telemetry stream into incidents."""

from opsbrain.detection.detector import NO_HISTORY, Detector, DetectorParams, Incident, LinkHistory

__all__ = ["NO_HISTORY", "Detector", "DetectorParams", "Incident", "LinkHistory"]
