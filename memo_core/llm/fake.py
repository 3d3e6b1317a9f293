"""A deterministic LLM for tests, notebooks and demos with no key set.

``FakeLLM(["reply 1", "reply 2"])`` returns its queued replies in order and
records every call, so a test can assert both what the engine sent and what it
did with the answer. Going through the real answer pipeline with a fake model is
how the guard is tested: whatever the fake invents must not reach the output.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memo_core.errors import ProviderError
from memo_core.llm.base import ChatMessage

__all__ = ["FakeLLM", "FakeLLMCall"]


@dataclass(frozen=True)
class FakeLLMCall:
    """One recorded call: the messages and the options the caller passed."""

    messages: tuple[ChatMessage, ...]
    json_mode: bool
    max_tokens: int | None


class FakeLLM:
    """Replays ``replies`` in order; records every call in :attr:`calls`.

    When the queue is empty it returns ``default_reply`` if one was given, and
    otherwise raises :class:`~memo_core.errors.ProviderError` saying so, so a
    test that expects N calls fails loudly on call N+1.
    """

    def __init__(
        self,
        replies: Iterable[str] = (),
        *,
        default_reply: str | None = None,
        supports_json_mode: bool = True,
    ) -> None:
        self._replies = list(replies)
        self.default_reply = default_reply
        self.supports_json_mode = supports_json_mode
        self.calls: list[FakeLLMCall] = []

    @property
    def messages(self) -> list[list[ChatMessage]]:
        """The messages of each call, in order."""
        return [list(c.messages) for c in self.calls]

    @property
    def remaining(self) -> int:
        """How many queued replies are left."""
        return len(self._replies)

    def queue(self, *replies: str) -> None:
        """Add replies to the end of the queue."""
        self._replies.extend(replies)

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_mode: bool = False,
        max_tokens: int | None = None,
    ) -> str:
        self.calls.append(FakeLLMCall(tuple(messages), json_mode, max_tokens))
        if self._replies:
            return self._replies.pop(0)
        if self.default_reply is not None:
            return self.default_reply
        raise ProviderError(
            f"FakeLLM has no queued reply left for call {len(self.calls)}; "
            "queue more replies or pass default_reply="
        )
