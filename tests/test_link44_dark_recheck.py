"""Which dark links of an incident the 20 s recheck reads (session 44, link44).

The recheck (``_recheck``) takes the oldest link dark *now* each time it runs, so an incident whose oldest link comes
back while another stays dark is still read once that other link passes ``link_down_after_s`` (the first test: it
passed before this session too, kept as a guard). What was missed: the chain started only at an incident's first
diagnosis, so a link that went dark in the incident after its chain had ended (a link that blipped, then went down
for good; a sibling's second down) was read once, a second after its down, and never past the 20 s that tell a
link_down from a dirty connector's blip."""

from __future__ import annotations

from opsbrain.detection import DetectorParams
from opsbrain.ingest import Signal
from tests.test_link43b_dark_recheck import LINK, _run

OTHER = "pod1/node34/l1sw5~pod1/l2plane5/sw01"
AFTER = DetectorParams().link_down_after_s


def _sw(t: float, kind: str, link: str = LINK) -> Signal:
    return Signal(t, kind, link, link.split("~")[0], 2 if kind == "sw:down" else 1, f"{kind} {link}")


def test_the_oldest_link_back_while_another_stays_dark_the_other_is_read_past_the_threshold() -> None:
    for up in (103.0, 112.0, 125.0):  # before the first read, between the recheck and 20 s, after 20 s
        at = _run([_sw(100.0, "sw:down"), _sw(100.5, "sw:down", OTHER), _sw(up, "sw:up")], until=400.0)
        assert max(at) >= 100.5 + AFTER, up


def test_a_link_dark_again_after_the_recheck_ended_is_read_past_the_threshold() -> None:
    # a blip (the chain ends at its 5 s recheck: nothing dark), then the same link down for good 400 s later
    at = _run([_sw(100.0, "sw:down"), _sw(100.5, "sw:up"), _sw(500.0, "sw:down")], until=2000.0)
    assert max(at) >= 500.0 + AFTER  # before: last read at 501 s
    # the oldest link dark for good (its chain ended at 120 s); the other blipped, came back, went down for good
    at = _run([_sw(100.0, "sw:down"), _sw(100.5, "sw:down", OTHER), _sw(101.0, "sw:up", OTHER),
               _sw(125.0, "sw:up"), _sw(130.0, "sw:down", OTHER)], until=2000.0)
    assert max(at) >= 130.0 + AFTER  # before: last read at 131 s


def test_a_link_that_stays_dark_is_still_read_once_past_the_threshold() -> None:
    # a new kind at 160 s is read (161 s); no new chain after it: no link went dark since the first chain's
    at = _run([_sw(100.0, "sw:down"), _sw(100.5, "sw:down", OTHER), _sw(160.0, "sw:other")], until=2000.0)
    assert [t for t in at if t >= 100.0 + AFTER] == [100.0 + AFTER, 161.0]
