"""Namespaces: who a memory record belongs to, and what a read may see.

A namespace is a non-empty tuple of non-empty strings, from the most general to
the most specific: ``("u1",)``, ``("u1", "agent")``, ``("u1", "agent", "session-3")``.
A plain string is a 1-tuple. ``None`` or an empty value raises
:class:`~memo_core.errors.NamespaceRequiredError`: memo fails closed.

Visibility rules (documented on :class:`~memo_core.memory.hood.MemoHood` too):

* writes go to exactly the namespace given;
* ``recall`` at N sees records stored at N **and at N's ancestors** (a fact stored
  at ``("u1",)`` is visible in each of ``u1``'s sessions), never at siblings or
  descendants, never at another root;
* prefix reads (``search_items``, ``list_facts(prefix=True)``) see N and its
  descendants.

In SQL a namespace is stored encoded: each component percent-quoted (so ``/`` can
appear inside one) and joined with ``/`` plus a trailing ``/``. Prefix matching
is then a plain string prefix on the encoded form.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote, unquote

from memo_core.errors import InvalidInputError, NamespaceRequiredError

__all__ = [
    "Namespace",
    "NamespaceLike",
    "ancestors",
    "decode_namespace",
    "encode_namespace",
    "normalize_namespace",
]

Namespace = tuple[str, ...]
NamespaceLike = str | Sequence[str]

_MAX_DEPTH = 16
_MAX_COMPONENT = 256


def normalize_namespace(namespace: NamespaceLike | None) -> Namespace:
    """The canonical tuple for ``namespace``; fails closed on anything missing or empty."""
    if namespace is None:
        raise NamespaceRequiredError("a namespace is required (for example the user id)")
    parts: tuple[object, ...] = (namespace,) if isinstance(namespace, str) else tuple(namespace)
    if not parts:
        raise NamespaceRequiredError("a namespace is required; got an empty one")
    if len(parts) > _MAX_DEPTH:
        raise InvalidInputError(f"a namespace has at most {_MAX_DEPTH} components")
    for part in parts:
        if not isinstance(part, str):
            raise InvalidInputError(f"namespace components must be strings, got {part!r}")
        if not part.strip():
            raise NamespaceRequiredError("namespace components must be non-empty strings")
        if len(part) > _MAX_COMPONENT or "\x00" in part:
            raise InvalidInputError("namespace component too long or contains NUL")
        if not part.isascii() and not _is_valid_unicode(part):
            raise InvalidInputError("namespace component is not valid Unicode (lone surrogate)")
    return tuple(str(p) for p in parts)


def _is_valid_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def encode_namespace(namespace: Namespace) -> str:
    """``("u1", "a/b")`` -> ``"u1/a%2Fb/"``; order-preserving and prefix-friendly."""
    return "".join(quote(part, safe="") + "/" for part in namespace)


def decode_namespace(encoded: str) -> Namespace:
    """Inverse of :func:`encode_namespace`."""
    return tuple(unquote(part) for part in encoded.split("/")[:-1])


def ancestors(namespace: Namespace) -> list[Namespace]:
    """``namespace`` and every ancestor, most specific first."""
    return [namespace[:i] for i in range(len(namespace), 0, -1)]
