"""When a paper was first submitted: what its record says, checked against what its id says.

arXiv numbers a paper in the month it was first submitted: `1907.00326` is
July 2019, `hep-th/9901001` January 1999. A record's `versions[0].created`
gives the day; a record without versions (the snapshot's abstracts carry
only `update_date`, the day the record last changed) or a PDF of a later
version gives only the month, written as `YYYY-MM` (ISO 8601's reduced
precision) so that no day is made up. A date that contradicts the id's
month is not a first submission and is not used as one.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from email.utils import parsedate_to_datetime

# 1907.00326: two digits of year, two of month; hep-th/9901001: the same after the slash.
_NEW_STYLE = re.compile(r"^(?P<yy>\d{2})(?P<mm>\d{2})\.\d{4,5}$")
_OLD_STYLE = re.compile(r"^[a-z][a-z\-]*(?:\.[A-Z]{2})?/(?P<yy>\d{2})(?P<mm>\d{2})\d{3}$")
# New-style ids began in April 2007; old-style ones ran from August 1991 to March 2007.
_FIRST_NEW_STYLE = (2007, 4)
_FIRST_OLD_STYLE = (1991, 8)
_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")
# A first version stamped just past midnight in another time zone may read as the
# neighbouring month's last or first day.
_MONTH_EDGE = timedelta(days=1)


def iso_date(value: str) -> str:
    """`Mon, 2 Apr 2007 19:18:42 GMT`, `2007-04-02T…` or `2007-04-02` as `2007-04-02`;
    "" when it is none of them or no real day."""
    value = value.strip()
    if _ISO_DAY.match(value):
        try:
            return date.fromisoformat(value[:10]).isoformat()
        except ValueError:
            return ""
    try:
        return parsedate_to_datetime(value).date().isoformat()
    except (TypeError, ValueError, IndexError):
        return ""


def id_month(paper_id: str) -> str:
    """The month an arXiv id was given in (`1907.00326` -> `2019-07`); "" for an id that
    encodes none (a document's hash id, a month that is no month)."""
    match = _NEW_STYLE.match(paper_id) or _OLD_STYLE.match(paper_id)
    if match is None:
        return ""
    yy, mm = int(match["yy"]), int(match["mm"])
    if not 1 <= mm <= 12:
        return ""
    if match.re is _NEW_STYLE:
        year = 2000 + yy
        if (year, mm) < _FIRST_NEW_STYLE:
            return ""
    else:
        year = 1900 + yy if yy >= 91 else 2000 + yy
        if not _FIRST_OLD_STYLE <= (year, mm) < _FIRST_NEW_STYLE:
            return ""
    return f"{year:04d}-{mm:02d}"


def first_submission(paper_id: str, candidate: str) -> str:
    """The paper's first-submission date: `candidate` (an ISO day said to be the first
    version's) when it agrees with the month the id encodes, else that month; for an id
    that encodes no month, `candidate` as it is."""
    month = id_month(paper_id)
    if not month:
        return candidate
    if candidate and _within_month(candidate, month):
        return candidate
    return month


def _within_month(day: str, month: str) -> bool:
    try:
        when = date.fromisoformat(day[:10])
    except ValueError:
        return False
    first = date.fromisoformat(f"{month}-01")
    following = (first + timedelta(days=32)).replace(day=1)
    return first - _MONTH_EDGE <= when < following + _MONTH_EDGE


def finer(known: str, other: str) -> str:
    """`known`, or `other` when `known` is only a month and `other` a day of that month
    (a record that gives the month and a first version's stamp that gives the day)."""
    if len(known) == len("YYYY-MM") and other.startswith(f"{known}-"):
        return other
    return known
