"""Numbers as documents write them, read the same way in a question and in its evidence.

A thousand thousands is "1,000,000" in English, "1'000'000" in Swiss text,
"1 000 000" with a no-break, thin or narrow no-break space in French or Russian
typography, and ``1_000_000`` in Python. :data:`NUMBER` reads each as one number and
:func:`canonical_number` writes it without its grouping separators, so a question
about 1'000'000 is answered by a passage that says 1,000,000, and not by one
about 1'000 or 000.

A grouping separator is read only where it can be nothing else: one kind per
number, groups of three digits after a first group of one to three that does not
start with 0 (underscores group freely, as Python allows). So "3,5" (a decimal
comma), "0,001", "1,2,3", "3.12.1" (a version), "10:30" and "2024-01-05" keep their
own reading. A point is never read as a grouping separator (German "1.000.000"):
it would read versions as numbers.
"""

from __future__ import annotations

import re

__all__ = ["GROUPED_NUMBER", "GROUPING_SEPARATORS", "NUMBER", "canonical_number"]

#: Characters that group a number's digits by thousands: comma, apostrophe (straight
#: and typographic), no-break space, thin space, narrow no-break space.
GROUPING_SEPARATORS = ",'\u2019\u00a0\u2009\u202f"

#: Digits grouped by thousands (one named group, ``sep``), with a decimal part.
GROUPED_NUMBER = (
    rf"[1-9]\d{{0,2}}(?P<sep>[{GROUPING_SEPARATORS}])\d{{3}}(?!\d)(?:(?P=sep)\d{{3}}(?!\d))*"
    r"(?:\.\d+)?"
    r"|\d+(?:_\d+)+(?:\.\d+(?:_\d+)*)?"
)
#: A number, a version or a value with its separators ("3.12", "v2", "1,200",
#: "1'000'000", "10:30", "10th", "5GB"), grouped digits first. A pattern to embed
#: in a larger one (it holds one named group, ``sep``).
NUMBER = rf"[vV]?(?:{GROUPED_NUMBER}|\d+(?:[.,:/-]\d+)*)[^\W_]*"
_NUMBER = re.compile(NUMBER)
_GROUPING = re.compile(rf"(?<=\d)[{GROUPING_SEPARATORS}_](?=\d)")


def canonical_number(written: str) -> str:
    """``written`` (one :data:`NUMBER`) with its thousands grouping dropped:
    "1'000'000" -> "1000000", "1,234.5" -> "1234.5"; "3,5" and "3.12" as they are."""
    match = _NUMBER.fullmatch(written)
    if match is None or (match.group("sep") is None and "_" not in written):
        return written
    return _GROUPING.sub("", written)
