"""What to inject, where and when: :class:`FaultSpec`, the sorted :class:`Timeline`, :class:`FaultPlanError`.

A timeline is the plan only; the fault models (``faultlib.faults``) act each spec out in the simulation.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from faultlib.faults.catalog import CATALOG

Source = Literal["scripted", "random", "replay"]
SOURCES: tuple[str, ...] = ("scripted", "random", "replay")


class FaultPlanError(ValueError):
    """A fault plan item is invalid; the message starts with its path (``faults[3].target: ...``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason

    def under(self, prefix: str) -> FaultPlanError:
        """The same error with ``prefix`` put in front of its path (``faults[3]`` + ``target``)."""
        if not prefix:
            return self
        path = f"{prefix}.{self.path}" if self.path and not self.path.startswith("[") else prefix + self.path
        return FaultPlanError(path, self.reason)


@dataclass(frozen=True)
class FaultSpec:
    """One fault to inject.

    ``target`` is a resolved component or link id; it is ``None`` only in timelines drawn without a topology
    (rate calibration), which an injector must refuse. ``category`` is the Llama 3 root-cause category the
    fault counts toward ("none" for background faults); it defaults to the catalogue's category of ``kind``.
    ``origin`` says where the spec came from (``faults[2]``, ``trace.csv line 7``, a profile category).
    """

    at_s: float
    kind: str
    target: str | None
    params: dict[str, Any] = field(default_factory=dict, hash=False)
    duration_s: float | None = None
    source: Source = "scripted"
    category: str = ""
    origin: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.at_s, bool) or not isinstance(self.at_s, int | float) or not math.isfinite(self.at_s):
            raise FaultPlanError("at_s", f"must be a finite number of seconds, got {self.at_s!r}")
        if self.at_s < 0:
            raise FaultPlanError("at_s", f"must be >= 0, got {self.at_s!r}")
        if self.kind not in CATALOG:
            raise FaultPlanError("kind", f"unknown fault kind {self.kind!r} (known: {', '.join(sorted(CATALOG))})")
        if self.target is not None and (not isinstance(self.target, str) or not self.target):
            raise FaultPlanError("target", f"must be a component id, got {self.target!r}")
        if not isinstance(self.params, dict):
            raise FaultPlanError("params", f"must be a mapping, got {type(self.params).__name__}")
        if self.duration_s is not None:
            d = self.duration_s
            if isinstance(d, bool) or not isinstance(d, int | float) or not math.isfinite(d) or d <= 0:
                raise FaultPlanError("duration_s", f"must be None or a number > 0, got {d!r}")
        if self.source not in SOURCES:
            raise FaultPlanError("source", f"must be one of {', '.join(SOURCES)}, got {self.source!r}")
        object.__setattr__(self, "at_s", float(self.at_s))
        if self.duration_s is not None:
            object.__setattr__(self, "duration_s", float(self.duration_s))
        if not self.category:
            object.__setattr__(self, "category", CATALOG[self.kind].category)

    @property
    def interrupts(self) -> bool:
        """Whether this fault counts as a job interruption (its category is not "none")."""
        return self.category != "none"

    def sort_key(self) -> tuple[Any, ...]:
        return (self.at_s, self.kind, self.target or "", self.source, self.category,
                json.dumps(self.params, sort_keys=True, default=str), self.duration_s or 0.0, self.origin)

    def as_dict(self) -> dict[str, Any]:
        return {"at_s": self.at_s, "kind": self.kind, "target": self.target, "params": dict(self.params),
                "duration_s": self.duration_s, "source": self.source, "category": self.category,
                "origin": self.origin}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FaultSpec:
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise FaultPlanError(sorted(unknown)[0], "unknown field")
        try:
            return cls(**data)
        except TypeError as exc:
            raise FaultPlanError("", str(exc)) from None


class Timeline:
    """An immutable list of :class:`FaultSpec` in deterministic order (time, then kind, target, ...)."""

    __slots__ = ("_specs",)

    def __init__(self, specs: Iterable[FaultSpec] = ()) -> None:
        self._specs: tuple[FaultSpec, ...] = tuple(sorted(specs, key=FaultSpec.sort_key))

    def __iter__(self) -> Iterator[FaultSpec]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def __getitem__(self, i: int) -> FaultSpec:
        return self._specs[i]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Timeline) and self._specs == other._specs

    def __hash__(self) -> int:
        return hash(tuple(s.sort_key() for s in self._specs))

    def __repr__(self) -> str:
        return f"Timeline({len(self)} faults)"

    @property
    def specs(self) -> tuple[FaultSpec, ...]:
        return self._specs

    def merge(self, *others: Timeline) -> Timeline:
        return Timeline([*self._specs, *(s for o in others for s in o)])

    def interruptions(self) -> Timeline:
        """Only the faults that count as interruptions (category not "none")."""
        return Timeline(s for s in self._specs if s.interrupts)

    def by_category(self) -> dict[str, int]:
        return dict(sorted(Counter(s.category for s in self._specs).items()))

    def by_kind(self) -> dict[str, int]:
        return dict(sorted(Counter(s.kind for s in self._specs).items()))

    def to_list(self) -> list[dict[str, Any]]:
        return [s.as_dict() for s in self._specs]

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_list(), indent=indent, sort_keys=True, default=str)

    @classmethod
    def from_json(cls, text: str) -> Timeline:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FaultPlanError("timeline", f"bad JSON: {exc}") from None
        if not isinstance(data, list):
            raise FaultPlanError("timeline", "must be a JSON list")
        out = []
        for i, item in enumerate(data):
            if not isinstance(item, dict):
                raise FaultPlanError(f"timeline[{i}]", "must be an object")
            try:
                out.append(FaultSpec.from_dict(item))
            except FaultPlanError as exc:
                raise exc.under(f"timeline[{i}]") from None
        return cls(out)
