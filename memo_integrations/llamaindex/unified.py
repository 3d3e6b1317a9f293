"""``MemoUnifiedRetriever``: one LlamaIndex retriever over memory and the knowledge base.

Runs :func:`memo_core.unified.recall_all` (memory gate and recall, hybrid search
of the documents, RRF across the two sources, conflict flags, one token budget)
and returns one ``NodeWithScore`` per item, best first, scored with the fused
RRF score. ``node.metadata["source"]`` names the source — ``"memory"`` or
``"kb"`` — with a memory fact's ``valid_from``, ``valid_to`` and ``version``, a
chunk's locator (``page``, ``heading``, ``start_time``), ``title`` and
``document_source``, and the ``conflicts`` each item takes part in.

No model is involved (memo embeds with its own embedders), so LlamaIndex's
global ``Settings`` are never read.
"""

from __future__ import annotations

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from memo_core.errors import InvalidInputError
from memo_core.kb.base import MemoBase
from memo_core.memory import MemoHood, NamespaceLike
from memo_core.unified import UnifiedRecall, recall_all

__all__ = ["MemoUnifiedRetriever", "unified_nodes"]

#: Metadata keys kept out of the text an LLM or embedder sees for a node.
_HIDDEN_KEYS = ["ref", "rank", "source_rank", "score", "conflicts", "chunk_id", "document_id"]


def unified_nodes(result: UnifiedRecall) -> list[NodeWithScore]:
    """One scored ``TextNode`` per item of a unified recall, in fused order."""
    out: list[NodeWithScore] = []
    for item in result.items:
        node = TextNode(
            id_=item.ref,
            text=item.text,
            metadata=result.metadata(item),
            excluded_llm_metadata_keys=list(_HIDDEN_KEYS),
            excluded_embed_metadata_keys=list(_HIDDEN_KEYS),
        )
        out.append(NodeWithScore(node=node, score=item.score))
    return out


class MemoUnifiedRetriever(BaseRetriever):
    """Retrieve from a :class:`MemoHood` and a :class:`MemoBase` at once.

    ``namespace`` is whose memory to read (required with ``memory``: memo fails
    closed); ``owner`` scopes the documents. ``weights`` are the per-source RRF
    weights; ``token_budget`` bounds the rendered context. ``last_recall`` keeps
    the latest :class:`~memo_core.unified.UnifiedRecall` (rendered block, conflicts).
    """

    def __init__(
        self,
        memory: MemoHood | None = None,
        kb: MemoBase | None = None,
        *,
        namespace: NamespaceLike | None = None,
        owner: str | None = None,
        k: int = 8,
        weights: dict[str, float] | None = None,
        token_budget: int = 1500,
        use_gate: bool = True,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        if memory is None and kb is None:
            raise InvalidInputError("MemoUnifiedRetriever needs memory=, kb= or both")
        self.memory = memory
        self.kb = kb
        self.namespace = namespace
        self.owner = owner
        self.k = k
        self.weights = dict(weights) if weights is not None else {"memory": 1.0, "kb": 1.0}
        self.token_budget = token_budget
        self.use_gate = use_gate
        self.last_recall: UnifiedRecall | None = None
        super().__init__(callback_manager=callback_manager or CallbackManager(), verbose=verbose)

    def recall(self, query: str) -> UnifiedRecall:
        """The full :class:`~memo_core.unified.UnifiedRecall` for ``query``."""
        result = recall_all(
            query,
            memory=self.memory,
            kb=self.kb,
            namespace=self.namespace,
            owner=self.owner,
            k=self.k,
            weights=self.weights,
            token_budget=self.token_budget,
            use_gate=self.use_gate,
        )
        self.last_recall = result
        return result

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return unified_nodes(self.recall(query_bundle.query_str))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        import asyncio

        result = await asyncio.to_thread(self.recall, query_bundle.query_str)
        return unified_nodes(result)
