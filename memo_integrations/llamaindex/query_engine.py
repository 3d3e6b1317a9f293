"""``GuardedQueryEngine``: memo's quote-or-refuse answers as a LlamaIndex query engine.

The work is :class:`memo_core.answer.engine.GuardedAnswerer`'s: search the base,
refuse early when the sufficiency gate says the sources do not cover the
question, ask a tool-less LLM for claims with verbatim quotes, keep only claims
whose quotes are located in the cited chunk. This module turns the result into
LlamaIndex values:

* an answer -> ``Response(text, source_nodes=<the cited chunks>, metadata=...)``
  with ``metadata["refused"] = False`` and ``metadata["citations"]`` (quote,
  chunk/document ids, source, title, locator such as page or timecode, character
  span in the chunk and in the document, match method; for nodes stored by
  :class:`MemoBaseVectorStore` also ``node_id``, ``ref_doc_id``, the node's
  metadata and, when the node knows its offset, the span in the LlamaIndex
  source document as ``ref_doc_start``/``ref_doc_end``);
* a refusal -> ``Response(<the refusal reason>, source_nodes=[], metadata=...)``
  with ``metadata["refused"] = True``, ``metadata["reason"]`` and
  ``metadata["related"]``: the nearest passages, clearly not an answer (no source
  nodes, so nothing downstream mistakes them for one).

``metadata["result"]`` always holds the full ``to_dict()`` of the memo value.
With ``streaming=True`` the answer is still produced and verified first; only
the verified text is then streamed, word by word.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncGenerator, Generator
from typing import Any

from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.llms import LLM as LlamaLLM
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import BaseNode, NodeWithScore
from llama_index.core.vector_stores.types import MetadataFilters

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.types import Answer, AnswerResult, Citation
from memo_core.errors import InvalidInputError
from memo_core.kb.base import MemoBase
from memo_integrations.llamaindex.filters import to_memo_filter
from memo_integrations.llamaindex.llm import LlamaIndexLLM
from memo_integrations.llamaindex.nodes import hit_to_node
from memo_integrations.llamaindex.vector_store import MemoBaseVectorStore

__all__ = ["GuardedQueryEngine"]

_TOKENS = re.compile(r"\S+\s*|\s+")


def _pieces(text: str) -> list[str]:
    """The verified text in word-sized pieces that concatenate back to it exactly."""
    return _TOKENS.findall(text)


class GuardedQueryEngine(CustomQueryEngine):
    """A query engine that answers only with verified quotes, or refuses.

    ``source``: a :class:`MemoBase`, or a :class:`MemoBaseVectorStore` (its base
    and its collection). ``llm``: any LlamaIndex LLM, called through
    :class:`LlamaIndexLLM` with no tools; ``None`` answers extractively (verified
    sentences of the best chunks, no LLM call). ``filters`` are LlamaIndex
    ``MetadataFilters`` applied to the search. Other keyword arguments go to
    ``GuardedAnswerer`` (``gate=``, ``verifier=``, ``mode=``, ``max_sentences=``).
    """

    k: int = 5
    collection: str | None = None
    filters: MetadataFilters | None = None
    streaming: bool = False

    _answerer: GuardedAnswerer = PrivateAttr()
    _kb: MemoBase = PrivateAttr()

    def __init__(
        self,
        source: MemoBase | MemoBaseVectorStore,
        llm: LlamaLLM | None = None,
        *,
        k: int = 5,
        collection: str | None = None,
        filters: MetadataFilters | None = None,
        streaming: bool = False,
        **answerer_kwargs: Any,
    ) -> None:
        if isinstance(source, MemoBaseVectorStore):
            kb = source.kb
            collection = collection or source.collection
        elif isinstance(source, MemoBase):
            kb = source
        else:
            raise InvalidInputError("GuardedQueryEngine needs a MemoBase or a MemoBaseVectorStore")
        if k < 1:
            raise InvalidInputError("k must be at least 1")
        super().__init__(k=k, collection=collection, filters=filters, streaming=streaming)  # type: ignore[call-arg]  # pydantic fields
        self._kb = kb
        memo_llm = LlamaIndexLLM(llm) if llm is not None else None
        self._answerer = GuardedAnswerer(kb, memo_llm, k=k, **answerer_kwargs)

    @property
    def answerer(self) -> GuardedAnswerer:
        return self._answerer

    # -- memo -> LlamaIndex ---------------------------------------------------

    def ask(self, query_str: str) -> AnswerResult:
        """The memo value (``Answer`` or ``Refusal``) for ``query_str``."""
        return self._answerer.ask(
            query_str, k=self.k, collection=self.collection, filter=to_memo_filter(self.filters)
        )

    def _source_nodes(self, answer: Answer) -> list[NodeWithScore]:
        """The cited chunks, in order of first citation; score = best quote similarity."""
        best: dict[str, float] = {}
        for c in answer.citations:
            best[c.chunk_id] = max(best.get(c.chunk_id, 0.0), c.similarity)
        hits = self._kb.get_chunks(list(best))
        return [NodeWithScore(node=hit_to_node(h), score=best[h.chunk_id]) for h in hits]

    @staticmethod
    def _citation(citation: Citation, node: BaseNode | None) -> dict[str, Any]:
        """memo's citation, plus where it sits in the LlamaIndex source document."""
        out = {
            **citation.to_dict(),
            "document_start": citation.document_start,
            "document_end": citation.document_end,
        }
        if node is not None:
            out["node_id"] = node.node_id
            out["ref_doc_id"] = node.ref_doc_id
            out["node_metadata"] = dict(node.metadata)
            offset = getattr(node, "start_char_idx", None)  # TextNode: offset in its source
            if offset is not None:
                out["ref_doc_start"] = offset + citation.start
                out["ref_doc_end"] = offset + citation.end
        return out

    def _parts(self, result: AnswerResult) -> tuple[str, list[NodeWithScore], dict[str, Any]]:
        metadata: dict[str, Any] = {
            "refused": result.refused,
            "gate_score": result.gate_score,
            "result": result.to_dict(),
        }
        if isinstance(result, Answer):
            nodes = self._source_nodes(result)
            by_id = {n.node.node_id: n.node for n in nodes}
            metadata["citations"] = [
                self._citation(c, by_id.get(c.chunk_id)) for c in result.citations
            ]
            metadata["unsupported"] = list(result.unsupported)
            return result.text, nodes, metadata
        metadata["reason"] = result.reason
        metadata["citations"] = []
        metadata["related"] = [r.to_dict() for r in result.related]
        return result.reason, [], metadata

    # -- CustomQueryEngine ----------------------------------------------------

    def custom_query(self, query_str: str) -> Response | StreamingResponse:
        text, nodes, metadata = self._parts(self.ask(query_str))
        if self.streaming:
            return StreamingResponse(
                response_gen=_stream(text), source_nodes=nodes, metadata=metadata
            )
        return Response(text, source_nodes=nodes, metadata=metadata)

    async def acustom_query(self, query_str: str) -> Response | AsyncStreamingResponse:
        result = await asyncio.to_thread(self.ask, query_str)
        text, nodes, metadata = await asyncio.to_thread(self._parts, result)
        if self.streaming:
            return AsyncStreamingResponse(
                response_gen=_astream(text), source_nodes=nodes, metadata=metadata
            )
        return Response(text, source_nodes=nodes, metadata=metadata)


def _stream(text: str) -> Generator[str, None, None]:
    yield from _pieces(text)


async def _astream(text: str) -> AsyncGenerator[str, None]:
    for piece in _pieces(text):
        yield piece
