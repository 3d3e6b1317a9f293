"""Chat transcripts per session key, for chat-history adapters (LangChain, LlamaIndex).

A transcript is the application's record of a conversation: messages in order,
kept as written. ``add_message(..., capture=True)`` also feeds the message to
:meth:`capture`, so user messages become long-term memory (assistant messages
are kept as episodic turns only). Deleting transcript messages does not delete
the memory captured from them; use ``forget`` for that.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from memo_core.errors import InvalidInputError
from memo_core.memory.base import HoodPart, new_id
from memo_core.memory.capture import ROLES, Capture, screen_secrets
from memo_core.memory.config import MemoryConfig
from memo_core.memory.namespace import NamespaceLike
from memo_core.memory.records import message_from_row
from memo_core.memory.store import FactStore
from memo_core.memory.timeutil import as_utc, to_iso
from memo_core.memory.types import Message

__all__ = ["Transcripts"]


def _check_key(session_key: str) -> None:
    if not isinstance(session_key, str) or not session_key:
        raise InvalidInputError("session_key must be a non-empty string")
    if "\x00" in session_key:
        raise InvalidInputError("session_key contains a NUL character")


class Transcripts(HoodPart):
    """``add_message``, ``get_messages``, ``set_messages``, deletes, ``list_session_keys``.

    ``capture`` receives the messages added with ``capture=True``.
    """

    def __init__(self, store: FactStore, config: MemoryConfig, capture: Capture) -> None:
        super().__init__(store, config)
        self._capture = capture

    def add_message(
        self,
        namespace: NamespaceLike | None,
        session_key: str,
        role: str,
        content: str,
        *,
        capture: bool = True,
        at: datetime | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> Message:
        """Append a message to the session's transcript (and capture it by default)."""
        ns, enc = self._ns(namespace)
        _check_key(session_key)
        if role not in ROLES:
            raise InvalidInputError(f"role must be one of {sorted(ROLES)}, got {role!r}")
        if not isinstance(content, str):
            raise InvalidInputError("content must be a string")
        when = as_utc(at)
        try:
            meta = json.dumps(dict(metadata or {}), ensure_ascii=False, sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"metadata must be JSON-serialisable: {exc}") from exc
        # The transcript is stored too: a credential in it is handled as in the turn.
        content, _ = screen_secrets(content, self.config.secrets)
        turn_id = None
        if capture and content.strip():
            turn_id = (
                self._capture.capture(
                    content, namespace=ns, role=role, at=when, session_id=session_key
                ).turn_id
                or None
            )
        values = {
            "id": new_id("msg"),
            "ns": enc,
            "session_key": session_key,
            "seq": None,
            "role": role,
            "content": content,
            "metadata": meta,
            "at": to_iso(when),
            "turn_id": turn_id,
        }
        self._store.insert_message(values)
        messages = self.get_messages(session_key, ns)
        return messages[-1]

    def get_messages(self, session_key: str, namespace: NamespaceLike | None) -> list[Message]:
        """The session's messages in order (``index`` = position in this list)."""
        _, enc = self._ns(namespace)
        _check_key(session_key)
        return [
            replace(message_from_row(row), index=i)
            for i, row in enumerate(self._store.messages(enc, session_key))
        ]

    def set_messages(
        self,
        session_key: str,
        namespace: NamespaceLike | None,
        messages: Sequence[Mapping[str, Any] | tuple[str, str]],
        *,
        at: datetime | None = None,
    ) -> list[Message]:
        """Replace the transcript (no capture: these messages were seen before)."""
        ns, enc = self._ns(namespace)
        _check_key(session_key)
        parsed: list[tuple[str, str, Mapping[str, Any]]] = []
        for item in messages:
            if isinstance(item, tuple):
                role, content = item
                meta: Mapping[str, Any] = {}
            else:
                role, content = item.get("role", ""), item.get("content", "")
                meta = item.get("metadata") or {}
            if role not in ROLES or not isinstance(content, str):
                raise InvalidInputError(f"invalid message: {item!r}")
            parsed.append((role, content, meta))
        with self.db.transaction():
            self._store.delete_messages(enc, session_key)
            for role, content, meta in parsed:
                self.add_message(
                    ns, session_key, role, content, capture=False, at=at, metadata=meta
                )
        return self.get_messages(session_key, ns)

    def delete_messages(self, session_key: str, namespace: NamespaceLike | None) -> int:
        """Delete the session's transcript; returns how many messages were deleted."""
        _, enc = self._ns(namespace)
        _check_key(session_key)
        return self._store.delete_messages(enc, session_key)

    def delete_message(
        self, session_key: str, namespace: NamespaceLike | None, index: int
    ) -> Message | None:
        """Delete the message at position ``index`` (negative counts from the end)."""
        _, enc = self._ns(namespace)
        _check_key(session_key)
        rows = self._store.messages(enc, session_key)
        try:
            row = rows[index]
        except IndexError:
            return None
        self._store.delete_messages(enc, session_key, [int(row[0])])
        position = index if index >= 0 else len(rows) + index
        return replace(message_from_row(row), index=position)

    def delete_last_message(
        self, session_key: str, namespace: NamespaceLike | None
    ) -> Message | None:
        return self.delete_message(session_key, namespace, -1)

    def list_session_keys(self, namespace: NamespaceLike | None) -> list[str]:
        """Session keys with a transcript at ``namespace``, oldest first."""
        _, enc = self._ns(namespace)
        return self._store.session_keys(enc)
