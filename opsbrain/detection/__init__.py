"""Detection: turn the telemetry stream into incidents."""

from typing import TYPE_CHECKING, Any

from opsbrain.detection.detector import NO_HISTORY, Detector, Incident, LinkHistory

if TYPE_CHECKING:  # type checkers see the class; at run time it is imported on first use (below)
    from opsbrain.detection.params import DetectorParams


def __getattr__(name: str) -> Any:
    """``DetectorParams`` on first use (it needs pydantic)."""
    if name == "DetectorParams":
        from opsbrain.detection.params import DetectorParams

        return DetectorParams
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["NO_HISTORY", "Detector", "DetectorParams", "Incident", "LinkHistory"]
