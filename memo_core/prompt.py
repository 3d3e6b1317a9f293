"""What memo puts in front of a model: token estimates and the fences around data.

Every prompt memo builds holds data (document passages, remembered facts, past
turns) inside a marked fence, with the instruction that it is data. Text from a
user or a document must never close that fence or open a new one, and there are
two ways to make sure, one per kind of fenced data:

* :func:`inline_data` for one-line items of a memory or context block: the text
  becomes one line, and every ``<`` and ``>`` becomes ``‹``/``›``, so no tag of any
  name (``</memory>``, ``</context>``, ``<system>``) can be spelled inside.
* :func:`passage_data` for a knowledge-base passage the model must quote verbatim:
  only the passage tags themselves (``<passage``, ``</passage``) lose their ``<``,
  because every other character must stay quotable for the citation check.
"""

from __future__ import annotations

import math
import re

__all__ = ["estimate_tokens", "inline_data", "passage_data"]

_BRACKETS = str.maketrans({"<": "‹", ">": "›"})
_PASSAGE_TAG = re.compile(r"<(?=\s*/?\s*passage)", re.IGNORECASE)


def estimate_tokens(text: str) -> int:
    """About four characters per token, with no tokenizer: ``ceil(len / 4)``, 0 for ""."""
    return math.ceil(len(text) / 4)


def inline_data(text: str) -> str:
    """``text`` on one line with no angle bracket: nothing in it can open or close a tag."""
    return " ".join(text.translate(_BRACKETS).split())


def passage_data(text: str) -> str:
    """``text`` unchanged except that no passage tag can be opened or closed in it."""
    return _PASSAGE_TAG.sub("‹", text)
