"""``LlamaIndexLLM``: any LlamaIndex LLM as memo's :class:`~memo_core.llm.LLM`.

memo's answer engine and memory talk to a model through one method,
``complete(messages) -> str``. This adapter forwards to ``llm.chat(...)`` with
no tools (the answering call must never have tools bound) and turns the
framework's failures into :class:`~memo_core.errors.ProviderError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage as LIChatMessage
from llama_index.core.base.llms.types import MessageRole
from llama_index.core.llms import LLM as LlamaLLM

from memo_core.errors import InvalidInputError, MemoError, ProviderError
from memo_core.llm.base import ChatMessage

__all__ = ["LlamaIndexLLM"]

_ROLES = {
    "system": MessageRole.SYSTEM,
    "user": MessageRole.USER,
    "assistant": MessageRole.ASSISTANT,
}


class LlamaIndexLLM:
    """Adapts a LlamaIndex ``LLM`` (``MockLLM``, ``OpenAI``, ``Ollama``...) to memo.

    ``json_mode`` is not forwarded (providers spell it differently), so
    ``supports_json_mode`` is ``False`` and memo parses replies tolerantly.
    ``max_tokens``, when given, is passed to ``chat`` as a keyword argument.
    """

    supports_json_mode = False

    def __init__(self, llm: LlamaLLM) -> None:
        if not isinstance(llm, LlamaLLM):
            raise InvalidInputError("LlamaIndexLLM needs a LlamaIndex LLM")
        self.llm = llm

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        json_mode: bool = False,
        max_tokens: int | None = None,
    ) -> str:
        chat = [LIChatMessage(role=_ROLES[m.role], content=m.content) for m in messages]
        kwargs: dict[str, Any] = {}
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        try:
            response = self.llm.chat(chat, **kwargs)
        except MemoError:
            raise
        except Exception as exc:
            raise ProviderError(f"the LlamaIndex LLM failed: {exc}") from exc
        return response.message.content or ""
