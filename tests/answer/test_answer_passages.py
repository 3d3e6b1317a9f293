"""Passages: a chunk that starts or ends inside a sentence is read with the whole sentence."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core import GuardedAnswerer, HashEmbedder, MemoBase, SufficiencyGate
from memo_core.answer.extractive import extractive_answer
from memo_core.answer.passages import REACH, Passage, whole_sentences
from memo_core.answer.sentences import split_sentences
from memo_core.types import Hit

PROPS = settings(max_examples=120, deadline=None)

_words = st.text(st.sampled_from("abcdefghiklmnoprstuvwy"), min_size=3, max_size=9)


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Sentences of distinct made-up words, some paragraphs apart."""
    pool = draw(st.lists(_words, min_size=40, max_size=120, unique=True))
    out, i = [], 0
    while i + 4 <= len(pool):
        n = draw(st.integers(4, 12))
        words = pool[i : i + n]
        i += n
        gap = draw(st.sampled_from([" ", " ", "\n", "\n\n"])) if out else ""
        out.append(gap + " ".join(words).capitalize() + ".")
    return "".join(out)


def _reader(doc: str):  # type: ignore[no-untyped-def]
    return lambda _doc_id, a, b: doc[max(0, a) : b]


def _hit(doc: str, start: int, end: int) -> Hit:
    return Hit("c1", "d1", doc[start:end], 1.0, start=start, end=end)


def _whole_in(doc: str, passage: Passage, a: int, b: int) -> bool:
    """Whether ``passage.hit.text[a:b]`` is a whole sentence of ``doc``."""
    at = passage.hit.start
    return (at + a, at + b) in set(split_sentences(doc))


def _cut(doc: str, data: st.DataObject) -> tuple[int, int]:
    start = data.draw(st.integers(0, len(doc) - 2))
    while doc[start].isspace():
        start += 1
    end = data.draw(st.integers(start + 1, len(doc)))
    while doc[end - 1].isspace():
        end -= 1
    return start, end


@PROPS
@given(doc=documents(), data=st.data())
def test_a_chunk_cut_anywhere_is_read_as_whole_sentences(doc: str, data: st.DataObject) -> None:
    start, end = _cut(doc, data)
    (passage,) = whole_sentences([_hit(doc, start, end)], _reader(doc))
    hit = passage.hit
    assert doc[hit.start : hit.end] == hit.text
    assert hit.start <= start and end <= hit.end  # the chunk's own text is all there
    assert passage.chunk_start == start
    assert hit.text[passage.head : passage.head + passage.length] == doc[start:end]
    for a, b in split_sentences(hit.text):
        assert _whole_in(doc, passage, a, b), hit.text[a:b]


@PROPS
@given(doc=documents(), data=st.data())
def test_a_chunk_boundary_inside_a_sentence_never_yields_a_partial_answer(
    doc: str, data: st.DataObject
) -> None:
    start, end = _cut(doc, data)
    # Ask for the words of a sentence the chunk holds at least in part.
    sentences = [(a, b) for a, b in split_sentences(doc) if a < end and start < b]
    a, b = data.draw(st.sampled_from(sentences))
    question = " ".join(doc[max(a, start) : min(b, end)].split()[:3]) + "?"
    (passage,) = whole_sentences([_hit(doc, start, end)], _reader(doc))
    for _, x, y in extractive_answer(question, [("c1", passage.hit.text)]):
        assert _whole_in(doc, passage, x, y), passage.hit.text[x:y]


