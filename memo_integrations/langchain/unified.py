"""``MemoUnifiedRetriever``: one LangChain retriever over memory and the knowledge base.

Runs :func:`memo_core.unified.recall_all` (memory gate and recall, hybrid search
of the documents, RRF across the two sources, conflict flags, one token budget)
and returns one ``Document`` per item, best first. ``metadata["source"]`` names
the source — ``"memory"`` or ``"kb"`` — so a chain can tell what the user said
from what a document says; memory documents carry ``valid_from``, ``valid_to``
and ``version``, document chunks their locator (``page``, ``heading``,
``start_time``), ``title`` and ``document_source`` (the file or URL), and every
document the ``conflicts`` it takes part in. For the rendered, fenced block use
:meth:`MemoUnifiedRetriever.recall` and ``.render()``.
"""

from __future__ import annotations

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import run_in_executor
from pydantic import ConfigDict, Field

from memo_core.kb.base import MemoBase
from memo_core.memory import MemoHood
from memo_core.unified import UnifiedRecall, recall_all

__all__ = ["MemoUnifiedRetriever", "unified_documents"]


def unified_documents(result: UnifiedRecall) -> list[Document]:
    """One ``Document`` per item of a unified recall, in fused order."""
    return [
        Document(id=item.ref, page_content=item.text, metadata=result.metadata(item))
        for item in result.items
    ]


class MemoUnifiedRetriever(BaseRetriever):
    """Retrieve from a :class:`MemoHood` and a :class:`MemoBase` at once.

    ``namespace`` is whose memory to read (required with ``memory``: memo fails
    closed); ``owner`` scopes the documents (default: the base's own owner).
    ``weights`` are the per-source RRF weights, ``token_budget`` bounds the
    rendered context (about 4 characters per token). ``k`` and ``token_budget``
    can be overridden per call: ``retriever.invoke("...", k=3)``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: MemoHood | None = None
    kb: MemoBase | None = None
    namespace: tuple[str, ...] | str | None = None
    owner: str | None = None
    k: int = Field(default=8, ge=1)
    weights: dict[str, float] = Field(default_factory=lambda: {"memory": 1.0, "kb": 1.0})
    token_budget: int = Field(default=1500, ge=0)
    use_gate: bool = True

    def recall(
        self, query: str, *, k: int | None = None, token_budget: int | None = None
    ) -> UnifiedRecall:
        """The full :class:`~memo_core.unified.UnifiedRecall` behind :meth:`invoke`."""
        return recall_all(
            query,
            memory=self.memory,
            kb=self.kb,
            namespace=self.namespace,
            owner=self.owner,
            k=self.k if k is None else k,
            weights=self.weights,
            token_budget=self.token_budget if token_budget is None else token_budget,
            use_gate=self.use_gate,
        )

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        token_budget: int | None = None,
    ) -> list[Document]:
        return unified_documents(self.recall(query, k=k, token_budget=token_budget))

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        token_budget: int | None = None,
    ) -> list[Document]:
        # Both files sit behind thread-safe connections (one lock each).
        result = await run_in_executor(
            None, lambda: self.recall(query, k=k, token_budget=token_budget)
        )
        return unified_documents(result)
