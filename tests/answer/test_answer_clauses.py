"""Numbered clauses with run-in titles, as contracts and licences write them: the title
("3. Patents.") names what the clause is about and is never quoted as the answer. The
terms are made up for these tests.
"""

from __future__ import annotations

from memo_core.answer.extractive import extractive_answer
from memo_core.answer.sentences import split_sentences
from memo_core.answer.windows import is_heading

TERMS = """The Heron Shared Terms

Copyright 2021-2025 The Heron Guild

1. Grant. You may copy and change the Work, provided that this notice stays with it.

2. Patents. If you sue a contributor over a patent in the Work, your grant ends
on the day the suit is filed.

Section 3. Liability. Nobody who worked on the Work owes you damages.

4. Step one. Open the lid. Step two comes after it.
"""


def _heading(sentence: str) -> bool:
    start = TERMS.index(sentence)
    return is_heading(TERMS, start, start + len(sentence))


def test_a_numbered_clause_opens_with_its_run_in_title() -> None:
    sentences = [TERMS[a:b] for a, b in split_sentences(TERMS)]
    assert "Patents." in sentences and _heading("Patents.")
    assert _heading("Grant.") and _heading("Liability.")
    # The clause itself, and a short sentence that is not the first after the number,
    # are sentences that can answer.
    assert not _heading("If you sue a contributor over a patent in the Work, your grant ends")
    assert not _heading("Open the lid.")
    # A short sentence with no number before it is no run-in title.
    assert not _heading("Nobody who worked on the Work owes you damages.")


def test_a_copyright_notice_is_a_statement_and_the_title_above_it_a_title() -> None:
    assert not _heading("Copyright 2021-2025 The Heron Guild")
    assert _heading("The Heron Shared Terms")


def test_the_run_in_title_is_never_quoted_as_the_answer() -> None:
    passages = [("terms", TERMS)]
    picked = extractive_answer("What happens if I sue over a patent?", passages)
    quoted = [TERMS[a:b] for _, a, b in picked]
    assert quoted and "Patents." not in quoted
    assert quoted[0].startswith("If you sue a contributor")


VERSIONED = """THE HERON SHARED TERMS, VERSION 4

1. Grant. You may copy and change the Work, provided that this notice stays with it.

2. Later versions. The Heron Guild may publish new versions of these terms.
"""


def test_a_title_is_quoted_only_for_the_version_it_states() -> None:
    # A licence often says which version it is only in its title: asked which version,
    # the title is the answer; asked anything else, it stays context.
    passages = [("terms", VERSIONED)]
    title = "THE HERON SHARED TERMS, VERSION 4"
    for question in ("Which version of the Heron terms is this?", "What version are the terms?"):
        picked = extractive_answer(question, passages, max_sentences=1)
        assert VERSIONED[picked[0][1] : picked[0][2]] == title, question
    picked = extractive_answer("Who may publish new versions of the terms?", passages)
    assert title not in [VERSIONED[a:b] for _, a, b in picked]
    # Nor when asked the version of something else, which the title does not state.
    picked = extractive_answer("Which Python version do the Heron terms need?", passages)
    assert title not in [VERSIONED[a:b] for _, a, b in picked]
    # A title with no version in it is never a candidate.
    plain = [("terms", TERMS)]
    picked = extractive_answer("Which version of the Heron terms is this?", plain)
    assert "The Heron Shared Terms" not in [TERMS[a:b] for _, a, b in picked]
