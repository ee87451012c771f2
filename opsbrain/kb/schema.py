"""Typed schema of a knowledge-base fault class (one YAML file per class), validated with pydantic.

A class says what a fault looks like to an operator (symptoms, codes, log patterns, metric rules), how
MindCluster handles it, where it counts in the Llama 3 interruption table, which runbook repairs it and how
its root component is found. Code spellings are normalised on load (see :func:`norm_device_code` and
:func:`switch_key`) so that the matcher can use plain dictionary look-ups.

Localization rules (how the diagnosis picks the root component; the diagnosis engine implements them):

- ``target``: the component the fault's own evidence names at its catalogue granularity (a die named in a
  device event);
- ``npu``: the NPU whose device log or device plugin reported the code (HBM faults are scored on the NPU);
- ``link``: the L1-L2 link named by the alarms of its two ends (L1 host + port, L2 host + port);
- ``l1_switch`` / ``l2_switch``: the switch chip that all simultaneously failed links share;
- ``node``: the host whose kernel log or heartbeat shows the fault;
- ``qingtian``: the node's Qingtian card; ``roce_port``: the die's RoCE port (``hccn_tool`` devid);
- ``job_rank``: the rank the collective waits on (remote peer of an HCCL timeout, rank of a training-log
  error), mapped to its component.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from opsbrain.kb.codenorm import (  # noqa: F401 - re-exported: the schema's names
    LEVELS,
    HandlingLevel,
    norm_device_code,
    norm_hccl_code,
    norm_runtime_code,
    norm_switch_code,
    switch_key,
)

Family = Literal["hbm", "optical", "switch", "npu", "node", "rdma", "software"]
Localization = Literal["target", "npu", "link", "l1_switch", "l2_switch", "node", "qingtian", "roce_port",
                       "job_rank"]
LOCALIZATION_RULES: tuple[str, ...] = Localization.__args__  # type: ignore[attr-defined]
LogSource = Literal["device_os", "device_plugin", "syslog", "plog", "train", "switch", "hccn", "any"]
Role = Literal["primary", "secondary"]
"""``primary``: the fault's own signal; ``secondary``: a follow-on or shared signal, weak evidence alone."""
MetricOp = Literal[">", ">=", "<", "<=", "rate>", "increase>=", "peer_ratio>="]
"""``rate>``: slope per second; ``increase>=``: increase over ``window_s``; ``peer_ratio>=``: value divided by
the median of the same metric on the component's peers (other ranks of the job)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class CodeSignature(_Strict):
    """One code that shows this fault, with what it means (our words) and how much it says alone."""

    code: str
    meaning: str = Field(min_length=3)
    role: Role = "primary"
    level: HandlingLevel | None = None
    """MindCluster's handling level of this code by itself (facts.md §3, faultCode.json), when known."""

    @field_validator("code", mode="before")
    @classmethod
    def _as_text(cls, v: object) -> object:
        return str(v) if isinstance(v, int) else v


class DeviceCode(CodeSignature):
    @field_validator("code")
    @classmethod
    def _norm(cls, v: str) -> str:
        return norm_device_code(v)


class SwitchCode(CodeSignature):
    @field_validator("code")
    @classmethod
    def _norm(cls, v: str) -> str:
        return norm_switch_code(v)


class HcclCode(CodeSignature):
    @field_validator("code")
    @classmethod
    def _norm(cls, v: str) -> str:
        return norm_hccl_code(v)


class RuntimeCode(CodeSignature):
    @field_validator("code")
    @classmethod
    def _norm(cls, v: str) -> str:
        return norm_runtime_code(v)


class PatternSignature(_Strict):
    """A regular expression searched (case-insensitively) in single log lines of ``source``."""

    pattern: str = Field(min_length=3)
    source: LogSource = "any"
    meaning: str = Field(min_length=3)
    role: Role = "primary"

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, v: str) -> str:
        from opsbrain.kb.saferegex import compile_checked

        try:
            rx = compile_checked(v, re.IGNORECASE)
        except ValueError as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from None
        if rx.groupindex or rx.search(""):
            raise ValueError("a pattern must not use named groups nor match the empty line")
        return v


