"""The text an answer reads for a hit: its chunk, widened to whole sentences of its document.

A chunk starts up to the overlap before the previous one ended, on a word start
(``ingest/chunking.py``), and may end at a line break or a space: its first and last
sentences can be the pieces of sentences its neighbours hold. Quoted as it stands,
such a piece says something else: "to mix A and B in the same C." is the tail of
"It is not possible to mix A and B in the same C.". So before an answer is picked,
each hit's text is widened at both edges to the whole sentences of its document
(:func:`whole_sentences`, read through the base in a slice around the chunk), and
what the answer quotes and what its citation shows is always a whole sentence of
the document. Where the document cannot be read (a base without the text, a chunk
that no longer matches it), a sentence the chunk may have cut is dropped from the
passage instead: a fragment whose sentence cannot be completed is never an answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from memo_core.answer.sentences import sentence_around, split_sentences
from memo_core.types import Hit

__all__ = ["REACH", "DocumentReader", "Passage", "sections", "whole_sentences"]

#: How far past a chunk's edges a sentence is looked for, in characters. A sentence
#: that began (or ends) farther away cannot be completed: its piece is dropped.
REACH = 2000

#: ``(document id, start, end) -> document text[start:end]`` (shorter at the end of the
#: document), or ``None`` when the document cannot be read.
DocumentReader = Callable[[str, int, int], str | None]

# What ends a sentence at a chunk's last character when the document cannot say.
_CLOSING = ".!?…:;\"')]»”"


@dataclass(frozen=True)
class Passage:
    """What an answer reads for one hit.

    ``hit`` is the hit with ``text`` widened to whole sentences (``start``/``end``
    its span in the document); the chunk's own text is ``hit.text[head:head +
    length]``. A cited span ``(a, b)`` of ``hit.text`` is ``(a - head, b - head)``
    relative to the chunk's own start, which stays the citation's ``chunk_start``.
    """

    hit: Hit
    head: int
    length: int

    @property
    def chunk_start(self) -> int:
        """Where the chunk itself starts in its document."""
        return self.hit.start + self.head

    def own_span(self, start: int, end: int) -> tuple[int, int] | None:
        """``(start, end)`` of ``hit.text`` in the chunk's own text, or ``None`` when
        the span reaches past the chunk's edges."""
        if start < self.head or end > self.head + self.length:
            return None
        return start - self.head, end - self.head


def whole_sentences(hits: Sequence[Hit], read: DocumentReader | None) -> list[Passage]:
    """One :class:`Passage` per hit, in order (see the module docstring)."""
    return [_widen(hit, read) for hit in hits]


def _widen(hit: Hit, read: DocumentReader | None) -> Passage:
    text, length = hit.text, len(hit.text)
    lo = max(0, hit.start - REACH)
    around = read(hit.document_id, lo, hit.end + REACH) if read is not None else None
    at = hit.start - lo
    if not text or around is None or around[at : at + length] != text:
        return _without_cut_edges(hit)
    at_end = len(around) < hit.end + REACH - lo  # the slice reaches the document's end
    # Start and end the region on whole lines: the splitter reads line structure.
    first = 0 if lo == 0 else around.find("\n", 0, at) + 1
    last = len(around) if at_end else around.rfind("\n", at + length)
    last = len(around) if last == -1 else last
    region = around[first:last]
    s, e = at - first, at + length - first
    a = sentence_around(region, s, s + 1)[0]
    b = sentence_around(region, e - 1, e)[1]
    # A sentence reaching the region's edge may go on beyond it, unless that edge is
    # the document's.
    head_cut = a < s and a == 0 and not (lo == 0 and first == 0)
    tail_cut = b > e and b == len(region) and not (at_end and last == len(around))
    head, tail = (0 if head_cut else s - a), (0 if tail_cut else b - e)
    widened = replace(
        hit, text=region[s - head : e + tail], start=hit.start - head, end=hit.end + tail
    )
    return _drop_cut(Passage(widened, head, length), cut_head=head_cut, cut_tail=tail_cut)


def _without_cut_edges(hit: Hit) -> Passage:
    """The hit without the sentences it may have cut, judged from its own text: the
    first when the chunk is not the document's start and opens in lower case, the
    last when it does not end with closing punctuation."""
    spans = split_sentences(hit.text)
    cut_head = bool(spans) and hit.start > 0 and hit.text[spans[0][0]].islower()
    cut_tail = bool(spans) and hit.text.rstrip()[-1:] not in _CLOSING
    return _drop_cut(Passage(hit, 0, len(hit.text)), cut_head=cut_head, cut_tail=cut_tail)


def _drop_cut(passage: Passage, *, cut_head: bool, cut_tail: bool) -> Passage:
    """``passage`` without its first (``cut_head``) and/or last (``cut_tail``) sentence."""
    if not (cut_head or cut_tail):
        return passage
    hit = passage.hit
    spans = split_sentences(hit.text)
    if cut_head and spans:
        spans = spans[1:]
    if cut_tail and spans:
        spans = spans[:-1]
    if not spans:
        return Passage(replace(hit, text="", end=hit.start), passage.head, passage.length)
    a, b = spans[0][0], spans[-1][1]
    # The chunk's own text keeps its offsets: only the passage is narrowed.
    head = passage.head - a
    return Passage(
        replace(hit, text=hit.text[a:b], start=hit.start + a, end=hit.start + b),
        head,
        passage.length,
    )


def sections(hits: Iterable[Hit]) -> dict[str, tuple[str, str]]:
    """Each hit's document title and the heading its chunk sits under, by chunk id: what
    the passage reader reads a sentence after (``extractive.pick_candidates``)."""
    return {h.chunk_id: (h.title, str(h.locator.get("heading", ""))) for h in hits}
