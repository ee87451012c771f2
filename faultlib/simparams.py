"""All simulator parameters in one validated tree (``SimParams().fabric.ub_link_gbytes_s``)."""

from __future__ import annotations

from pydantic import Field

from faultlib.fabric import FabricParams
from faultlib.params import ParamGroup
from faultlib.telemetry.params import TelemetryParams
from faultlib.topology import TopologyParams


class SimParams(ParamGroup):
    topology: TopologyParams = Field(default_factory=TopologyParams)
    fabric: FabricParams = Field(default_factory=FabricParams)
    telemetry: TelemetryParams = Field(default_factory=TelemetryParams)
