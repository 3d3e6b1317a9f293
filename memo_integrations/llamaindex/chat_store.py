"""``MemoHoodChatStore``: LlamaIndex chat histories kept in a MemoHood memory file.

Each chat key is a MemoHood transcript session in one namespace, so histories
survive restarts and sit next to the long-term memory they feed. A new user
message is also given to ``MemoHood.capture`` (rules first, no LLM call for most
turns), which is how a ``ChatMemoryBuffer(chat_store=...)`` conversation becomes
recallable facts. The whole LlamaIndex message (blocks, tool calls,
``additional_kwargs``) is kept in the transcript's metadata and restored as is;
roles memo does not know (``tool``, ``function``...) are stored as ``assistant``
(``developer`` as ``system``) and come back with their own role.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.llms import ChatMessage
from llama_index.core.storage.chat_store.base import BaseChatStore

from memo_core.errors import InvalidInputError
from memo_core.memory import MemoHood, Message, Namespace, NamespaceLike, normalize_namespace

__all__ = ["MemoHoodChatStore"]

#: Metadata key holding the serialised LlamaIndex message.
MESSAGE_KEY = "llamaindex_message"

_MEMO_ROLE = {"user": "user", "system": "system", "developer": "system"}


def memo_role(message: ChatMessage) -> str:
    """The MemoHood transcript role for a LlamaIndex message."""
    return _MEMO_ROLE.get(message.role.value, "assistant")


def message_text(message: ChatMessage) -> str:
    """The message's text (``""`` for a message with only tool calls or images)."""
    return message.content or ""


class MemoHoodChatStore(BaseChatStore):
    """A ``BaseChatStore`` over one namespace of a :class:`~memo_core.memory.MemoHood`.

    ``capture_roles``: which roles are fed to capture when a message is new
    (default: user messages only; MemoHood never turns assistant text into the
    user's facts, but may keep it as episodic context if you add ``"assistant"``).
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
            raise InvalidInputError("MemoHoodChatStore needs a MemoHood")
        super().__init__(
            namespace=normalize_namespace(namespace),  # type: ignore[call-arg]  # pydantic field
            capture_roles=tuple(capture_roles),
            **kwargs,
        )
        self._hood = hood

    @classmethod
    def class_name(cls) -> str:
        return "MemoHoodChatStore"

    @property
    def hood(self) -> MemoHood:
        return self._hood

    # -- conversions ----------------------------------------------------------

    def _metadata(self, message: ChatMessage) -> dict[str, Any]:
        return {MESSAGE_KEY: message.model_dump(mode="json")}

    @staticmethod
    def _to_llama(message: Message) -> ChatMessage:
        raw = message.metadata.get(MESSAGE_KEY)
        if isinstance(raw, dict):
            return ChatMessage.model_validate(raw)
        return ChatMessage(role=message.role, content=message.content)

    def _captures(self, message: ChatMessage) -> bool:
        return message.role.value in self.capture_roles and bool(message_text(message).strip())

    # -- BaseChatStore --------------------------------------------------------

    def set_messages(self, key: str, messages: list[ChatMessage]) -> None:
        """Replace the history of ``key`` atomically.

        Messages the stored history already held (same role and text) are not
        captured again, so an agent that re-sets its whole history each turn
        captures each user message once.
        """
        seen = Counter((m.role.value, message_text(m)) for m in self.get_messages(key))
        fresh: list[ChatMessage] = []
        for m in messages:
            ident = (m.role.value, message_text(m))
            if seen[ident] > 0:
                seen[ident] -= 1
            elif self._captures(m):
                fresh.append(m)
        self._hood.set_messages(
            key,
            self.namespace,
            [
                {"role": memo_role(m), "content": message_text(m), "metadata": self._metadata(m)}
                for m in messages
            ],
        )
        for m in fresh:  # after the write: a capture may call an LLM, never under a lock
            self._hood.capture(
                message_text(m), namespace=self.namespace, role=memo_role(m), session_id=key
            )

    def get_messages(self, key: str) -> list[ChatMessage]:
        return [self._to_llama(m) for m in self._hood.get_messages(key, self.namespace)]

    def add_message(self, key: str, message: ChatMessage, idx: int | None = None) -> None:
        """Append ``message`` to ``key``'s history, or insert it at position ``idx``
        (as ``SimpleChatStore`` does; a position past the end appends)."""
        if idx is None:
            self._hood.add_message(
                self.namespace,
                key,
                memo_role(message),
                message_text(message),
                capture=self._captures(message),
                metadata=self._metadata(message),
            )
            return
        if isinstance(idx, bool) or not isinstance(idx, int):
            raise InvalidInputError(f"idx must be an integer position, not {idx!r}")
        history = self.get_messages(key)
        history.insert(idx, message)
        self.set_messages(key, history)  # captures the inserted message, once

    def delete_messages(self, key: str) -> list[ChatMessage] | None:
        """Delete the history of ``key`` (captured memory stays: use ``forget``)."""
        existing = self.get_messages(key)
        if not existing:
            return None
        self._hood.delete_messages(key, self.namespace)
        return existing

    def delete_message(self, key: str, idx: int) -> ChatMessage | None:
        removed = self._hood.delete_message(key, self.namespace, idx)
        return None if removed is None else self._to_llama(removed)

    def delete_last_message(self, key: str) -> ChatMessage | None:
        removed = self._hood.delete_last_message(key, self.namespace)
        return None if removed is None else self._to_llama(removed)

    def get_keys(self) -> list[str]:
        return self._hood.list_session_keys(self.namespace)