SignalRole = Literal["primary", "secondary", "ambiguous"]
"""``ambiguous``: a signal real stacks print for several causes (EZ9999, EI0002, a Python RuntimeError): it only
says something together with others."""
_KIND = re.compile(r"^[a-z_]+:[A-Za-z0-9_:]+$")


class SignalSignature(_Strict):
    """A signal kind of the ingestion layer (``mem:oom``, ``hccl:notify_timeout``, ``err:EZ9999``) that this fault
    shows, with the documented code or text it keys on and where that is documented."""

    kind: str
    meaning: str = Field(min_length=3)
    role: SignalRole = "primary"
    source: str = Field(min_length=6)
    """Where the code or message is documented (CANN error-code reference, vendor fault file, a public log)."""
    example: str | None = None
    """A real line that shows it (the ingestion layer must turn it into ``kind``; a test checks)."""

    @field_validator("kind")
    @classmethod
    def _kind(cls, v: str) -> str:
        if not _KIND.match(v):
            raise ValueError(f"not a signal kind (family:name, e.g. mem:oom): {v!r}")
        return v


class MetricRule(_Strict):
    """``metric op threshold`` on a telemetry series of the suspected component, with where the number comes from."""

    metric: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    op: MetricOp
    threshold: float
    unit: str = Field(min_length=1)
    window_s: float | None = Field(default=None, gt=0)
    """Span of ``increase>=`` / ``rate>``; None = the incident window."""
    source: str = Field(min_length=10)
    """facts.md section, or a stated engineering reason."""
    role: Role = "primary"


class Signatures(_Strict):
    device_codes: list[DeviceCode] = []
    switch_alarms: list[SwitchCode] = []
    hccl_codes: list[HcclCode] = []
    runtime_codes: list[RuntimeCode] = []
    log_patterns: list[PatternSignature] = []
    metric_rules: list[MetricRule] = []
    signals: list[SignalSignature] = []

    @field_validator("device_codes", "switch_alarms", "hccl_codes", "runtime_codes")
    @classmethod
    def _no_duplicates(cls, v: list[CodeSignature]) -> list[CodeSignature]:
        codes = [s.code for s in v]
        dup = sorted({c for c in codes if codes.count(c) > 1})
        if dup:
            raise ValueError(f"code listed twice: {', '.join(dup)}")
        return v

    def codes(self) -> list[tuple[str, CodeSignature]]:
        """(code family, signature) for every code: families ``device``, ``switch``, ``hccl``, ``runtime``."""
        out: list[tuple[str, CodeSignature]] = []
        for family, sigs in (("device", self.device_codes), ("switch", self.switch_alarms),
                             ("hccl", self.hccl_codes), ("runtime", self.runtime_codes)):
            out.extend((family, s) for s in sigs)
        return out

    @model_validator(mode="after")
    def _has_some_signal(self) -> Signatures:
        if not (self.codes() or self.log_patterns or self.metric_rules or self.signals):
            raise ValueError("a class needs at least one code, log pattern, signal or metric rule")
        return self


class FaultClass(_Strict):
    """One fault class of the knowledge base (its id is a faultlib fault kind, or a justified extra class)."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    title: str = Field(min_length=3)
    description: str = Field(min_length=20)
    family: Family
    symptoms: list[str] = Field(min_length=1)
    signatures: Signatures
    handling: HandlingLevel
    llama3_category: str = Field(min_length=3)
    runbook: str = Field(pattern=r"^rb-[a-z0-9]+(?:-[a-z0-9]+)*$")
    localization: Localization
    self_heals: bool
    suggestion: str = Field(min_length=10)
    """What an operator should do, in one or two sentences (the runbook does it automatically)."""
    references: list[str] = Field(min_length=1)


def runbook_id(class_id: str) -> str:
    """The runbook of a class: ``rb-<class id with dashes>`` (``hbm_uce`` -> ``rb-hbm-uce``)."""
    return "rb-" + class_id.replace("_", "-")
