"""``recall_all``: ask memory and the knowledge base at once, get one ranked context.

An agent holding a :class:`~memo_core.memory.MemoHood` and a
:class:`~memo_core.kb.MemoBase` should not paste two unrelated blocks into its
prompt. This runs both for the same message, fuses them, flags where they
disagree, and fits the result into one token budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memo_core.answer.gate import SufficiencyGate
from memo_core.errors import InvalidInputError
from memo_core.memory.types import GateDecision, Recall
from memo_core.prompt import estimate_tokens
from memo_core.search.rrf import DEFAULT_RRF_K, rrf
from memo_core.types import Hit
from memo_core.unified.conflicts import detect_conflicts
from memo_core.unified.render import document_label, memory_label, render_context, turn_label
from memo_core.unified.result import UnifiedRecall
from memo_core.unified.types import Conflict, UnifiedItem

if TYPE_CHECKING:
    from memo_core.kb.base import MemoBase
    from memo_core.memory.hood import MemoHood
    from memo_core.memory.namespace import NamespaceLike

__all__ = ["DEFAULT_WEIGHTS", "fit_budget", "fuse_sources", "recall_all"]

#: Per-source RRF weights when none are given: both sources count the same.
DEFAULT_WEIGHTS: Mapping[str, float] = {"memory": 1.0, "kb": 1.0}


def _weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    out = dict(DEFAULT_WEIGHTS)
    if weights is None:
        return out
    unknown = set(weights) - set(DEFAULT_WEIGHTS)
    if unknown:
        raise InvalidInputError(f"unknown source weights {sorted(unknown)}; use 'memory', 'kb'")
    for name, value in weights.items():
        if not isinstance(value, int | float) or value < 0:
            raise InvalidInputError(f"the weight of {name!r} must be a number >= 0")
        out[name] = float(value)
    return out


def _memory_items(recall: Recall) -> list[UnifiedItem]:
    """Memory's own order: current facts (ranked, decay-aware), then relevant past turns."""
    history: dict[str, list[Any]] = {}
    for old in recall.history:
        history.setdefault(old.chain_id, []).append(old)
    items: list[UnifiedItem] = []
    for fact in recall.facts:
        items.append(
            UnifiedItem(
                ref=f"memory:{fact.id}",
                source="memory",
                kind="fact",
                text=fact.statement,
                rank=0,
                source_rank=len(items) + 1,
                score=0.0,
                label=memory_label(fact),
                fact=fact,
                history=tuple(history.get(fact.chain_id, ())),
            )
        )
    for turn in recall.turns:
        items.append(
            UnifiedItem(
                ref=f"memory:{turn.id}",
                source="memory",
                kind="turn",
                text=turn.text,
                rank=0,
                source_rank=len(items) + 1,
                score=0.0,
                label=turn_label(turn),
                turn=turn,
            )
        )
    return items


def _kb_items(hits: Sequence[Hit]) -> list[UnifiedItem]:
    return [
        UnifiedItem(
            ref=f"kb:{hit.chunk_id}",
            source="kb",
            kind="chunk",
            text=hit.text,
            rank=0,
            source_rank=i,
            score=0.0,
            label=document_label(hit),
            hit=hit,
        )
        for i, hit in enumerate(hits, start=1)
    ]


def fuse_sources(
    memory_items: Sequence[UnifiedItem],
    kb_items: Sequence[UnifiedItem],
    weights: Mapping[str, float],
    *,
    rrf_k: int = DEFAULT_RRF_K,
) -> list[UnifiedItem]:
    """One ranked list from the two sources' own rankings (Reciprocal Rank Fusion).

    Each item is ranked from 1 within its source (memory: facts in recall order,
    then past turns; KB: hybrid search order), and scores::

        score(item) = w_source / (rrf_k + rank_within_source)

    with ``w_memory`` and ``w_kb`` from ``weights``. Raw scores of the two sources
    (memory relevance x decayed strength, KB fused rank scores) are not comparable,
    so only ranks are used. An item lives in one source only, so its score is
    that single term; ties keep memory first (its list is fused first). With
    equal weights the lists interleave: memory #1, KB #1, memory #2, KB #2, ...
    """
    by_ref = {item.ref: item for item in [*memory_items, *kb_items]}
    fused = rrf(
        [[i.ref for i in memory_items], [i.ref for i in kb_items]],
        k=rrf_k,
        weights=[weights.get("memory", 1.0), weights.get("kb", 1.0)],
    )
    out = []
    for rank, (ref, score) in enumerate(fused, start=1):
        item = by_ref[ref]
        out.append(
            UnifiedItem(
                ref=item.ref,
                source=item.source,
                kind=item.kind,
                text=item.text,
                rank=rank,
                source_rank=item.source_rank,
                score=score,
                label=item.label,
                fact=item.fact,
                turn=item.turn,
                hit=item.hit,
                history=item.history,
            )
        )
    return out


