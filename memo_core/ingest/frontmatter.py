"""YAML front matter, and the JSON-safe copy of any metadata an extractor keeps.

Metadata is stored as JSON, so everything an extractor puts there passes through
:func:`json_safe`: dates become ISO strings, unknown objects their ``str``, and a
budget on the number of values stops a YAML alias bomb from expanding into
gigabytes of JSON.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

import yaml

__all__ = ["json_safe", "split_front_matter"]

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_MAX_FRONT_MATTER = 64 * 1024
_MAX_VALUES = 5000


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit


def json_safe(value: Any, *, max_values: int = _MAX_VALUES) -> Any:
    """A copy of ``value`` made of JSON types only, truncated after ``max_values`` values."""
    return _convert(value, _Budget(max_values), depth=0)


def _convert(value: Any, budget: _Budget, depth: int) -> Any:
    budget.left -= 1
    if budget.left < 0 or depth > 32:
        return None
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if budget.left <= 0:
                break
            out[str(key)] = _convert(item, budget, depth + 1)
        return out
    if isinstance(value, list | tuple | set | frozenset):
        items: list[Any] = []
        for item in value:
            if budget.left <= 0:
                break
            items.append(_convert(item, budget, depth + 1))
        return items
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def split_front_matter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """Split ``---`` YAML front matter from the body.

    Returns ``(metadata, body, error)``. Front matter that is not a YAML mapping,
    or is too large, stays in the body and ``error`` says why; the text is never lost.
    """
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text, None
    raw = match.group(1) or ""
    if len(raw) > _MAX_FRONT_MATTER:
        return {}, text, "front matter too large"
    try:
        data = yaml.safe_load(raw) if raw.strip() else {}
    except (yaml.YAMLError, RecursionError) as exc:
        return {}, text, f"invalid front matter: {exc.__class__.__name__}"
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return {}, text, "front matter is not a mapping"
    return json_safe(data), text[match.end() :], None
