"""``ScriptedChatModel``: a deterministic tool-calling chat model for tests and notebooks.

It replays queued replies (text, or ``AIMessage`` objects carrying ``tool_calls``)
and records every list of messages it was sent, so a test can assert what an agent
put in front of the model (a memory block, a tool result) without a key or a
network. ``bind_tools`` records the tools and returns the same model, which is all
``create_agent`` needs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from pydantic import ConfigDict, Field, PrivateAttr

from memo_core.errors import ProviderError

__all__ = ["ScriptedChatModel"]


class ScriptedChatModel(BaseChatModel):
    """Replays ``replies`` in order; ``calls`` holds the messages of each call.

    A ``str`` reply becomes an ``AIMessage``; pass ``AIMessage(content="",
    tool_calls=[{"name": ..., "args": {...}, "id": "call_1"}])`` to script a tool
    call. When the queue is empty, ``default_reply`` is returned if set, otherwise
    :class:`~memo_core.errors.ProviderError` is raised (a test expecting N calls
    fails loudly on call N+1).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    # Any: pydantic would try to build an AIMessage out of a plain str reply.
    replies: list[Any] = Field(default_factory=list)
    default_reply: str | None = None
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _tools: list[str] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "memo-scripted"

    @property
    def calls(self) -> list[list[BaseMessage]]:
        """The messages of every call so far, in order."""
        return self._calls

    @property
    def bound_tools(self) -> list[str]:
        """The names of the tools the agent bound."""
        return self._tools

    def queue(self, *replies: AIMessage | str) -> None:
        self.replies.extend(replies)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._calls.append(list(messages))
        if self.replies:
            reply = self.replies.pop(0)
        elif self.default_reply is not None:
            reply = self.default_reply
        else:
            raise ProviderError(f"ScriptedChatModel has no reply left for call {len(self._calls)}")
        message = AIMessage(content=reply) if isinstance(reply, str) else reply
        return ChatResult(generations=[ChatGeneration(message=message)])

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        self._tools = [str(getattr(t, "name", None) or getattr(t, "__name__", t)) for t in tools]
        return self

    @classmethod
    def from_replies(cls, replies: Iterable[AIMessage | str], **kwargs: Any) -> ScriptedChatModel:
        return cls(replies=list(replies), **kwargs)
