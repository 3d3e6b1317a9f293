"""Unit tests for each rule of the citation check (exact, normalized, fuzzy and its guards)."""

from __future__ import annotations

import pytest

from memo_core.answer.verify import CitationVerifier, VerifierConfig, verify_quote

CONTRACT = (
    "Under this Agreement the initial term is 24 months. The Supplier shall not "
    "assign the contract without consent. Dr. Alice Moreau signed it on 3.5 March 2021 "
    "in Lyon; the fee was $1,200."
)


def _span(quote: str, source: str = CONTRACT) -> str:
    check = verify_quote(quote, source)
    assert check.verified, check.reason
    assert check.start is not None and check.end is not None
    return source[check.start : check.end]


def test_exact_quote_is_located_at_its_span() -> None:
    check = verify_quote("the initial term is 24 months", CONTRACT)
    assert check.verified and check.method == "exact" and check.similarity == 1.0
    assert _span("the initial term is 24 months") == "the initial term is 24 months"


def test_the_old_plugin_bug_12_vs_24_months_fails() -> None:
    check = verify_quote("the term is 12 months", "the term is 24 months")
    assert not check.verified
    assert check.reason is not None and "numbers differ" in check.reason


@pytest.mark.parametrize(
    "quote",
    [
        "The Supplier shall assign the contract without consent",  # negation dropped
        "The Supplier shall not assign the contract with consent",  # "without" -> "with"
        "the initial term is not 24 months",  # negation inserted
        "The Supplier shall never assign the contract without consent",  # changed negation
    ],
)
def test_negations_must_match(quote: str) -> None:
    check = verify_quote(quote, CONTRACT)
    assert not check.verified


@pytest.mark.parametrize(
    "quote",
    [
        "Dr. Alice Moreau signed it on 3.6 March 2021",  # decimal
        "Dr. Alice Moreau signed it on 3.5 March 2022",  # year
        "Dr. Alice Moreau signed it on 3.5 May 2021",  # month name (capitalised)
        "the fee was $1,300",
        "the initial term is twenty-four months",  # digits vs words
    ],
)
def test_numbers_and_dates_must_match(quote: str) -> None:
    assert not verify_quote(quote, CONTRACT).verified


@pytest.mark.parametrize(
    "quote",
    [
        "Dr. Alice Moreax signed it on 3.5 March 2021",  # one-letter name slip
        "Dr. Alicia Moreau signed it on 3.5 March 2021",
        "signed it on 3.5 March 2021 in Lyons",
        "Dr. Alice Moreau signed it on 3.5 March 2021 in Paris",
    ],
)
def test_capitalised_names_must_match(quote: str) -> None:
    assert not verify_quote(quote, CONTRACT).verified


def test_normalized_match_forgives_typography_and_maps_back() -> None:
    quote = "“THE  SUPPLIER shall not assign the contract without consent.”"
    check = verify_quote(quote, CONTRACT)
    assert check.verified and check.method == "normalized"
    assert _span(quote) == "The Supplier shall not assign the contract without consent"


def test_normalized_match_with_soft_hyphen_dashes_and_curly_apostrophe() -> None:
    source = "It\u00ad’s a well\u2013known fact — they aren ’ t here."
    check = verify_quote("it's a well-known fact - they aren't here", source)
    assert check.verified and check.method == "normalized"
    assert check.start == 0 and source[check.start : check.end].endswith("here")


def test_fuzzy_match_tolerates_ocr_slips() -> None:
    noisy = "The Supplier shall not assign the contrcat without consent"
    check = verify_quote(noisy, CONTRACT)
    assert check.verified and check.method == "fuzzy"
    assert 0.9 <= check.similarity < 1.0
    assert _span(noisy) == "The Supplier shall not assign the contract without consent"


def test_fuzzy_match_undoes_rn_for_m() -> None:
    source = "Members of the genus prey on jellyfish and incorporate their nematocysts."
    assert verify_quote("prey on jellyfish and incorporate their nernatocysts", source).verified


def test_fuzzy_rejects_a_different_word_even_when_similar() -> None:
    source = "two atoms of the element bind to form dioxygen, a colorless gas"
    # an added prefix is another word, not a slip
    assert not verify_quote("two atoms of the element bind to form oxygen", source).verified
    # a changed first letter too
    assert not verify_quote("of the element bind to norm dioxygen", source).verified


def test_fuzzy_drops_and_adds_only_filler_words() -> None:
    source = "the committee approved the budget for the new hospital wing"
    assert verify_quote("the committee approved budget for the new hospital wing", source).verified
    assert not verify_quote(
        "the committee approved the budget for the hospital wing", source
    ).verified


def test_punctuation_at_the_edge_cannot_hide_a_word() -> None:
    source = 'outputs the answer (" yes " or " no ") and stops'
    check = verify_quote('outputs the answer (" yes " or " ")', source)
    assert not check.verified


