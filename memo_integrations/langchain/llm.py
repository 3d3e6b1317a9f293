"""``LangChainLLM``: any LangChain chat model as memo's ``LLM`` (messages in, text out).

The guarded answer engine and the memory's borderline judge consume memo's
:class:`~memo_core.llm.base.LLM` protocol. This adapter converts messages, calls
``invoke`` and returns the reply text. It never binds tools, and refuses a model
that already has tools bound: the answering call must only see the text it is
given.

JSON mode is requested only from providers known to accept it
(``response_format={"type": "json_object"}`` for OpenAI-compatible chat APIs,
``format="json"`` for Ollama); other models are called plainly and the engine
parses their reply tolerantly. ``json_mode=True/False`` overrides the guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableBinding

from memo_core.errors import InvalidInputError, ProviderError
from memo_core.llm.base import ChatMessage

__all__ = ["LangChainLLM"]

#: Provider packages whose chat models accept an OpenAI-style ``response_format``.
_RESPONSE_FORMAT_PACKAGES = (
    "langchain_openai",
    "langchain_groq",
    "langchain_mistralai",
    "langchain_fireworks",
    "langchain_together",
    "langchain_deepseek",
    "langchain_xai",
)
_TOOL_KWARGS = ("tools", "functions", "tool_choice", "function_call")


def _base_model(model: Runnable[Any, Any]) -> Runnable[Any, Any]:
    """The chat model under any bindings, refusing bindings that carry tools."""
    while isinstance(model, RunnableBinding):
        if any(k in model.kwargs for k in _TOOL_KWARGS):
            raise InvalidInputError(
                "this chat model has tools bound; memo answers with a tool-less model "
                "(pass the model itself, not model.bind_tools(...))"
            )
        model = model.bound
    return model


def _json_binding(model: Runnable[Any, Any]) -> dict[str, Any] | None:
    """The bind() kwargs that turn on JSON output for this model's provider, if known."""
    package = type(model).__module__.split(".")[0]
    if package in _RESPONSE_FORMAT_PACKAGES:
        return {"response_format": {"type": "json_object"}}
    if package == "langchain_ollama":
        return {"format": "json"}
    return None


def to_langchain_messages(messages: Sequence[ChatMessage]) -> list[BaseMessage]:
    """memo chat messages as LangChain messages (system / human / ai)."""
    out: list[BaseMessage] = []
    for m in messages:
        if m.role == "system":
            out.append(SystemMessage(content=m.content))
        elif m.role == "user":
            out.append(HumanMessage(content=m.content))
        else:
            out.append(AIMessage(content=m.content))
    return out


class LangChainLLM:
    """memo's ``LLM`` protocol over a LangChain chat model.

    ``json_mode``: ``None`` (default) requests JSON output only from providers known
    to support it; ``True`` forces the OpenAI-style ``response_format`` binding;
    ``False`` never asks. ``max_tokens`` is bound only for models that declare a
    ``max_tokens`` field (otherwise it is a hint the model cannot take).
    """

    def __init__(
        self, chat_model: BaseChatModel | Runnable[Any, Any], *, json_mode: bool | None = None
    ) -> None:
        base = _base_model(chat_model)
        if not isinstance(base, BaseChatModel):
            raise InvalidInputError(
                f"LangChainLLM needs a LangChain chat model, got {type(base).__name__}"
            )
        self.chat_model = chat_model
        binding = _json_binding(base)
        if json_mode is True and binding is None:
            binding = {"response_format": {"type": "json_object"}}
        self._json_kwargs = None if json_mode is False else binding
        self._takes_max_tokens = "max_tokens" in type(base).model_fields

    @property
    def supports_json_mode(self) -> bool:
        return self._json_kwargs is not None

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_mode: bool = False,
        max_tokens: int | None = None,
    ) -> str:
        """Invoke the chat model on ``messages`` and return its reply text."""
        kwargs: dict[str, Any] = {}
        if json_mode and self._json_kwargs is not None:
            kwargs.update(self._json_kwargs)
        if max_tokens is not None and self._takes_max_tokens:
            kwargs["max_tokens"] = max_tokens
        model = self.chat_model.bind(**kwargs) if kwargs else self.chat_model
        try:
            reply = model.invoke(to_langchain_messages(messages))
        except Exception as exc:  # any provider failure crosses into memo as one type
            raise ProviderError(f"chat model call failed: {exc}") from exc
        if isinstance(reply, BaseMessage):
            return reply.text
        if isinstance(reply, str):
            return reply
        raise ProviderError(f"chat model returned {type(reply).__name__}, not a message")

    def __repr__(self) -> str:
        return f"LangChainLLM({type(_base_model(self.chat_model)).__name__})"
