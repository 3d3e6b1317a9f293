"""``MemoHoodDBChatStore``: the short-term store of ``llama_index.core.memory.Memory`` in memo.

``Memory`` keeps its FIFO of messages in an ``AsyncDBChatStore`` (by default an
SQLAlchemy table): messages are *active* while in the queue and *archived* once
flushed to the memory blocks. This store keeps that queue in a MemoHood
transcript, one session per key, so an agent's history lives in the memo file
beside the long-term memory it feeds; a new user message is captured as it
arrives (rules first, no LLM call for most turns). A message's status is kept in
its transcript metadata; ``delete_message(key, idx)`` takes the position in the
key's whole transcript.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.llms import ChatMessage
from llama_index.core.storage.chat_store.base_db import AsyncDBChatStore, MessageStatus

from memo_core.errors import InvalidInputError
from memo_core.memory import MemoHood, Message, Namespace, NamespaceLike, normalize_namespace
from memo_integrations.llamaindex.chat_store import MESSAGE_KEY, memo_role, message_text

__all__ = ["MemoHoodDBChatStore"]

#: Metadata key holding a message's queue status.
STATUS_KEY = "llamaindex_status"


class MemoHoodDBChatStore(AsyncDBChatStore):
    """An ``AsyncDBChatStore`` over one namespace of a :class:`~memo_core.memory.MemoHood`.

    Pass it as ``Memory.from_defaults(chat_store=...)``. ``capture_roles``: the roles
    captured into long-term memory when added (default: the user's only; memo never
    turns assistant text into the user's facts).
    """

    namespace: Namespace
    capture_roles: tuple[str, ...] = ("user",)

    _hood: MemoHood = PrivateAttr()

    def __init__(
        self,
        hood: MemoHood,
        *,
        namespace: NamespaceLike,
        capture_roles: tuple[str, ...] = ("user",),
        **kwargs: Any,
    ) -> None:
        if not isinstance(hood, MemoHood):
            raise InvalidInputError("MemoHoodDBChatStore needs a MemoHood")
        super().__init__(
            namespace=normalize_namespace(namespace),  # type: ignore[call-arg]  # pydantic field
            capture_roles=tuple(capture_roles),
            **kwargs,
        )
        self._hood = hood

    @classmethod
    def class_name(cls) -> str:
        return "MemoHoodDBChatStore"

    @property
    def hood(self) -> MemoHood:
        return self._hood

    # -- conversions (synchronous; every public method runs them off the loop) ----

    @staticmethod
    def _status(message: Message) -> MessageStatus:
        return MessageStatus(message.metadata.get(STATUS_KEY, MessageStatus.ACTIVE.value))

    @staticmethod
    def _to_llama(message: Message) -> ChatMessage:
        raw = message.metadata.get(MESSAGE_KEY)
        if isinstance(raw, dict):
            return ChatMessage.model_validate(raw)
        return ChatMessage(role=message.role, content=message.content)

    @staticmethod
    def _record(message: ChatMessage, status: MessageStatus) -> dict[str, Any]:
        return {
            "role": memo_role(message),
            "content": message_text(message),
            "metadata": {MESSAGE_KEY: message.model_dump(mode="json"), STATUS_KEY: status.value},
        }

    def _stored(self, key: str) -> list[Message]:
        return self._hood.get_messages(key, self.namespace)

    def _select(self, key: str, status: MessageStatus | None) -> list[Message]:
        return [m for m in self._stored(key) if status is None or self._status(m) == status]

    def _add(self, key: str, messages: list[ChatMessage], status: MessageStatus) -> None:
        for message in messages:
            captures = message.role.value in self.capture_roles and bool(
                message_text(message).strip()
            )
            record = self._record(message, status)
            self._hood.add_message(
                self.namespace,
                key,
                record["role"],
                record["content"],
                capture=captures and status == MessageStatus.ACTIVE,
                metadata=record["metadata"],
            )

    def _rewrite(self, key: str, records: list[dict[str, Any]]) -> None:
        self._hood.set_messages(key, self.namespace, records)

    def _take_oldest(self, key: str, n: int, *, archive: bool) -> list[ChatMessage]:
        if n < 0:
            raise InvalidInputError("n must not be negative")
        stored = self._stored(key)
        taken: list[ChatMessage] = []
        records: list[dict[str, Any]] = []
        for message in stored:
            status = self._status(message)
            llama = self._to_llama(message)
            if status == MessageStatus.ACTIVE and len(taken) < n:
                taken.append(llama)
                if archive:
                    records.append(self._record(llama, MessageStatus.ARCHIVED))
                continue
            records.append(self._record(llama, status))
        if taken:
            self._rewrite(key, records)
        return taken

    # -- AsyncDBChatStore -----------------------------------------------------------

    async def get_messages(
        self,
        key: str,
        status: MessageStatus | None = MessageStatus.ACTIVE,
        limit: int | None = None,
        offset: int | None = None,
    ) -> list[ChatMessage]:
        selected = await asyncio.to_thread(self._select, key, status)
        start = offset or 0
        end = None if limit is None else start + limit
        return [self._to_llama(m) for m in selected[start:end]]

    async def count_messages(
        self, key: str, status: MessageStatus | None = MessageStatus.ACTIVE
    ) -> int:
        return len(await asyncio.to_thread(self._select, key, status))

    async def add_message(
        self, key: str, message: ChatMessage, status: MessageStatus = MessageStatus.ACTIVE
    ) -> None:
        await asyncio.to_thread(self._add, key, [message], status)

    async def add_messages(
        self,
        key: str,
        messages: list[ChatMessage],
        status: MessageStatus = MessageStatus.ACTIVE,
    ) -> None:
        await asyncio.to_thread(self._add, key, list(messages), status)

    async def set_messages(
        self,
        key: str,
        messages: list[ChatMessage],
        status: MessageStatus = MessageStatus.ACTIVE,
    ) -> None:
        """Replace the history of ``key`` (nothing is captured again)."""
        records = [self._record(m, status) for m in messages]
        await asyncio.to_thread(self._rewrite, key, records)

    async def delete_message(self, key: str, idx: int) -> ChatMessage | None:
        removed = await asyncio.to_thread(self._hood.delete_message, key, self.namespace, idx)
        return None if removed is None else self._to_llama(removed)

    async def delete_messages(self, key: str, status: MessageStatus | None = None) -> None:
        """Delete the messages of ``key`` with ``status`` (all without one)."""

        def run() -> None:
            if status is None:
                self._hood.delete_messages(key, self.namespace)
                return
            kept = [
                self._record(self._to_llama(m), self._status(m))
                for m in self._stored(key)
                if self._status(m) != status
            ]
            self._rewrite(key, kept)

        await asyncio.to_thread(run)

    async def delete_oldest_messages(self, key: str, n: int) -> list[ChatMessage]:
        return await asyncio.to_thread(self._take_oldest, key, n, archive=False)

    async def archive_oldest_messages(self, key: str, n: int) -> list[ChatMessage]:
        return await asyncio.to_thread(self._take_oldest, key, n, archive=True)

    async def get_keys(self) -> list[str]:
        return await asyncio.to_thread(self._hood.list_session_keys, self.namespace)
