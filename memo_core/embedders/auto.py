"""The default embedder of a base opened without one: the offline local model, or none.

:class:`~memo_core.kb.base.MemoBase` and :class:`~memo_core.memory.hood.MemoHood`
take ``embedder="auto"`` by default: memo's offline MiniLM model
(:func:`~memo_core.embedders.fastembed.default_local_embedder`, installed from PyPI
by ``memo[local]``, no download). Without that extra they fall back to keyword-only
search, and say so once per process rather than on every open. ``None`` asks for
keyword-only explicitly; an :class:`~memo_core.embedders.base.Embedder` is used as given.
"""

from __future__ import annotations

import logging
import threading

from memo_core.embedders.base import Embedder
from memo_core.errors import InvalidInputError, MemoError

__all__ = ["AUTO", "EmbedderChoice", "resolve_embedder"]

log = logging.getLogger(__name__)

#: "The default local embedder if it is installed, else keyword-only".
AUTO = "auto"

#: What a base's ``embedder=`` accepts.
EmbedderChoice = Embedder | str | None

_warned = threading.Event()


def resolve_embedder(embedder: EmbedderChoice) -> Embedder | None:
    """The embedder ``embedder`` names: itself, the local default for ``"auto"``, or None."""
    if embedder is None:
        return None
    if isinstance(embedder, str):
        if embedder != AUTO:
            raise InvalidInputError(f"unknown embedder spec {embedder!r}; pass an Embedder")
        try:
            from memo_core.embedders.fastembed import default_local_embedder

            return default_local_embedder()
        except (ImportError, MemoError) as exc:  # no local extra: keyword-only, said once
            if not _warned.is_set():
                _warned.set()
                log.warning(
                    "the default local embedder is unavailable (%s); search and recall are "
                    "keyword-only (pip install 'memo[local]', or pass embedder=None to "
                    "choose keyword-only and silence this)",
                    exc,
                )
            return None
    return embedder
