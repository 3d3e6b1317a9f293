"""Property tests: a quote that is not in its source never verifies, and meaning-changing
perturbations (a digit, a negation, a name) never verify, whatever else matches."""

from __future__ import annotations

import re

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from memo_core.answer.lexicon import CONDITIONS, marker_at, word_frequency
from memo_core.answer.normalize import normalize, normalize_quote, normalize_text
from memo_core.answer.verify import NEGATIONS, NUMBER_WORDS, verify_quote
from memo_core.search.text import STOPWORDS

PROPS = settings(max_examples=150, deadline=None)

_letters = st.sampled_from("abcdefghijklmnoprstuvwyzабвгдежзиклмнопрст")
# Lower-case content words that are neither negations nor conditions.
words = (
    st.text(_letters, min_size=4, max_size=9)
    .filter(lambda w: marker_at([w], 0) is None and w not in STOPWORDS)
    .filter(lambda w: w not in NUMBER_WORDS)
    .filter(lambda w: not w.endswith("n't"))
)
_MARKERS = sorted({*NEGATIONS, *(" ".join(c) for c in CONDITIONS)})
names = st.text(st.sampled_from("abcdefghijklmnoprstuvwyz"), min_size=4, max_size=8).map(
    str.capitalize
)


@st.composite
def sentences(draw: st.DrawFn, min_words: int = 8) -> list[str]:
    """Distinct words, so a quote taken from one place cannot match another."""
    return draw(st.lists(words, min_size=min_words, max_size=24, unique=True))


def _join(tokens: list[str]) -> str:
    return " ".join(tokens)


def _slice(draw: st.DrawFn, tokens: list[str], min_len: int = 4) -> tuple[int, int]:
    i = draw(st.integers(0, len(tokens) - min_len))
    j = draw(st.integers(i + min_len, len(tokens)))
    return i, j


# -- located quotes ----------------------------------------------------------------


@PROPS
@given(source=st.text(max_size=200), quote=st.text(max_size=40))
@example(source="\u00bc", quote="1")  # "¼" normalises to "1⁄4": "1" is part of it, no quote
@example(source="a \ufb01le b", quote="f")  # the "fi" ligature: "f" is half of it
def test_arbitrary_quote_verifies_only_when_present(source: str, quote: str) -> None:
    check = verify_quote(quote, source)
    nq = normalize_quote(quote).folded
    if check.method in ("exact", "normalized"):
        assert check.start is not None and check.end is not None
        assert normalize_quote(source[check.start : check.end]).folded == nq
        assert nq in normalize(source)
    if nq not in normalize(source):
        assert check.method not in ("exact", "normalized")


@PROPS
@given(data=st.data(), tokens=sentences())
def test_every_slice_of_the_source_verifies_at_its_span(
    data: st.DataObject, tokens: list[str]
) -> None:
    source = _join(tokens)
    i, j = _slice(data.draw, tokens)
    quote = _join(tokens[i:j])
    check = verify_quote(quote, source)
    assert check.verified and check.method == "exact"
    assert check.start is not None and source[check.start : check.end] == quote


@PROPS
@given(data=st.data(), tokens=sentences())
def test_retyped_slices_verify_normalized_and_map_back(
    data: st.DataObject, tokens: list[str]
) -> None:
    source = "  ".join(tokens).replace("  ", " \u00a0", 3)
    i, j = _slice(data.draw, tokens)
    quote = "“" + _join(tokens[i:j]).upper() + "”"
    check = verify_quote(quote, source)
    assert check.verified
    assert check.start is not None and check.end is not None
    assert normalize(source[check.start : check.end]) == normalize_quote(quote).folded


@PROPS
@given(text=st.text(max_size=300))
def test_offset_map_is_monotonic_and_in_bounds(text: str) -> None:
    norm = normalize_text(text)
    assert len(norm.text) == len(norm.folded) == len(norm.starts) == len(norm.ends)
    assert all(0 <= a < b <= len(text) for a, b in zip(norm.starts, norm.ends, strict=True))
    assert list(norm.starts) == sorted(norm.starts)


# -- perturbations never verify ------------------------------------------------------


@PROPS
@given(data=st.data(), tokens=sentences(), number=st.integers(0, 99999))
def test_a_changed_number_never_verifies(
    data: st.DataObject, tokens: list[str], number: int
) -> None:
    at = data.draw(st.integers(1, len(tokens) - 1))
    tokens = [*tokens[:at], str(number), *tokens[at:]]
    source = _join(tokens)
    i = data.draw(st.integers(max(0, at - 6), at))
    j = data.draw(st.integers(at + 1, min(len(tokens), at + 8)))
    assume(j - i >= 2)
    digits = str(number)
    k = data.draw(st.integers(0, len(digits) - 1))
    new_digit = data.draw(st.sampled_from([d for d in "0123456789" if d != digits[k]]))
    changed = digits[:k] + new_digit + digits[k + 1 :]
    quote = _join([*tokens[i:at], changed, *tokens[at + 1 : j]])
    check = verify_quote(quote, source)
    assert not check.verified, (quote, source, check)


