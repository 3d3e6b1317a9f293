"""``knowledge_base_tools(kb)``: a memo knowledge base as two LangChain tools.

``search_knowledge_base(query, k)`` returns passages with their citations;
``ask_knowledge_base(question)`` returns memo's guarded answer, verified quotes
with locators, or a refusal (a value, ``"refused": true``, not an error). Both
return JSON text (what a chat model reads) and are built from
:mod:`memo_integrations.toolkit`, the payloads the MCP server serves too.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from memo_core.answer.engine import GuardedAnswerer
from memo_core.kb.base import MemoBase
from memo_core.llm.base import LLM
from memo_integrations import toolkit
from memo_integrations.langchain.qa import as_memo_llm

__all__ = ["knowledge_base_tools"]


class _SearchArgs(BaseModel):
    query: str = Field(description="what to look for, in the user's words")
    k: int = Field(default=5, ge=1, le=toolkit.MAX_K, description="how many passages")


class _AskArgs(BaseModel):
    question: str = Field(description="the question to answer from the documents")


def _json(payload: dict[str, Any]) -> str:
    return json.dumps(payload, ensure_ascii=False, default=str)


def knowledge_base_tools(
    kb: MemoBase,
    *,
    llm: BaseChatModel | Runnable[Any, Any] | LLM | None = None,
    k: int = 5,
    answerer: GuardedAnswerer | None = None,
) -> list[BaseTool]:
    """``[search_knowledge_base, ask_knowledge_base]`` over ``kb``.

    ``llm`` writes the answers of ``ask_knowledge_base`` (tool-less, from the
    retrieved passages only; ``None`` answers extractively with verified sentences);
    ``answerer`` replaces the whole engine. ``k`` is the default passage count.
    """
    engine = answerer or GuardedAnswerer(kb, as_memo_llm(llm))

    def search(query: str, k: int = k) -> str:
        return _json(toolkit.search_knowledge_base(kb, query, k=k))

    def ask(question: str) -> str:
        return _json(toolkit.ask_knowledge_base(engine, question))

    return [
        StructuredTool.from_function(
            func=search,
            name="search_knowledge_base",
            description=toolkit.SEARCH_DESCRIPTION,
            args_schema=_SearchArgs,
        ),
        StructuredTool.from_function(
            func=ask,
            name="ask_knowledge_base",
            description=toolkit.ASK_DESCRIPTION,
            args_schema=_AskArgs,
        ),
    ]
