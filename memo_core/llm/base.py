"""What the answer engine needs from a language model: messages in, text out.

:class:`LLM` is a :class:`typing.Protocol`, so a LangChain chat model or a
LlamaIndex LLM can be adapted without inheriting from anything here. The
answering call never binds tools: an LLM in memo only ever sees the text it is
given and returns text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from memo_core.errors import InvalidInputError

__all__ = ["LLM", "ChatMessage", "Role", "supports_json_mode"]

Role = Literal["system", "user", "assistant"]
_ROLES: frozenset[str] = frozenset({"system", "user", "assistant"})


@dataclass(frozen=True)
class ChatMessage:
    """One chat turn: ``role`` is ``"system"``, ``"user"`` or ``"assistant"``."""

    role: Role
    content: str

    def __post_init__(self) -> None:
        if self.role not in _ROLES:
            raise InvalidInputError(f"unknown chat role: {self.role!r}")

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@runtime_checkable
class LLM(Protocol):
    """A chat model: ``complete(messages) -> reply text``.

    ``json_mode=True`` asks for a JSON object reply where the model supports it
    (implementations that cannot simply ignore it; the caller parses tolerantly).
    An implementation may declare ``supports_json_mode: bool``; read it with
    :func:`supports_json_mode`. Failures raise
    :class:`~memo_core.errors.ProviderError`.
    """

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_mode: bool = False,
        max_tokens: int | None = None,
    ) -> str: ...


def supports_json_mode(llm: object) -> bool:
    """The optional ``supports_json_mode`` attribute of an LLM (False when absent)."""
    return bool(getattr(llm, "supports_json_mode", False))
