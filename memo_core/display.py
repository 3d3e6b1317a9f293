"""Untrusted names shown to people: control characters escaped, one line always.

A file name may hold a newline, a carriage return, an ANSI escape or a bidi
override; printed raw it forges lines in a terminal or a log ("added 1 ... \\n
memo: error: ...") or reorders what the reader sees. :func:`printable` escapes
them the way Python's ``repr`` does (``\\n``, ``\\x1b``, ``\\u202e``) and leaves
every other character, spaces and non-Latin letters included, as it is. JSON
output needs none of this: JSON escapes control characters itself.
"""

from __future__ import annotations

import re

__all__ = ["printable"]

#: C0 and C1 controls, DEL, the line and paragraph separators, and the bidi
#: embeddings, overrides, isolates and marks (the "Trojan Source" characters).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(value: object) -> str:
    """``str(value)`` with every control, separator and bidi character escaped.

    Backslashes are left alone (a Windows path stays readable), so a name that
    really contains the two characters ``\\n`` looks like an escaped newline:
    ambiguous to read, but it can no longer break a line.
    """
    return _UNSAFE.sub(_escape, str(value))
