"""What an operator's link records say at a moment (link-downs and lane losses over 24 h), as an interface.

Detection keeps the records; diagnosis only reads them through this protocol, so neither imports the other."""

from __future__ import annotations

from typing import Protocol


class LinkRecords(Protocol):
    def flaps(self, link: str) -> int: ...

    def lanes_lost(self, link: str) -> bool: ...

    def lane_losses(self, link: str) -> tuple[float, ...]: ...


class _NoHistory:
    def flaps(self, link: str) -> int:
        return 0

    def lanes_lost(self, link: str) -> bool:
        return False

    def lane_losses(self, link: str) -> tuple[float, ...]:
        return ()


NO_HISTORY: LinkRecords = _NoHistory()
