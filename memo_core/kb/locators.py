"""Locators the caller gives: the metadata keys that say where a text comes from.

Memo's own extractors write locators (a PDF's page, a Markdown heading path, a
caption's timecodes). Text that arrives through :meth:`MemoBase.add_texts` or a
framework adapter carries them as metadata instead, under the names people use:
``page`` (LlamaIndex readers: ``page_label``), ``heading``, ``timecode`` and
``url``. They become the chunk's locator, so a citation says "page 2" whichever
way the text came in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["locator_from_metadata", "parse_timecode"]

_TIMECODE = re.compile(r"^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:\.\d+)?)$")


def parse_timecode(value: Any) -> float | None:
    """Seconds from ``83.5``, ``"83.5"``, ``"01:23"`` or ``"1:01:23.5"``; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if value >= 0 else None
    text = str(value).strip()
    try:
        seconds = float(text)
        return seconds if seconds >= 0 else None
    except ValueError:
        pass
    match = _TIMECODE.match(text)
    if match is None:
        return None
    hours, minutes, secs = match.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + float(secs)


def _page(value: Any) -> Any:
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())  # "2" from a reader's page label is page 2
    return value


def locator_from_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The locator a caller's ``metadata`` describes (empty when it names none)."""
    out: dict[str, Any] = {}
    page = metadata.get("page")
    if page is None or page == "":
        page = metadata.get("page_label")
    if page is not None and page != "" and not isinstance(page, bool):
        out["page"] = _page(page)
    heading = metadata.get("heading")
    if isinstance(heading, list | tuple):
        heading = " > ".join(str(h) for h in heading if str(h).strip())
    if heading:
        out["heading"] = str(heading)
    for key in ("timecode", "start_time"):
        if key in metadata and metadata[key] is not None:
            seconds = parse_timecode(metadata[key])
            if seconds is not None:
                out["start_time"] = seconds
                if key == "timecode":
                    out["timecode"] = str(metadata[key])
                break
    end = parse_timecode(metadata["end_time"]) if metadata.get("end_time") is not None else None
    if end is not None:
        out["end_time"] = end
    url = metadata.get("url")
    if isinstance(url, str) and url.strip():
        out["url"] = url.strip()
    return out
