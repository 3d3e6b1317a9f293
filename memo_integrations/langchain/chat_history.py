"""``MemoHoodChatMessageHistory``: a LangChain chat history kept in a MemoHood file.

Messages are stored per ``(namespace, session_id)`` in the memory file's
transcript, in order. Each human message also goes through memo's ``capture``
(rules first, no LLM), and AI messages are kept as episodic turns, so a chain
wrapped in ``RunnableWithMessageHistory`` builds long-term memory as it talks:
``MemoHood.recall`` (or :func:`~memo_integrations.langchain.store.remember_and_recall`)
in another session of the same user finds what was said here. System and tool
messages are stored but never captured.

The full LangChain message (tool calls, ids, additional kwargs) is kept in the
message's metadata, so what is read back equals what was added.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    HumanMessage,
    SystemMessage,
    message_to_dict,
    messages_from_dict,
)

from memo_core.errors import InvalidInputError
from memo_core.memory import MemoHood
from memo_core.memory.namespace import NamespaceLike, normalize_namespace
from memo_core.memory.types import Message

__all__ = ["MemoHoodChatMessageHistory"]

_LC_KEY = "langchain_message"
_ROLES = {"human": "user", "user": "user", "ai": "assistant", "assistant": "assistant"}
_ROLES_STORED_ONLY = {"system": "system"}


def _role(message: BaseMessage) -> tuple[str, bool]:
    """memo's role for a message, and whether capture may see it.

    Human and AI messages are conversation turns (captured); system prompts are
    stored only; tool and function results belong to the assistant's side of the
    exchange but are not turns anyone said, so they are stored only too.
    """
    name = message.role if isinstance(message, ChatMessage) else message.type
    if name in _ROLES:
        return _ROLES[name], True
    return _ROLES_STORED_ONLY.get(name, "assistant"), False


def _to_langchain(message: Message) -> BaseMessage:
    stored = message.metadata.get(_LC_KEY)
    if isinstance(stored, dict):
        return messages_from_dict([stored])[0]
    # Written by another adapter or directly through MemoHood.add_message.
    if message.role == "user":
        return HumanMessage(content=message.content)
    if message.role == "system":
        return SystemMessage(content=message.content)
    return AIMessage(content=message.content)


class MemoHoodChatMessageHistory(BaseChatMessageHistory):
    """Chat history of one session, stored in a MemoHood memory file.

    ``memory``: an open :class:`~memo_core.memory.MemoHood` or a path to one.
    ``namespace`` (required, memo fails closed): who the conversation belongs to,
    for example ``("user-42",)``; facts captured from it are stored there, so every
    session of that user recalls them. ``capture=False`` keeps the transcript only.
    """

    def __init__(
        self,
        memory: MemoHood | str | Path,
        session_id: str,
        *,
        namespace: NamespaceLike,
        capture: bool = True,
    ) -> None:
        if not isinstance(session_id, str) or not session_id:
            raise InvalidInputError("session_id must be a non-empty string")
        self.memory = memory if isinstance(memory, MemoHood) else MemoHood(memory)
        self.session_id = session_id
        self.namespace = normalize_namespace(namespace)
        self.capture = capture

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The session's messages, oldest first."""
        stored = self.memory.get_messages(self.session_id, self.namespace)
        return [_to_langchain(m) for m in stored]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append messages; human and AI messages are captured (when ``capture``)."""
        for message in messages:
            role, conversational = _role(message)
            # default=str: provider metadata may hold datetimes or enums.
            lc_dict = json.loads(json.dumps(message_to_dict(message), default=str))
            metadata: dict[str, Any] = {_LC_KEY: lc_dict}
            self.memory.add_message(
                self.namespace,
                self.session_id,
                role,
                message.text,
                capture=self.capture and conversational,
                metadata=metadata,
            )

    def clear(self) -> None:
        """Delete this session's transcript (captured facts stay; use ``forget``)."""
        self.memory.delete_messages(self.session_id, self.namespace)
