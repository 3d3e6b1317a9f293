"""Extractive mode: verbatim best-matching sentences, rarer terms weigh more."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core.answer.extractive import ExtractiveConfig, PickWeights, extractive_answer
from memo_core.answer.verify import verify_quote

PASSAGES = [
    (
        "c1",
        "The university was founded in 1842. David Bevington is a noted Shakespeare "
        "scholar on the faculty. The campus has many lakes.",
    ),
    ("c2", "Shakespeare wrote many plays. The university library holds rare books."),
]


def test_picks_the_sentence_with_the_rare_terms() -> None:
    q = "Which Shakespeare scholar is on the university's faculty?"
    picked = extractive_answer(q, PASSAGES, max_sentences=1)
    assert len(picked) == 1
    cid, a, b = picked[0]
    assert cid == "c1"
    assert dict(PASSAGES)[cid][a:b] == (
        "David Bevington is a noted Shakespeare scholar on the faculty."
    )


def test_each_pick_is_a_verbatim_quote_of_its_passage() -> None:
    picks = extractive_answer("When was the university founded and what about books?", PASSAGES)
    assert 1 <= len(picks) <= 2
    for cid, a, b in picks:
        text = dict(PASSAGES)[cid]
        check = verify_quote(text[a:b], text)
        assert check.verified and check.method == "exact" and (check.start, check.end) == (a, b)


def test_higher_ranked_passages_win_ties() -> None:
    same = "The warranty lasts two years."
    picks = extractive_answer("How long does the warranty last?", [("a", same), ("b", same)])
    assert picks == [("a", 0, len(same))]  # the duplicate sentence is picked once


def test_nothing_relevant_means_no_sentences() -> None:
    assert extractive_answer("penguin migration routes?", PASSAGES) == []
    assert extractive_answer("the of and?", PASSAGES) == []  # only stopwords
    assert extractive_answer("anything", []) == []
    assert extractive_answer("university", PASSAGES, max_sentences=0) == []


def test_russian_question() -> None:
    passages = [("r1", "Договор подписан в Москве. Срок действия договора составляет 24 месяца.")]
    picks = extractive_answer("Каков срок действия договора?", passages, max_sentences=1)
    assert [passages[0][1][a:b] for _, a, b in picks] == [
        "Срок действия договора составляет 24 месяца."
    ]


@settings(max_examples=100, deadline=None)
@given(
    question=st.text(max_size=60),
    texts=st.lists(st.text(max_size=200), max_size=4),
    k=st.integers(0, 4),
)
def test_spans_are_always_inside_their_passage(question: str, texts: list[str], k: int) -> None:
    passages = [(f"c{i}", t) for i, t in enumerate(texts)]
    picks = extractive_answer(question, passages, max_sentences=k)
    assert len(picks) <= k
    for cid, a, b in picks:
        text = dict(passages)[cid]
        assert 0 <= a < b <= len(text)


def _picks(question: str, passages: list[tuple[str, str]], **weights: float) -> list[str]:
    config = ExtractiveConfig(weights=PickWeights(**weights))
    picked = extractive_answer(question, passages, max_sentences=2, config=config)
    return [dict(passages)[cid][a:b] for cid, a, b in picked]


def test_a_sentence_is_read_with_the_one_before_it() -> None:
    # "The tool is called Warden." holds too little of the question alone; the
    # sentence before it names what is asked about, so together they qualify.
    q = "Which tool of the build farm rotates the signing keys every night?"
    lead = "The build farm runs a keeper daemon that rotates signing keys every night."
    answer = "The tool is called Warden."
    assert answer in _picks(q, [("x", f"{lead} {answer} Logs go to the archive.")])
    # The same sentence after an unrelated one is not a candidate.
    assert answer not in _picks(q, [("x", f"{lead} Logs go to the archive. {answer}")])


def test_the_sentence_holding_a_new_thing_of_the_asked_for_kind_wins() -> None:
    text = (
        "The ferry to the island was opened by the harbour board. The island ferry opened in 1931."
    )
    q = "When was the ferry to the island opened?"
    assert _picks(q, [("f", text)])[0] == "The island ferry opened in 1931."
    # Without the slot (and the plain type match, which says the same less sharply).
    without = _picks(q, [("f", text)], answer_slot=0.0, answer_type=0.0)
    assert without[0] != "The island ferry opened in 1931."


def test_prose_beats_a_signature_that_shares_the_same_terms() -> None:
    text = "scheduler.take(lock=RLock(), *, wait=True) -> None; scheduler.lock. The scheduler takes the global lock."
    q = "Which lock does the scheduler take?"
    assert _picks(q, [("s", text)])[0] == "The scheduler takes the global lock."
    assert _picks(q, [("s", text)], letters=0.0)[0] != "The scheduler takes the global lock."


def test_the_sentence_right_under_a_heading_does_not_win_a_tie() -> None:
    # Two sentences alike in every other feature: the first one under the heading
    # mostly introduces its section, so the other is preferred.
    text = (
        "## Nightly backups\n\nNightly backups are stored in the Oslo vault. "
        "Nightly backups are stored in the Bonn vault."
    )
    q = "Where are nightly backups stored?"
    assert _picks(q, [("h", text)])[0] == "Nightly backups are stored in the Bonn vault."
    # Without the weight the tie goes to the earlier sentence.
    assert _picks(q, [("h", text)], after_heading=0.0)[0] == (
        "Nightly backups are stored in the Oslo vault."
    )


def test_a_heading_is_never_picked_even_when_it_holds_every_term() -> None:
    text = "## Where nightly backups are stored\n\nNightly backups go to the Bergen vault."
    picks = _picks("Where are nightly backups stored?", [("h", text)])
    assert picks == ["Nightly backups go to the Bergen vault."]


def test_the_similarity_reranks_the_candidates() -> None:
    class Prefers:
        """A stand-in similarity: 1.0 for one sentence, 0.0 for the others."""

        def __init__(self, sentence: str) -> None:
            self.sentence = sentence

        def similarities(
            self, question: str, sentences: list[str], keys: object = None
        ) -> list[float]:
            return [1.0 if s == self.sentence else 0.0 for s in sentences]

    text = "The pump starts at dawn. The pump starts when the tank is full."
    q = "When does the pump start?"
    for wanted in ("The pump starts at dawn.", "The pump starts when the tank is full."):
        picked = extractive_answer(q, [("p", text)], max_sentences=1, similarity=Prefers(wanted))  # type: ignore[arg-type]
        assert [text[a:b] for _, a, b in picked] == [wanted]


def test_a_call_signature_is_quoted_with_the_description_under_it() -> None:
    # The description says what the call does but not which call it describes (nor
    # its defaults): the signature above it and its first sentence are one quote.
    text = (
        "brew_tea(leaves, minutes=4)\n"
        "    Steep the leaves in water just off the boil.\n"
        "    Stir once.\n\n"
        "The kettle holds enough for six cups."
    )
    q = "What does brew_tea steep the leaves in?"
    assert _picks(q, [("t", text)])[0] == (
        "brew_tea(leaves, minutes=4)\n    Steep the leaves in water just off the boil."
    )
    # The description holds none of the question's words but its call's name.
    assert _picks("How long does brew_tea take by default?", [("t", text)])[0].startswith(
        "brew_tea(leaves, minutes=4)\n"
    )


def test_a_signature_with_no_description_is_a_candidate_alone() -> None:
    text = "## Kettle API\n\nboil_water(litres=1)\n\n## Teapot API\n\nThe teapot is ceramic."
    assert _picks("How many litres does boil_water take by default?", [("k", text)]) == [
        "boil_water(litres=1)"
    ]


def test_a_sentence_repeated_with_other_markup_is_picked_once() -> None:
    # Two renderings of one docstring: a gutter and backquotes differ, the words do not.
    first = "If ``depth`` is positive, the tree is\n    printed to that depth. Leaves of the tree stay hidden."
    second = "If depth is positive, the tree is\n     |  printed to that depth."
    q = "What happens when depth is positive and the tree is printed?"
    picks = _picks(q, [("a", first), ("b", second)])
    assert len(picks) == 2 and "Leaves of the tree stay hidden." in picks


def test_a_sentence_is_read_in_the_block_of_the_call_it_describes() -> None:
    # "The basin must be dry." holds none of the question's words; the signature of its
    # block names the call asked about, so it is a candidate.
    text = (
        "scrub(self)\n    Scrub with the brush.\n    The basin must be dry.\n\n"
        "polish(self)\n    Polish with the cloth.\n"
    )
    assert "The basin must be dry." in _picks("What is required before scrub?", [("c", text)])
    # The same words in two blocks: the one under the call asked about wins.
    same = (
        "polish(self)\n    Use the cloth.\n    Cold water is poured in.\n\n"
        "scrub(self)\n    Use the brush.\n    Cold water is poured in.\n"
    )
    q = "Is cold water poured in by scrub?"
    for weight, under_scrub in ((1.7, True), (0.0, False)):  # without the weight: a tie
        config = ExtractiveConfig(weights=PickWeights(block=weight))
        spans = extractive_answer(q, [("c", same)], max_sentences=1, config=config)
        assert spans and same[spans[0][1] : spans[0][2]] == "Cold water is poured in."
        assert (spans[0][1] > same.index("scrub(self)")) is under_scrub


def _first(question: str, text: str, **weights: float) -> str:
    config = ExtractiveConfig(weights=PickWeights(**weights))
    (first,) = extractive_answer(question, [("p", text)], max_sentences=1, config=config)
    return text[first[1] : first[2]]


def test_a_yes_no_question_is_answered_by_the_sentence_that_takes_a_stance() -> None:
    text = (
        "The kiln door opens outwards on two hinges. "
        "The kiln door is opened after the firing ends. "
        "During a firing the kiln door must stay shut."
    )
    q = "Can the kiln door be opened during firing?"
    assert _first(q, text, answer_form=1.7) == "During a firing the kiln door must stay shut."
    assert _first(q, text, answer_form=0.0) == "The kiln door is opened after the firing ends."


def test_a_sentence_that_points_back_is_read_with_the_one_it_points_to() -> None:
    text = (
        "The glaze mixer stirs the slip for ten minutes. "
        "It never heats the glaze. "
        "Heating the glaze is done in the drying room, never in the mixer."
    )
    q = "Does the glaze mixer heat the glaze?"
    assert _first(q, text, refers_back=4.0) == "It never heats the glaze."
    assert _first(q, text, refers_back=0.0) != "It never heats the glaze."


def test_a_sentence_that_opens_on_what_is_asked_is_about_it() -> None:
    text = "On the top shelf the apples and the pears are kept. Pears are kept by the door."
    q = "Where are the pears kept?"
    assert _first(q, text, opens_on_question=3.0) == "Pears are kept by the door."
    assert _first(q, text, opens_on_question=-3.0) != "Pears are kept by the door."
