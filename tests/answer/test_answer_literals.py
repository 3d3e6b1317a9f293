"""Literals a question names verbatim (memo_core.answer.literals), in sentences of our own."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core.answer.lexicon import dictionary_available
from memo_core.answer.literals import Literal, missing_literals, question_literals
from memo_core.answer.salience import missing_terms


def _found(question: str) -> list[tuple[str, str]]:
    return [(lit.kind, lit.text) for lit in question_literals(question)]


def test_options_operators_and_punctuated_tokens_are_taken_verbatim() -> None:
    assert _found("What does the --dry-run flag of deploy -v print?") == [
        ("flag", "--dry-run"),
        ("flag", "-v"),
    ]
    assert _found("How does the <~> operator compare two ranges?") == [("symbol", "<~>")]
    assert _found("Is a == b the same as a === b?") == [("symbol", "=="), ("symbol", "===")]
    # The question's own mark is no operator, but an operator before it is.
    assert _found("How does != differ from ==?") == [("symbol", "!="), ("symbol", "==")]
    assert _found("What does the %q placeholder expand to, and is $TMPDIR read?") == [
        ("symbol", "%q"),
        ("symbol", "$TMPDIR"),
    ]
    assert _found("Does fetch() accept a timeout= keyword?") == [
        ("call", "fetch"),
        ("call", "timeout"),
    ]
    assert _found("Where is `max_open` read, and what does 'strict' mode do?") == [
        ("code", "max_open"),
        ("code", "strict"),
    ]


def test_prose_punctuation_and_plain_words_are_not_literals() -> None:
    assert question_literals("Why is the sky blue - and can't it be green?") == []
    assert question_literals("What is the tenant's deposit... and who holds it?") == []
    # A character alone is prose as often as an operator.
    assert question_literals("Did 1000 + people sign at Oxford / Cambridge?") == []
    assert question_literals("Does 1 + 1/2 + 1/4 +... converge?") == []
    # Apostrophes of split words and mangled escaped quotes are no quotation.
    assert question_literals('Why didn \' t the \\ "northern \\ " fleet sail?') == []
    assert question_literals("Which command line option turns caching off?") == []


@pytest.mark.skipif(not dictionary_available(), reason="wordfreq is not installed")
def test_names_of_kinds_of_things() -> None:
    # A term followed by a word: the two are one name and must stand together.
    assert _found("What does the memoize until statement do?") == [("name", "memoize until")]
    # Common words before the name describe it: only the name itself counts.
    assert _found("What does the old retry setting control?") == [("name", "retry")]
    # Of two kind nouns in a row the first ends the name.
    assert _found("What does the pgdump verbose option flag do?") == [("name", "pgdump verbose")]
    # Common words describe a thing, they do not name it.
    assert _found("What does the last element of a pending queue hold?") == []
    # Two phrases joined by a function word are not one name.
    assert _found("Where is the text of error messages kept?") == []
    # Without a determiner before it, a run is not a name ("Which ... option").
    assert _found("Which cache option is fastest?") == []
    # A package's optional extra is named as an option is.
    assert _found("What does the zstdpack extra of heronlog install?") == [("name", "zstdpack")]
    assert missing_literals(
        "What does the zstdpack extra of heronlog install?",
        ['Requires-Dist: tidepool>=3; extra == "tide"'],
    ) == ["zstdpack"]


@pytest.mark.skipif(not dictionary_available(), reason="wordfreq is not installed")
def test_latin_names_in_a_russian_question() -> None:
    assert _found("Что делает оператор memoize until в конвейере?") == [("name", "memoize until")]
    evidence = ["Оператор memoize запускает задачу, until ждёт её конца."]
    assert missing_literals("Что делает оператор memoize until в конвейере?", evidence) == [
        "memoize until"
    ]
    assert (
        missing_literals("Что делает оператор memoize until?", ["Вызов memoize until ждёт."]) == []
    )


def test_a_literal_must_stand_whole_in_the_evidence() -> None:
    assert not Literal("-m", "flag").found_in("run it with -mx to be quiet")
    assert Literal("-m", "flag").found_in('run it with "-m" to name a module')
    assert not Literal("--no-cache", "flag").found_in("pass --no-cache-dir to skip it")
    assert not Literal(">>", "symbol").found_in("x >>= 2 shifts in place")
    assert Literal(">>", "symbol").found_in("the operators << and >> shift")
    # An escape is listed with its digits after it.
    assert Literal("\\u", "symbol").found_in("\\uxxxx is a 16-bit code point")
    assert not Literal("\\w", "symbol").found_in("\\uxxxx is a 16-bit code point")
    assert not Literal("fetch", "call").found_in("prefetch(url) warms the cache")


@pytest.mark.skipif(not dictionary_available(), reason="wordfreq is not installed")
def test_word_literals_match_by_stemmed_words_together() -> None:
    text = "Soft keywords such as spawn are reserved only in a memoize until block."
    assert Literal("soft keyword", "code").found_in(text)
    assert Literal("memoize until", "name").found_in(text)
    assert not Literal("until memoize", "name").found_in(text)
    assert Literal("run-time", "name").found_in("errors found at run time are raised")
    assert Literal("run-time", "name").found_in("errors found at runtime are raised")


def test_a_name_of_several_words_matches_the_identifier_that_spells_it() -> None:
    # "the kiln timeout error" names KilnTimeoutError; the class's docs never split it.
    text = "The wait gives up with KilnTimeout after an hour; see KilnTimeoutError."
    assert Literal("kiln timeout", "name").found_in(text)
    assert Literal("kiln timeout", "name").found_in("KilnTimeoutException is raised.")
    # Only a kind noun may follow the spelled words, and only whole identifiers count.
    assert not Literal("kiln timeout", "name").found_in("KilnTimeoutless mode.")
    assert not Literal("kiln timeout", "name").found_in("OvenKilnTimeoutError is raised.")
    assert not Literal("kiln", "name").found_in("KilnError is raised.")


def test_missing_literals_lists_the_absent_ones() -> None:
    question = "What does the --no-cache option of build --fast do?"
    evidence = ["build --fast skips the tests.", "build --clean removes the cache."]
    assert missing_literals(question, evidence) == ["--no-cache"]
    assert missing_literals(question, [*evidence, "--no-cache: never read the cache."]) == []
    assert missing_literals("What does the <~> operator do?", ["< and > compare."]) == ["<~>"]


def test_the_module_python_dash_m_runs_is_named_by_the_answer() -> None:
    question = "Which port does python3 -m quill.serve bind when none is given?"
    assert ("code", "quill.serve") in _found(question)
    other_tool = ["usage: python -m lantern [-p PORT]  -p PORT  listen here (default: 9000)"]
    assert missing_literals(question, other_tool) == ["quill.serve"]
    own_help = ["usage: python -m quill.serve [port]  port  bind to this port (default: 7300)"]
    assert missing_literals(question, own_help) == []
    # Only after the interpreter: "-m" alone is the option, its neighbour no module.
    assert _found("What does -m cover in the lantern tool?") == [("flag", "-m")]


def test_hard_misses_include_the_missing_literals() -> None:
    # The words of the option are all in the text, the option is not: the tokenizer
    # alone would call it covered.
    question = "What does the --no-retry flag do?"
    evidence = ["With --retry the client retries; no retry happens without it."]
    assert missing_terms(question, evidence) == ["--no-retry"]
    assert missing_terms(question, ["--no-retry turns retries off."]) == []


_FLAGS = st.from_regex(r"--?[a-z][a-z0-9]{0,6}(-[a-z]{1,5})?", fullmatch=True)
_OPERATORS = st.text(alphabet="!%&*+<=>?@^|~", min_size=2, max_size=4)


# No deadline: a loaded machine is no failure (the brief: never assert wall-clock times).
@settings(deadline=None)
@given(flag=_FLAGS, other=_FLAGS)
def test_an_option_is_missing_exactly_when_the_evidence_lacks_it(flag: str, other: str) -> None:
    question = f"What does the {flag} option do?"
    assert missing_literals(question, [f"Pass {flag} to turn it on."]) == []
    if other != flag:
        assert missing_literals(question, [f"Pass {other} to turn it on."]) == [flag]


@settings(deadline=None)
@given(op=_OPERATORS, other=_OPERATORS)
def test_an_operator_is_missing_exactly_when_the_evidence_lacks_it(op: str, other: str) -> None:
    question = f"How does a {op} b work?"
    assert missing_literals(question, [f"The expression a {op} b combines them."]) == []
    if other != op:
        assert missing_literals(question, [f"The expression a {other} b combines them."]) == [op]


def test_a_name_given_a_value_needs_a_passage_that_gives_it_that_value() -> None:
    assert _found("What does the loop=True option of play() change?") == [
        ("setting", "loop=True"),
        ("call", "play"),
    ]
    assert ("setting", "--speed=3") in _found("What does spin --speed=3 do?")
    # A comparison is no setting.
    assert [k for k, _ in _found("Is x == 3 ever true?")] == ["symbol"]
    signature = "play(track, loop=False, volume=5)"
    assert missing_literals("What does loop=False do?", [signature]) == []
    assert missing_literals("What does loop = 'False' do?", [signature]) == []
    # The name documented with other values only, or the word in another sense.
    assert missing_literals("What does loop=True do?", [signature]) == ["loop=True"]
    assert missing_literals(
        "What does the loop=True option do?", ["Each track is played in a loop once."]
    ) == ["loop=True"]
    # A value near its name, or a number in the range the passage gives it.
    assert missing_literals("What does loop=True do?", ["If *loop* is True, it repeats."]) == []
    assert missing_literals("What does --speed=3 do?", ["--speed N  spin speed, 1-5"]) == []
    assert missing_literals("What does --speed=9 do?", ["--speed N  spin speed, 1-5"]) == [
        "--speed=9"
    ]
