"""``GuardedQA``: memo's quote-or-refuse answer engine as a LangChain Runnable.

Input: a question string, or ``{"question": ..., "k": ..., "collection": ...,
"filter": ...}``. Output: the engine's ``Answer`` or ``Refusal`` as a dict
(``result["refused"]`` tells which). Every claim in an answer carries a quote
that was located in the cited chunk; a question the base cannot answer gets a
refusal, usually before any model call, with ``result["related"]``: the nearest
passages, clearly not an answer. The chat model sees only the retrieved
passages and never has tools bound (a model with tools bound is refused).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import run_in_executor
from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field

from memo_core.answer.engine import GuardedAnswerer
from memo_core.errors import InvalidInputError
from memo_core.kb.base import MemoBase
from memo_core.llm.base import LLM
from memo_integrations.langchain.llm import LangChainLLM
from memo_integrations.toolkit import ASK_DESCRIPTION

__all__ = ["GuardedQA", "as_memo_llm"]

QAInput = str | Mapping[str, Any]


class _QuestionInput(BaseModel):
    question: str = Field(description="the question to answer from the documents")
    k: int | None = Field(default=None, ge=1, description="how many passages to read")


_OPTIONS = ("k", "collection", "filter")


def as_memo_llm(llm: BaseChatModel | Runnable[Any, Any] | LLM | None) -> LLM | None:
    """A memo ``LLM`` for a LangChain chat model (a memo ``LLM`` or ``None`` as is)."""
    if llm is None or (isinstance(llm, LLM) and not isinstance(llm, Runnable)):
        return llm
    return LangChainLLM(llm)


class GuardedQA(Runnable[QAInput, dict[str, Any]]):
    """Answer from a knowledge base with verified quotes, or refuse.

    ``llm``: any LangChain chat model (or a memo ``LLM``); ``None`` answers
    extractively (verified sentences from the best chunks, no model at all).
    ``k``, ``collection`` and ``filter`` are defaults a dict input can override.
    """

    def __init__(
        self,
        kb: MemoBase,
        llm: BaseChatModel | Runnable[Any, Any] | LLM | None = None,
        *,
        k: int | None = None,
        collection: str | list[str] | None = None,
        filter: dict[str, Any] | None = None,
        answerer: GuardedAnswerer | None = None,
    ) -> None:
        if answerer is not None and llm is not None:
            raise InvalidInputError("pass llm or a ready answerer, not both")
        self.answerer = answerer or GuardedAnswerer(kb, as_memo_llm(llm))
        self.kb = kb
        self.k = k
        self.collection = collection
        self.filter = filter

    def _ask(self, input: QAInput) -> dict[str, Any]:
        if isinstance(input, str):
            question, options = input, {}
        elif isinstance(input, Mapping):
            if "question" not in input:
                raise InvalidInputError('GuardedQA takes a question string or {"question": ...}')
            question = input["question"]
            unknown = set(input) - {"question", *_OPTIONS}
            if unknown:
                raise InvalidInputError(f"unknown GuardedQA input keys: {sorted(unknown)}")
            # None means "not given" (a tool's schema passes every optional field).
            options = {key: input[key] for key in _OPTIONS if input.get(key) is not None}
        else:
            raise InvalidInputError(
                f"GuardedQA input must be a str or dict, not {type(input).__name__}"
            )
        result = self.answerer.ask(
            question,
            k=options.get("k", self.k),
            collection=options.get("collection", self.collection),
            filter=options.get("filter", self.filter),
        )
        return result.to_dict()

    def as_tool(
        self,
        args_schema: type[BaseModel] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        arg_types: dict[str, type] | None = None,
    ) -> BaseTool:
        """This engine as a tool: ``question`` (and an optional ``k``) in, the answer
        or refusal dict out (``refused`` tells which)."""
        if args_schema is None and arg_types is None:
            args_schema = _QuestionInput
        return super().as_tool(
            args_schema,
            name=name or "ask_knowledge_base",
            description=description or ASK_DESCRIPTION,
            arg_types=arg_types,
        )

    def invoke(
        self, input: QAInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        return self._call_with_config(self._ask, input, config, run_type="chain")

    async def ainvoke(
        self, input: QAInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        # The engine is synchronous and the base is thread-safe: run it off the loop.
        return await run_in_executor(config, self.invoke, input, config)
