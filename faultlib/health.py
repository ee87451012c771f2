"""Component health states and the transitions between them."""

from __future__ import annotations

from enum import StrEnum


class Health(StrEnum):
    HEALTHY = "healthy"
    DEGRADED = "degraded"    # works at reduced capacity (lanes down, throttled, sub-healthy)
    FAILED = "failed"        # does not work
    ISOLATED = "isolated"    # taken out of service on purpose (by an operator action)
    RESETTING = "resetting"  # being reset / rebooted; returns to HEALTHY or FAILED
    CORDONED = "cordoned"    # still working, but receives no new work


_ALL = set(Health)
TRANSITIONS: dict[Health, frozenset[Health]] = {
    Health.HEALTHY: frozenset(_ALL - {Health.HEALTHY}),
    Health.DEGRADED: frozenset(_ALL - {Health.DEGRADED}),
    Health.FAILED: frozenset({Health.HEALTHY, Health.ISOLATED, Health.RESETTING}),
    Health.ISOLATED: frozenset({Health.HEALTHY, Health.RESETTING}),
    Health.RESETTING: frozenset({Health.HEALTHY, Health.FAILED, Health.ISOLATED}),
    Health.CORDONED: frozenset({Health.HEALTHY, Health.DEGRADED, Health.FAILED, Health.ISOLATED,
                                Health.RESETTING}),
}

UP = frozenset({Health.HEALTHY, Health.DEGRADED, Health.CORDONED})
"""States in which a component carries traffic / runs work."""

DOWN = frozenset({Health.FAILED, Health.RESETTING})
"""States in which a chip's device OS is down: no heartbeat, no error recorded, no line written (session 35)."""


class InvalidTransition(ValueError):
    """A component was asked to move between two states the state machine does not connect."""


def check_transition(component: str, old: Health, new: Health) -> None:
    if new not in TRANSITIONS[old]:
        raise InvalidTransition(f"{component}: {old} -> {new} is not a valid health transition")