def test_short_quotes_verify_only_as_a_whole_sentence() -> None:
    for stub in ("initial term", "INITIAL  term", "the initial term is 24"):
        check = verify_quote(stub, CONTRACT)
        assert not check.verified and check.reason is not None and "too short" in check.reason
    source = "Payment is due. Late fees apply. Nothing else."
    assert _span("Late fees apply.", source) == "Late fees apply."
    assert verify_quote("“late FEES apply”", source).method == "normalized"
    check = verify_quote("late fees", source)
    assert not check.verified and check.reason is not None and "too short" in check.reason
    # Four content words are enough anywhere in a sentence.
    assert _span("the initial term is 24 months") == "the initial term is 24 months"


def test_min_fuzzy_words_is_configurable() -> None:
    source = "the quarterly report was published late"
    quote = "the quarterly reprot was published late"
    assert not verify_quote(quote, source, min_fuzzy_words=7).verified
    assert verify_quote(quote, source, min_fuzzy_words=4).verified


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("The tenant may sublet the furnished flat not before the first year ends.",
         "The tenant may sublet the furnished flat."),
        ("The tenant may sublet the whole flat unless the landlord objects in writing.",
         "The tenant may sublet the whole flat."),
        ("Deliveries are accepted on every weekday except public holidays.",
         "Deliveries are accepted on every weekday"),
        ("The deposit is refunded within thirty days provided that no damage is found.",
         "The deposit is refunded within thirty days."),
        ("The licence covers commercial use subject to the payment of royalties.",
         "the licence covers commercial use"),
        ("Арендатор вправе сдавать квартиру в субаренду, если не возражает владелец.",
         "Арендатор вправе сдавать квартиру в субаренду."),
        ("Доставка выполняется в любой рабочий день кроме праздников.",
         "Доставка выполняется в любой рабочий день"),
        ("Возврат выполняется в течение месяца при условии сохранения чека.",
         "Возврат выполняется в течение месяца."),
    ],
)  # fmt: skip
def test_a_quote_cut_before_a_negation_or_condition_does_not_verify(
    source: str, quote: str
) -> None:
    check = verify_quote(quote, source)
    assert not check.verified and check.reason is not None and "cut off" in check.reason
    # The same words typed differently (the normalized path) are refused too.
    retyped = verify_quote(f"“{quote.upper()}”", source)
    assert not retyped.verified and retyped.reason is not None and "cut off" in retyped.reason


def test_a_quote_must_not_drop_a_condition_or_negation_before_it() -> None:
    source = "Unless agreed otherwise in writing, the monthly fee is waived for students."
    check = verify_quote("the monthly fee is waived for students", source)
    assert not check.verified and check.reason is not None and "leaves out" in check.reason
    source = "The board will approve the plan only if every single member votes for it."
    check = verify_quote("every single member votes for it", source)
    assert not check.verified and check.reason is not None and "right before" in check.reason
    # A sentence that ends before the negation is whole.
    source = "The tenant may sublet the whole flat. No pets are allowed."
    assert _span("The tenant may sublet the whole flat.", source)


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("The supplier shall deliver the goods within ten days.",
         "The supplier shell deliver the goods within ten days."),
        ("Fill in the form before the meeting and hand it over.",
         "Fill in the from before the meeting and hand it over."),
        ("The lease of the building expires with the current year.",
         "The least of the building expires with the current year."),
        ("The committee encourages a distinction between lawful protest and riots.",
         "The committee encourage a distinction between lawful protest and riots."),
    ],
)  # fmt: skip
def test_a_fuzzy_edit_that_makes_another_real_word_is_a_substitution(
    source: str, quote: str
) -> None:
    check = verify_quote(quote, source)
    assert not check.verified and check.reason is not None and "words differ" in check.reason


def test_a_quote_word_that_is_a_word_of_the_source_is_no_typo() -> None:
    source = "The ctenophores of the northern bay feed on small ctenophore larvae at night."
    quote = "The ctenophore of the northern bay feed on small ctenophore larvae at night."
    assert not verify_quote(quote, source).verified


@pytest.mark.parametrize("quote", ["", "   ", "\n\t", '""', "..."])
def test_empty_quotes_never_verify(quote: str) -> None:
    check = verify_quote(quote, CONTRACT)
    assert not check.verified and check.start is None and check.method is None


def test_a_quote_must_not_cut_a_word_or_number() -> None:
    assert not verify_quote("the initial term is 2", CONTRACT).verified
    assert not verify_quote("nitial term is 24 months", CONTRACT).verified


def test_unrelated_quote_reports_low_similarity() -> None:
    check = verify_quote("penguins are flightless seabirds of the south", CONTRACT)
    assert not check.verified and check.similarity < 0.9 and check.reason


