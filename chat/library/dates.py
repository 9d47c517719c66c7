"""Dates as a reader is shown them: a first submission and an update, each as precise as known.

`published` is an ISO day or, when only the month is known, `YYYY-MM`
(`ingest/sources/dates.py`); neither is ever printed with a day it lacks.
"""

from __future__ import annotations

from datetime import date

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def shown(iso: str | None) -> str:
    """`2019-07-03` as "3 Jul 2019", `2019-07` as "Jul 2019"; "" for no date or none
    that reads as one."""
    value = (iso or "").strip()
    try:
        if len(value) == len("YYYY-MM"):
            day = date.fromisoformat(f"{value}-01")
            return f"{_MONTHS[day.month - 1]} {day.year}"
        day = date.fromisoformat(value[:10])
    except ValueError:
        return ""
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"


def updated_since(published: str | None, updated: str | None) -> str:
    """`updated` when it says something `published` does not: a later day, or a later
    month than a month-only `published`; "" otherwise."""
    first, last = (published or "").strip(), (updated or "").strip()
    if not last or not shown(last):
        return ""
    if not first:
        return last
    return last if last[: len(first)] > first else ""


def dated(published: str | None, updated: str | None) -> str:
    """ "Submitted Jul 2019 · updated 5 Aug 2025", "Submitted 3 Jul 2019", or, for a
    paper whose first submission is not known, "Updated 5 Aug 2025"; "" with no date."""
    later = updated_since(published, updated)
    if not shown(published):
        return f"Updated {shown(later)}" if later else ""
    text = f"Submitted {shown(published)}"
    return f"{text} · updated {shown(later)}" if later else text
