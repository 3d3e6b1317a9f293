"""LlamaIndex nodes <-> memo chunks.

Each node is stored as one memo document holding exactly one chunk whose id is
the node id (``MemoBase.add_texts(..., chunk=False)``). The chunk metadata is
the node's own metadata plus what LlamaIndex's shared helpers add to rebuild the
node (``_node_content``, ``_node_type``, ``ref_doc_id``, ``doc_id``,
``document_id``) and ``_node_id``, so ids can be filtered in SQL like any field.

Chunks that memo's own ingestion wrote (no ``_node_content``) still come back as
plain ``TextNode`` objects: id = chunk id, source relationship = memo document,
metadata = the chunk's metadata, so a LlamaIndex retriever can sit on any memo base.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.schema import (
    BaseNode,
    MetadataMode,
    NodeRelationship,
    RelatedNodeInfo,
    TextNode,
)
from llama_index.core.vector_stores.utils import metadata_dict_to_node, node_to_metadata_dict

from memo_core.types import Hit

__all__ = [
    "DOC_ID_KEY",
    "NODE_ID_KEY",
    "hit_to_node",
    "node_record",
]

#: Metadata key holding the node id (chunk ids are not metadata, filters need it there).
NODE_ID_KEY = "_node_id"
#: Metadata key LlamaIndex's helpers use for the source document id.
DOC_ID_KEY = "ref_doc_id"

#: Keys this module adds; hidden again from nodes rebuilt from plain memo chunks.
_INTERNAL_KEYS = frozenset(
    {NODE_ID_KEY, "_node_content", "_node_type", "ref_doc_id", "doc_id", "document_id"}
)


def node_record(node: BaseNode) -> tuple[str, dict[str, Any]]:
    """``(text, metadata)`` to store for ``node``.

    The text is the node's content without metadata (what FTS indexes and what a
    citation quotes); the node itself is serialised without its text or its
    embedding, which memo keeps in its own columns.
    """
    text = node.get_content(metadata_mode=MetadataMode.NONE)
    metadata = node_to_metadata_dict(node, remove_text=True, flat_metadata=False)
    metadata[NODE_ID_KEY] = node.node_id
    # memo's document row takes its citation source/title from these keys.
    for key, candidates in (
        ("source", ("source", "file_path", "url", "file_name")),
        ("title", ("title", "file_name")),
    ):
        if key not in metadata:
            found = next((node.metadata[c] for c in candidates if node.metadata.get(c)), None)
            if found is not None:
                metadata[key] = str(found)
    return text, metadata


def hit_to_node(hit: Hit) -> BaseNode:
    """Rebuild the LlamaIndex node a memo hit was stored from."""
    if "_node_content" in hit.metadata:
        node = metadata_dict_to_node(hit.metadata, text=hit.text)
        node.embedding = None
        return node
    metadata = {k: v for k, v in hit.metadata.items() if k not in _INTERNAL_KEYS}
    return TextNode(
        id_=hit.chunk_id,
        text=hit.text,
        metadata=metadata,
        start_char_idx=hit.start,
        end_char_idx=hit.end,
        relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=hit.document_id)},
    )