def test_russian_quotes() -> None:
    source = "Срок действия договора составляет 24 месяца. Поставщик не вправе передавать договор."
    assert (
        verify_quote("срок действия договора составляет 24 месяца", source).method == "normalized"
    )
    assert not verify_quote("Срок действия договора составляет 12 месяца", source).verified
    assert not verify_quote("Поставщик вправе передавать договор", source).verified
    noisy = verify_quote("Поставщик не вправе передаватъ договор", source)
    assert noisy.verified and noisy.method == "fuzzy"


def test_a_second_occurrence_is_found_when_the_first_window_fails() -> None:
    source = "The term is 12 months for staff. Later: the term is 24 months for contractors."
    check = verify_quote("the term is 24 monhts for contractors", source)
    assert check.verified and check.method == "fuzzy"
    assert check.start is not None and source[check.start :].startswith("the term is 24")


def test_verifier_config_is_frozen_and_used() -> None:
    strict = CitationVerifier(VerifierConfig(max_edit_ratio=0.0, min_fuzzy_words=4))
    quote = "The Supplier shall not assign the contrcat without consent"
    # max_edit_ratio 0 still allows one slip (at least one edit is always allowed)
    assert strict.check(quote, CONTRACT).verified
    two_slips = "The Suplier shall not asign the contrcat without consent"
    assert not strict.check(two_slips, CONTRACT).verified
    with pytest.raises(AttributeError):
        strict.config.min_fuzzy_words = 1  # type: ignore[misc]


def test_check_to_dict_round_trip() -> None:
    from memo_core.answer.types import QuoteCheck

    check = verify_quote("the term is 12 months", "the term is 24 months")
    assert QuoteCheck.from_dict(check.to_dict()) == check


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # A rare real word the frequency list ranks among misspellings (Zipf ~1).
        ("Two copper pipes connecting the boiler to the radiators were replaced.",
         "Two copper pipes convecting the boiler to the radiators were replaced."),
        # A letter replaced by one that is neither a look-alike nor a keyboard neighbour.
        ("Two copper pipes connecting the boiler to the radiators were replaced.",
         "Two copper pipes conxecting the boiler to the radiators were replaced."),
        # A letter dropped and a look-alike of its neighbour added in its place ("r" ->
        # "c" beside an "e"): one replacement no scanner makes, not two slips.
        ("The bishop was converting the old chapel into a library for the town.",
         "The bishop was convecting the old chapel into a library for the town."),
        # An ending added to a word no frequency list knows: a change of number.
        ("Each tentacle carries one cnidocyte at its tip for catching prey.",
         "Each tentacle carries one cnidocytes at its tip for catching prey."),
        # The quote's word is listed, the source's is not: noise would be in the source,
        # but "stationis" is no slip of "stations" (an added "i" beside no look-alike).
        ("The herbarium keeps a sheet of Carex stationis gathered near the old mill.",
         "The herbarium keeps a sheet of Carex stations gathered near the old mill."),
        # Two slips in one word that land on a spelling the list knows.
        ("In the inner layer, photocytes glow whenever the water around them is stirred.",
         "In the inner layer, phagocytes glow whenever the water around them is stirred."),
        # An apostrophe ending hides no change of word: "nurses" is not "nurse".
        ("The nurse's notes were kept in the ward archive for many years.",
         "The nurses's notes were kept in the ward archive for many years."),
    ],
)  # fmt: skip
def test_a_rare_or_unknown_word_swapped_in_is_a_substitution(source: str, quote: str) -> None:
    check = verify_quote(quote, source)
    assert not check.verified and check.reason is not None and "words differ" in check.reason


@pytest.mark.parametrize(
    "quote",
    [
        "The Supplier shall not assign the contrcat without consent",  # swapped letters
        "The Supplier shall not asssign the contract without consent",  # doubled letter
        "The Supplier shall not assign the contract withnut consent",  # negation: never
        "The Supplier shall not assign the contract without consnet",  # swap at the end
        "The Supplier shall not assign the contract without comsent",  # keyboard n/m
        "The Supplier shall not assign the coutract without consent",  # look-alike n/u
    ],
)
def test_ocr_and_typing_slips_are_forgiven(quote: str) -> None:
    check = verify_quote(quote, CONTRACT)
    if "withnut" in quote:  # a negation is protected: no slip allowed in it
        assert not check.verified
    else:
        assert check.verified and check.method == "fuzzy", check.reason


def test_a_misprint_in_the_source_is_still_forgiven() -> None:
    # A model quoting a scanned page writes the word the scanner misread ("rn" as "m").
    source = "The govemment approved the new budget for the northern provinces last spring."
    quote = "The government approved the new budget for the northern provinces last spring."
    check = verify_quote(quote, source)
    assert check.verified and check.method == "fuzzy", check.reason
