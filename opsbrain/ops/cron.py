"""Five-field cron expressions (``minute hour day-of-month month day-of-week``), parsed without a scheduler library.

Each field is ``*``, a number, a range ``a-b``, a step ``*/n`` or ``a-b/n``, or a comma list of those; day-of-week
0-7 with 0 and 7 = Sunday. The month and day-of-week fields also take crontab(5)'s names, the first three letters
in any case (``jan``-``dec``, ``sun``-``sat``), in ranges and lists too (``mon-fri``; session 36: before, a name was
refused as a bad range). As in Vixie cron, when both day fields are restricted a day matches either. Times are
naive datetimes of the simulation's wall clock (``Simulation.wallclock``). An expression no date can match
(``0 0 31 2 *``) is refused by :meth:`Cron.parse` (session 36: it was refused only when a run looked for its next
time).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day of month", 1, 31), ("month", 1, 12), ("day of week", 0, 7))
MAX_SEARCH_DAYS = 366 * 5  # reason: 29 February on a Monday recurs within 28 years; 5 years bounds a typo's search
NAMES = {"month": ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
         "day of week": ("sun", "mon", "tue", "wed", "thu", "fri", "sat")}
"""crontab(5): the first three letters of a month's or a day's name, in either case (January = 1, Sunday = 0)."""


class CronError(ValueError):
    """A malformed cron expression; the message names the field."""


def _number(text: str, name: str) -> str:
    """``text`` with a month or day name replaced by its number (other text as it is)."""
    names = NAMES.get(name, ())
    low = text.lower()
    return str(names.index(low) + (name == "month")) if low in names else text


def _field(text: str, name: str, lo: int, hi: int) -> frozenset[int]:
    out: set[int] = set()
    for part in text.split(","):
        base, _, step_s = part.partition("/")
        step = 1
        if step_s:
            if not step_s.isdigit() or int(step_s) < 1:
                raise CronError(f"{name}: bad step {step_s!r}")
            step = int(step_s)
        if base == "*":
            a, b = lo, hi
        elif "-" in base:
            a_s, _, b_s = base.partition("-")
            a_s, b_s = _number(a_s, name), _number(b_s, name)
            if not (a_s.isdigit() and b_s.isdigit()):
                raise CronError(f"{name}: bad range {base!r}")
            a, b = int(a_s), int(b_s)
        elif _number(base, name).isdigit():
            a = b = int(_number(base, name))
            if step_s:
                b = hi
        else:
            raise CronError(f"{name}: {base!r} is not a number, range or '*'")
        if not (lo <= a <= b <= hi):
            raise CronError(f"{name}: {base!r} outside {lo}-{hi}")
        out.update(range(a, b + 1, step))
    return frozenset(out)


@dataclass(frozen=True)
class Cron:
    """A parsed expression; :meth:`next_after` gives the next firing time."""

    text: str
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday
    dom_any: bool
    dow_any: bool

    @classmethod
    def parse(cls, text: str) -> Cron:
        parts = text.split()
        if len(parts) != 5:
            raise CronError(f"{text!r}: expected 5 fields (minute hour day-of-month month day-of-week), "
                            f"got {len(parts)}")
        sets = [_field(p, name, lo, hi) for p, (name, lo, hi) in zip(parts, FIELDS, strict=True)]
        weekdays = frozenset(d % 7 for d in sets[4])
        cron = cls(text, sets[0], sets[1], sets[2], sets[3], weekdays, parts[2] == "*", parts[4] == "*")
        if not any(cron._day_ok(datetime(2024, 1, 1) + timedelta(days=k)) for k in range(366 * 4 + 1)):
            raise CronError(f"{text!r} never fires: no date matches its day-of-month, month and day-of-week")
        return cron

    def _day_ok(self, d: datetime) -> bool:
        if d.month not in self.months:
            return False
        dom = d.day in self.days
        dow = (d.isoweekday() % 7) in self.weekdays
        if self.dom_any or self.dow_any:
            return dom and dow
        return dom or dow

    def same_times(self, other: Cron) -> bool:
        """Whether the two expressions fire at exactly the same times (however written)."""
        return all(getattr(self, k) == getattr(other, k) for k in ("minutes", "hours", "days", "months", "weekdays",
                                                                   "dom_any", "dow_any"))

    def next_after(self, t: datetime) -> datetime:
        """The first firing time strictly after ``t`` (to the minute)."""
        start = t.replace(second=0, microsecond=0) + timedelta(minutes=1)
        day = start.replace(hour=0, minute=0)
        for k in range(MAX_SEARCH_DAYS):
            d = day + timedelta(days=k)
            if not self._day_ok(d):
                continue
            for h in sorted(self.hours):
                for m in sorted(self.minutes):
                    cand = d.replace(hour=h, minute=m)
                    if cand >= start:
                        return cand
        raise CronError(f"{self.text!r} does not fire within {MAX_SEARCH_DAYS} days")

    def times_between(self, a: datetime, b: datetime) -> list[datetime]:
        """Every firing time in ``(a, b]``."""
        out: list[datetime] = []
        t = a
        while True:
            t = self.next_after(t)
            if t > b:
                return out
            out.append(t)