def test_a_sentence_beyond_the_reach_is_dropped_rather_than_cut() -> None:
    long = "Lorem " + "ipsum " * (REACH // 3) + "dolor sit."
    doc = f"First short sentence here. {long} Last short sentence there."
    start = doc.index("ipsum ipsum", len(doc) // 2)
    (passage,) = whole_sentences([_hit(doc, start, len(doc))], _reader(doc))
    assert passage.hit.text == "Last short sentence there."
    assert passage.chunk_start == start


def test_without_the_document_a_lower_case_opening_is_dropped() -> None:
    doc = "It is not possible to bake bread without flour. Bakers buy flour weekly."
    start = doc.index("to bake")
    (passage,) = whole_sentences([_hit(doc, start, len(doc))], None)
    assert passage.hit.text == "Bakers buy flour weekly."
    (stale,) = whole_sentences([_hit(doc, start, len(doc))], lambda *_: "something else")
    assert stale.hit.text == "Bakers buy flour weekly."
    (first,) = whole_sentences([_hit(doc, 0, len(doc))], None)  # the document's start
    assert first.hit.text == doc


def test_the_tail_of_a_sentence_a_chunk_cut_is_never_quoted() -> None:
    # The chunk starts inside "It is never safe to drain the boiler while hot.": its
    # tail alone says the opposite of the sentence.
    doc = "It is never safe to drain the boiler while hot. The valve sits under the boiler."
    chunk = _hit(doc, doc.index("safe to drain"), len(doc))
    question = "Is it safe to drain the boiler while hot?"
    for read in (_reader(doc), None):  # widened from the document, or the piece dropped
        (passage,) = whole_sentences([chunk], read)
        text = passage.hit.text
        for _, a, b in extractive_answer(question, [("b", text)]):
            assert _whole_in(doc, passage, a, b), text[a:b]
    (passage,) = whole_sentences([chunk], _reader(doc))
    (first, *_) = extractive_answer(question, [("b", passage.hit.text)], max_sentences=1)
    assert passage.hit.text[first[1] : first[2]] == doc[: doc.index(" The valve")]


def test_a_whole_sentence_that_starts_in_lower_case_may_be_the_answer() -> None:
    # A name written in lower case opens the sentence; the chunk starts after it. Widened,
    # the passage starts with the whole sentence, which is then quoted like any other.
    doc = "Tools\n\nrsync copies only the changed blocks of a file. It runs over a pipe."
    chunk = _hit(doc, doc.index("copies"), len(doc))
    (passage,) = whole_sentences([chunk], _reader(doc))
    text = passage.hit.text
    assert text.startswith("rsync copies")
    picks = extractive_answer("What does rsync copy?", [("c", text)], max_sentences=1)
    assert [text[a:b] for _, a, b in picks] == ["rsync copies only the changed blocks of a file."]


def _filler(n: int) -> str:
    return " ".join(f"Filler sentence number {i} talks about the weather." for i in range(n))


def test_the_answer_quotes_and_cites_the_whole_sentence_across_a_chunk_boundary() -> None:
    target = (
        "It is not possible to combine the sourdough starter and the instant yeast in the "
        "same mixing bowl of the old bakery, because the two cultures compete with each "
        "other for the same sugars."
    )
    # The chunker cuts at the last sentence end that fits in 1200 characters and starts
    # the next chunk up to 150 characters earlier: inside the target sentence.
    doc = f"{_filler(1100 // 51)} {target}\n\n{_filler(30)}"
    with MemoBase(":memory:", embedder=HashEmbedder(64)) as kb:
        kb.add_texts([doc], chunk=True)
        # The one chunk that holds the sentence's tail without its negation.
        (cut,) = [h for h in kb.filter_chunks() if "mixing bowl" in h.text and "not" not in h.text]
        engine = GuardedAnswerer(kb, gate=SufficiencyGate(threshold=0.0), k=2)
        engine.retrieve = lambda *_a, **_k: [cut]  # type: ignore[method-assign]
        result = engine.ask("Can the sourdough starter and the instant yeast share a bowl?")
        assert not result.refused
        citation = result.citations[0]
        assert citation.quote == target and citation.sentence == target
        assert result.claims[0].text == target
        text = kb.document_slice(citation.document_id, 0, len(doc))
        assert text is not None
        assert text[citation.document_start : citation.document_end] == target
        # Offsets stay relative to the chunk's own start: the sentence began before it.
        assert citation.chunk_start == cut.start and citation.start < 0