def fit_budget(
    items: Sequence[UnifiedItem], token_budget: int
) -> tuple[list[UnifiedItem], list[Conflict], str]:
    """The best-ranked prefix of ``items`` whose rendered block fits ``token_budget``.

    Items are never cut mid-way: the lowest-ranked ones are dropped first, whole.
    Conflicts are found among the items kept, and their lines count against the
    budget too (an item is dropped rather than a conflict line left out).
    Returns ``(kept, conflicts, rendered)``; with a budget too small for even the
    first item, nothing is kept and the block is empty.
    """
    kept: list[UnifiedItem] = []
    for item in items:
        if estimate_tokens(render_context([*kept, item])) > token_budget:
            break
        kept.append(item)
    while True:
        conflicts = detect_conflicts(kept)
        text = render_context(kept, conflicts)
        if estimate_tokens(text) <= token_budget or not kept:
            return kept, conflicts, text
        kept.pop()


def recall_all(
    message: str,
    *,
    memory: MemoHood | None,
    kb: MemoBase | None,
    namespace: NamespaceLike | None,
    owner: str | None = None,
    k: int = 8,
    weights: Mapping[str, float] | None = None,
    token_budget: int = 1500,
    at: datetime | None = None,
    rrf_k: int = DEFAULT_RRF_K,
    use_gate: bool = True,
    collection: str | Sequence[str] | None = None,
    filter: Mapping[str, Any] | None = None,
    kb_floor: bool = True,
) -> UnifiedRecall:
    """Ask memory and the knowledge base for ``message``; one ranked, labelled context.

    * **memory** (``namespace`` required when ``memory`` is given; fails closed):
      :meth:`MemoHood.recall` runs its gate, then returns current facts ranked by
      relevance and decayed strength, plus relevant past turns; ``at`` is "now"
      for decay. Superseded versions come along as each fact's ``history``.
    * **knowledge base** (scoped to ``owner``, default: the base's own owner):
      hybrid search for the same message, ``collection`` and ``filter`` applied.
    * **the gate**: "skip" means the message is small talk ("ok thanks"), so
      memory contributes nothing. The knowledge base is still asked, because a
      missed recall is worse than an extra one, but only its *keyword* matches are
      kept then: the vector leg always returns neighbours, and the neighbours of
      "ok thanks" are noise. ``use_gate=False`` always recalls memory.
    * **the relevance floor** (``kb_floor``, on by default): a chunk is kept only
      when it clears the knowledge base's sufficiency gate on its own
      (:meth:`~memo_core.answer.gate.SufficiencyGate.relevant_hits`), so a base that
      holds nothing on the subject adds nothing rather than filling the budget with
      its nearest neighbours.
    * **fusion**: :func:`fuse_sources` (RRF with per-source ``weights``, ranks
      from 1 within each source; a weight of 0 leaves that source out, unasked).
      ``k`` items are asked of each source and at most ``k`` are kept in total.
    * **budget**: :func:`fit_budget` keeps the best-ranked items whose rendered
      block (see :meth:`UnifiedRecall.render`) fits ``token_budget`` tokens,
      estimated as ``ceil(characters / 4)``.
    * **conflicts**: :func:`~memo_core.unified.conflicts.detect_conflicts` flags a
      memory fact and a chunk (or two facts) giving different dates, numbers or
      names for the same subject and attribute, with both sides.
    """
    if not isinstance(message, str):
        raise InvalidInputError("message must be a string")
    if memory is None and kb is None:
        raise InvalidInputError("recall_all needs memory=, kb= or both")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInputError("k must be a positive integer")
    if isinstance(token_budget, bool) or not isinstance(token_budget, int) or token_budget < 0:
        raise InvalidInputError("token_budget must be a non-negative integer")
    chosen = _weights(weights)

    gate: GateDecision | None = None
    memory_items: list[UnifiedItem] = []
    if memory is not None and chosen["memory"] > 0:
        recalled = memory.recall(
            message,
            namespace=namespace,
            k=k,
            token_budget=token_budget,
            at=at,
            use_gate=use_gate,
        )
        gate = recalled.gate
        memory_items = _memory_items(recalled)

    kb_items: list[UnifiedItem] = []
    if kb is not None and chosen["kb"] > 0 and message.strip():
        hits = kb.search(message, k=k, owner=owner, collection=collection, filter=filter)
        if gate is not None and not gate.recall:
            hits = [h for h in hits if h.keyword_rank is not None]
        if kb_floor:
            hits = SufficiencyGate().relevant_hits(message, hits, kb.store)
        kb_items = _kb_items(hits)

    ranked = fuse_sources(memory_items, kb_items, chosen, rrf_k=rrf_k)[:k]
    kept, conflicts, text = fit_budget(ranked, token_budget)
    kept_refs = {i.ref for i in kept}
    return UnifiedRecall(
        message=message,
        items=tuple(kept),
        conflicts=tuple(conflicts),
        gate=gate,
        token_budget=token_budget,
        tokens=estimate_tokens(text),
        dropped=tuple(i.ref for i in ranked if i.ref not in kept_refs),
        weights=chosen,
    )