@PROPS
@given(data=st.data(), tokens=sentences(), negation=st.sampled_from(["not", "never", "не", "без"]))
def test_an_inserted_negation_never_verifies(
    data: st.DataObject, tokens: list[str], negation: str
) -> None:
    source = _join(tokens)
    i, j = _slice(data.draw, tokens)
    at = data.draw(st.integers(i, j))
    quote = _join([*tokens[i:at], negation, *tokens[at:j]])
    assert not verify_quote(quote, source).verified


@PROPS
@given(data=st.data(), tokens=sentences(), negation=st.sampled_from(["not", "never", "no", "нет"]))
def test_a_removed_negation_never_verifies(
    data: st.DataObject, tokens: list[str], negation: str
) -> None:
    at = data.draw(st.integers(1, len(tokens) - 1))
    tokens = [*tokens[:at], negation, *tokens[at:]]
    source = _join(tokens)
    i = data.draw(st.integers(max(0, at - 6), at - 1))
    j = data.draw(st.integers(at + 2, min(len(tokens), at + 8)))
    quote = _join([*tokens[i:at], *tokens[at + 1 : j]])
    assert not verify_quote(quote, source).verified


@PROPS
@given(data=st.data(), tokens=sentences(), name=names, other=names)
def test_a_swapped_name_never_verifies(
    data: st.DataObject, tokens: list[str], name: str, other: str
) -> None:
    assume(name.lower() != other.lower())
    at = data.draw(st.integers(1, len(tokens) - 1))
    tokens = [*tokens[:at], name, *tokens[at:]]
    source = _join(tokens)
    i = data.draw(st.integers(max(0, at - 6), at))
    j = data.draw(st.integers(at + 1, min(len(tokens), at + 8)))
    assume(j - i >= 2)
    quote = _join([*tokens[i:at], other, *tokens[at + 1 : j]])
    assert not verify_quote(quote, source).verified


@PROPS
@given(data=st.data(), tokens=sentences())
def test_fuzzy_matches_keep_numbers_and_negations(data: st.DataObject, tokens: list[str]) -> None:
    """Whatever a noisy quote matches, the matched span holds its numbers and negations."""
    source = _join([*tokens[:4], "42", "not", *tokens[4:]])
    quote_tokens = source.split()[2:10]
    k = data.draw(st.integers(0, len(quote_tokens) - 1))
    word = quote_tokens[k]
    slipped = word[0] + word[2:]  # one dropped letter after the first
    # A slip that spells no word the lists know is noise; one that does is a substitution.
    noisy = (
        len(word) >= 5
        and word.isalpha()
        and not word.endswith(slipped)
        and not word_frequency(slipped)
        and slipped not in tokens
    )
    if noisy:
        quote_tokens[k] = slipped
    quote = _join(quote_tokens)
    check = verify_quote(quote, source)
    if noisy:
        assert check.verified and check.method == "fuzzy", (quote, source, check)
    if check.verified:
        assert check.start is not None and check.end is not None
        span = source[check.start : check.end]
        assert re.findall(r"\d+", span) == re.findall(r"\d+", quote)
        neg = lambda s: [w for w in s.lower().split() if w in NEGATIONS]  # noqa: E731
        assert neg(span) == neg(quote)


@PROPS
@given(data=st.data(), tokens=sentences(), marker=st.sampled_from(_MARKERS))
def test_a_quote_cut_before_a_negation_or_condition_never_verifies(
    data: st.DataObject, tokens: list[str], marker: str
) -> None:
    at = data.draw(st.integers(4, len(tokens) - 1))
    source = _join([*tokens[:at], marker, *tokens[at:]]) + "."
    i = data.draw(st.integers(0, at - 4))
    quote = _join(tokens[i:at])
    for retyped in (quote, quote + ".", f"“{quote.upper()}.”"):
        check = verify_quote(retyped, source)
        assert not check.verified, (retyped, source, check)


@PROPS
@given(
    data=st.data(),
    tokens=sentences(),
    marker=st.sampled_from(["not", "never", "не", "нет", "unless", "if", "если не", "кроме"]),
)
def test_a_quote_cut_after_a_leading_negation_or_condition_never_verifies(
    data: st.DataObject, tokens: list[str], marker: str
) -> None:
    # "It is not possible | to mix A and B": the quote starts after the negation, some
    # words later or right after it, as a chunk that starts mid-sentence cuts it.
    at = data.draw(st.integers(0, len(tokens) - 5))
    source = _join([*tokens[:at], marker, *tokens[at:]]).capitalize() + "."
    i = data.draw(st.integers(at, len(tokens) - 4))
    quote = _join(tokens[i:]) + "."
    for retyped in (quote, f"“{quote.upper()}”"):
        check = verify_quote(retyped, source)
        assert not check.verified, (retyped, source, check)
    # The whole sentence verifies: the rule is about what the quote leaves out.
    assert verify_quote(source, source).verified


@PROPS
@given(data=st.data(), tokens=sentences(), cut=st.integers(1, 3))
def test_a_stub_of_few_words_verifies_only_as_a_whole_sentence(
    data: st.DataObject, tokens: list[str], cut: int
) -> None:
    source = _join(tokens) + "."
    i = data.draw(st.integers(0, len(tokens) - cut))
    assert not verify_quote(_join(tokens[i : i + cut]), source).verified
    whole = _join(tokens[i : i + cut]).capitalize() + "."
    assert verify_quote(whole, f"{source} {whole}").verified
