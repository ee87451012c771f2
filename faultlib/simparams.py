"""All simulator parameters in one validated tree (``SimParams().fabric.ub_link_gbytes_s``)."""

from __future__ import annotations

from pydantic import Field

from faultlib.control import ControlParams
from faultlib.fabric import FabricParams
from faultlib.faults.params import FaultParams
from faultlib.injection.profiles import InjectionParams
from faultlib.params import ParamGroup
from faultlib.telemetry.delivery import DeliveryParams
from faultlib.telemetry.noise import NoiseParams
from faultlib.telemetry.params import TelemetryParams
from faultlib.topology import TopologyParams
from faultlib.workloads.demand import DemandParams
from faultlib.workloads.inference import InferenceParams
from faultlib.workloads.switch import SwitchParams
from faultlib.workloads.training import TrainingParams


class SimParams(ParamGroup):
    topology: TopologyParams = Field(default_factory=TopologyParams)
    fabric: FabricParams = Field(default_factory=FabricParams)
    training: TrainingParams = Field(default_factory=TrainingParams)
    inference: InferenceParams = Field(default_factory=InferenceParams)
    demand: DemandParams = Field(default_factory=DemandParams)
    switch: SwitchParams = Field(default_factory=SwitchParams)
    control: ControlParams = Field(default_factory=ControlParams)
    telemetry: TelemetryParams = Field(default_factory=TelemetryParams)
    delivery: DeliveryParams = Field(default_factory=DeliveryParams)
    noise: NoiseParams = Field(default_factory=NoiseParams)
    faults: FaultParams = Field(default_factory=FaultParams)
    injection: InjectionParams = Field(default_factory=InjectionParams)
