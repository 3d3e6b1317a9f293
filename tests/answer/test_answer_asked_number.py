"""A question asking how many, which version or which date is answered only by a quote
holding one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memo_core.answer.engine import GuardedAnswerer
from memo_core.answer.gate import SufficiencyGate
from memo_core.answer.types import Answer, Refusal
from memo_core.answer.windows import asks_for_number, holds_asked_number
from memo_core.kb import MemoBase


def test_which_questions_ask_for_a_number() -> None:
    assert asks_for_number("How many workers does the Heron scheduler start?")
    assert asks_for_number("How long is a Heron lease kept?")
    assert asks_for_number("Which version of Heron added leases?")
    assert asks_for_number("Сколько потоков запускает планировщик?")
    assert asks_for_number("Since which minor release does Heron keep leases?")
    # What a named release did is no question for a version.
    assert not asks_for_number("What did release 3.1 of Heron add?")
    # "release" here is what is done, not a release asked for.
    assert not asks_for_number("What happens when release is called on a free Heron lease?")
    # When, where and which option may be answered without a number.
    assert not asks_for_number("When does the Heron scheduler restart a worker?")
    assert not asks_for_number("Where does Heron write its journal?")
    assert not asks_for_number("Which option turns off leases?")


def test_a_count_is_a_numeral_or_a_counting_word_the_question_does_not_give() -> None:
    q = "How many workers does the Heron scheduler start?"
    assert holds_asked_number(q, "The scheduler starts 4 workers.")
    assert holds_asked_number(q, "It starts a single worker per core.")
    assert holds_asked_number(q, "It starts seventeen workers.")
    assert not holds_asked_number(q, "The scheduler starts workers on demand.")
    # The number the question gives is no answer to it.
    assert not holds_asked_number("How many of the 8 workers are idle?", "8 workers run.")
    # Nor is a version or a digit inside a name; a number with its unit is a count.
    size = "How large can a Heron journal grow?"
    assert not holds_asked_number(size, "The journal format is that of Heron 2.4.1.")
    assert not holds_asked_number(size, "Journals are written by heron3 and read by ID3 tools.")
    assert holds_asked_number(size, "A journal grows to 64MB before it rotates.")
    assert holds_asked_number(size, "Heron journals hold up to 2.5 GB.")
    v = "Which version of Heron added leases?"
    assert holds_asked_number(v, "Leases were added in Heron 2.4.")
    assert not holds_asked_number(v, "Leases were added in a later release.")
    # A counting word is no version.
    assert not holds_asked_number(v, "Only later releases have leases.")


def test_a_date_asked_for_by_name_is_a_year_a_month_or_a_written_date() -> None:
    assert asks_for_number("Until which date does Heron 1.x get security fixes?")
    assert asks_for_number("In what year was the Heron scheduler first released?")
    # A date format is a format; "when" may ask for a condition.
    assert not asks_for_number("What date format does the Heron journal use?")
    assert not asks_for_number("When does Heron renew a lease?")
    q = "In what year was the Heron scheduler first released?"
    assert holds_asked_number(q, "Heron was first released in 2019.")
    assert holds_asked_number(q, "It grew out of tools written in the 1990s.")
    assert holds_asked_number(q, "The first release came out on 3 March, a Tuesday.")
    assert not holds_asked_number(q, "The first release ran 2 workers; 1.2 added leases.")
    assert not holds_asked_number(q, "Heron 3.2019 is a release name, not a year.")
    # "May" is a month only beside a number: it is a modal verb as often.
    assert not holds_asked_number(q, "The first release may still be downloaded.")
    assert holds_asked_number(q, "The first release shipped on May 4.")
    # The year the question gives is no answer to it.
    assert not holds_asked_number("What year after 2019 added leases?", "Since 2019, leases.")
    # When a release came out is a date too; when a thing happens may be a condition.
    came_out = "When did Heron 2.4 come out?"
    assert asks_for_number(came_out) and asks_for_number("When was Heron 2.4 released?")
    assert not asks_for_number("When is a Heron lease released?")
    assert holds_asked_number(came_out, "Heron 2.4 (March 3rd, 2025)")
    assert holds_asked_number(came_out, "2.4.0 - 2025-03-03")
    assert not holds_asked_number(came_out, "Heron 2.4: a scheduler for small clusters.")
    assert not holds_asked_number(came_out, "Heron 2.3 (January 9th, 2025)")
    assert holds_asked_number("In what year did version 2 come out?", "Version 2 came in 2001.")


def test_a_number_asked_for_by_what_it_numbers_is_a_numeral() -> None:
    q = "Which port number does the Heron dashboard listen on?"
    assert asks_for_number(q)
    assert asks_for_number("Какой номер порта у панели Heron?")
    assert holds_asked_number(q, "The dashboard listens on port 8350.")
    assert not holds_asked_number(q, "The dashboard listens on a port of its own.")
    # The digits of a name number nothing.
    assert not holds_asked_number(q, "The dashboard is served by heron3.")
    rfc = "What RFC number describes the Heron journal format?"
    assert not holds_asked_number(rfc, "The journal format follows an early draft.")
    assert holds_asked_number(rfc, "The journal format is that of RFC 9112.")
    # Numbers of several kinds are asked for by kind, not as one numeral.
    assert not asks_for_number("Which numbers can Heron print as words?")


def test_the_version_another_thing_must_have_is_stated_beside_its_name() -> None:
    q = "Which Python version does wrenlog require?"
    assert holds_asked_number(q, "Requires-Python: >=3.9")
    assert holds_asked_number(q, "wrenlog runs on Python 3.9 or later.")
    # The project's own version, or another package's, is no answer to it.
    assert not holds_asked_number(q, "Name: wrenlog Version: 2.4.0")
    assert not holds_asked_number(q, "Requires-Dist: heronkit>=1.2")
    of = "Which version of heronkit does wrenlog need?"
    assert holds_asked_number(of, "Requires-Dist: heronkit>=1.2")
    # Accepted or allowed is required too: another version beside it is no answer.
    accepts = "Which versions of heronkit does wrenlog's fast extra accept?"
    assert not holds_asked_number(accepts, "heronkit - needed by the fast extra. HTTP/1.1 only.")
    assert holds_asked_number(accepts, 'Requires-Dist: heronkit>=1.2; extra == "fast"')
    # A name that only begins with the thing's name does not name it.
    assert not holds_asked_number(of, "Name: heronkit-extras Version: 0.3")
    # A version asked for without a requirement may be stated without the thing's name.
    assert holds_asked_number("Which Python version added leases?", "Added in version 3.12.")
    # A need in a condition ("if my code needs ...") is no requirement: the version asked
    # is the project's own, to keep or to install.
    keep = "Which wrenlog version should I stay on if my code needs heronkit records?"
    assert holds_asked_number(keep, "If you need heronkit records, stay on release 4.0.")
    assert not holds_asked_number(keep, "If you need heronkit records, use wrenlog.records().")


def test_the_version_must_stand_beside_the_thing_not_just_in_the_same_text() -> None:
    of = "Which version of heronkit does wrenlog need?"
    assert holds_asked_number(of, "Requires-Dist: heronkit (>=1.2,<2.0)")
    assert holds_asked_number(of, "It needs heronkit versions 1.2 to 1.9.")
    assert holds_asked_number(of, "- `heronkit`_ (>=1.2)")
    assert holds_asked_number(of, "Requires-Dist: heronkit[fast,cli]>=1.2")
    # A bound's number is a version without a dot too, right after the name it bounds.
    assert holds_asked_number(of, 'Requires-Dist: heronkit<5,>=3; extra == "fast"')
    assert holds_asked_number(of, "Requires-Dist: heronkit (>=3)")
    # Not a comparison in code, nor a version-less requirement beside a count.
    assert not holds_asked_number(of, "Retry while heronkit < 5 attempts have failed.")
    # Named without a version, beside a field that gives another package's.
    fields = 'Requires-Dist: heronkit ; extra == "dev"\nRequires-Dist: lintkit<0.9.1'
    assert not holds_asked_number(of, fields)
    # The thing named in another name's words: "the Wren Python SDK" is no Python.
    q = "Which Python version does the Wren SDK v1 require?"
    assert not holds_asked_number(q, "This is the Wren Python SDK. v2 is the current line.")
    assert holds_asked_number(q, "The Wren SDK v1 needs Python 3.10 or newer.")
    # Asked as "What is the oldest X version ...?", of a hyphenated name too.
    oldest = "What is the oldest Python version the Wren SDK runs on?"
    assert not holds_asked_number(oldest, "This is the Wren Python SDK. v2 is the current line.")
    assert holds_asked_number(oldest, "The Wren SDK runs on Python 3.10 and later.")
    # One end of the range asked for is a requirement too: not the project's own version.
    least = "What is the minimum Python version for wrenlog?"
    assert not holds_asked_number(least, "Name: wrenlog\nVersion: 2.4.0")
    assert holds_asked_number(least, "Requires-Python: >=3.9")
    hyphen = "Which heron-kit version added the retry hook?"
    assert asks_for_number(hyphen)
    assert not holds_asked_number(hyphen, "heron-kit provides a retry hook for slow sinks.")
    assert holds_asked_number(hyphen, "The retry hook was added in heron-kit 1.4.")


def test_the_most_a_requirement_allows_is_an_upper_bound() -> None:
    up_to = "Up to which version of tidelib does heronlog's cli extra allow?"
    newest = "What is the newest tidelib version heronlog accepts?"
    for q in (up_to, newest):
        assert asks_for_number(q)
        # The least version accepted says nothing of the most.
        assert not holds_asked_number(q, 'Requires-Dist: tidelib>=1.2; extra == "cli"')
        assert holds_asked_number(q, 'Requires-Dist: tidelib<3,>=1.2; extra == "cli"')
        assert holds_asked_number(q, "Requires-Dist: tidelib (<=2.8)")
    # The latest release of a thing itself is a version, not a bound.
    own = "Which is the latest heronlog version supporting Python 2.7?"
    assert holds_asked_number(own, "heronlog 4.1 is the last release supporting Python 2.7.")


def test_a_count_answers_how_many_only_beside_what_it_counts() -> None:
    q = "How many languages does the Heron tokenizer cover?"
    assert holds_asked_number(q, "The Heron tokenizer covers 41 languages.")
    assert holds_asked_number(q, "Each language of the 41 it knows has a word list.")
    # A number of something else: a size, a factor, a dimension in a code sample.
    assert not holds_asked_number(q, "The Heron tokenizer is smaller by a factor of 12.")
    assert not holds_asked_number(q, 'Tokenizer(model="heron-multi", dim=384)')
    # Any word of what is counted will do: "How many stop words" by "72 words".
    assert holds_asked_number("How many stop words does it ship?", "It ships 72 words.")
    # "How many times" is answered by "once" as well as by "3 times".
    assert holds_asked_number("How many times is the key hashed?", "It is hashed only once.")


def test_a_size_answers_how_big_only_beside_what_it_measures() -> None:
    q = "How big is the penalty heronlog adds for each skipped tide?"
    assert holds_asked_number(q, "The penalty is 0.5 for each skipped tide.")
    # A number about something else, or the measured thing with no number, is no answer;
    # the subject's coined name ("heronlog") is not what is measured.
    assert not holds_asked_number(q, "heronlog reports 5.32 for the harbour.")
    assert not holds_asked_number(q, "There is also a penalty for each skipped tide.")
    assert holds_asked_number("How long can a heronlog key be?", "Keys of up to 64 bytes.")


def test_a_bound_asked_for_is_a_number_or_no_limit_not_a_counting_word() -> None:
    q = "How many tides can one heronlog journal hold at most?"
    assert holds_asked_number(q, "A journal holds up to 4096 tides.")
    assert holds_asked_number(q, "A journal holds an unlimited number of tides.")
    # "all" and "one or more" count, but bound nothing.
    assert not holds_asked_number(q, "One or more tides may be held; all of them are kept.")
    # Without a bound asked for, a counting word is an answer.
    assert holds_asked_number("How many tides does heronlog keep?", "It keeps all tides.")


@pytest.fixture
def heron(tmp_path: Path) -> Iterator[MemoBase]:
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    base.add_document(
        "The Heron scheduler starts workers on demand and stops idle workers after a while. "
        "Heron leases are renewed by the worker that holds them.",
        document_id="heron",
    )
    base.add_document(
        "The Wren scheduler starts 6 workers when it boots.",
        document_id="wren",
    )
    yield base
    base.close()


def test_a_quote_on_the_topic_that_states_no_number_is_refused(heron: MemoBase) -> None:
    engine = GuardedAnswerer(heron, gate=SufficiencyGate(threshold=0.0))
    refused = engine.ask("How many workers does the Heron scheduler start?")
    assert isinstance(refused, Refusal)
    assert "state no number" in refused.reason
    answer = engine.ask("How many workers does the Wren scheduler start?")
    assert isinstance(answer, Answer)
    assert "6 workers" in answer.text
    # Asked without a count, the same passage answers.
    assert isinstance(engine.ask("How does the Heron scheduler start workers?"), Answer)
    # Asked for a date it does not state, the passage on the topic is no answer.
    refused = engine.ask("Until which date are Heron leases renewed by the worker?")
    assert isinstance(refused, Refusal)


def test_a_record_stating_only_its_own_version_is_no_answer_to_a_requirement(
    ungated: Any,
) -> None:
    engine = ungated(
        {
            "wrenlog": "Name: wrenlog\nVersion: 2.4.0\nSummary: Structured logs for small daemons.\n"
            "Requires-Dist: heronkit>=1.2\n",
        }
    )
    refused = engine.ask("Which Python version does wrenlog require?")
    assert isinstance(refused, Refusal)
    assert "state no number" in refused.reason
    answer = engine.ask("Which heronkit version does wrenlog require?")
    assert isinstance(answer, Answer)
    assert "heronkit>=1.2" in answer.text


def test_a_release_named_by_a_plain_number_after_the_things_name_is_a_version() -> None:
    which = "Which Windows releases does wrenlog run on?"
    assert holds_asked_number(which, "Wrenlog runs on Windows 10 and later.")
    assert holds_asked_number(which, "Supported: Windows 2000 and newer.")
    assert holds_asked_number("Which Kiln versions does tidelib support?", "Kiln 7 or 8 only.")
    # A number after another word, or a comparison, or the release the question names.
    assert not holds_asked_number(which, "Wrenlog runs on Windows and on 3 other systems.")
    assert not holds_asked_number(which, "Retry while Windows < 5 handles are open.")
    assert not holds_asked_number(
        "Which Windows versions besides Windows 10 does wrenlog run on?",
        "Wrenlog runs on Windows 10.",
    )
