"""Sentence spans: abbreviations, decimals, Russian, bullets and headings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memo_core.answer.sentences import is_signature, split_chat_sentences, split_sentences


def _split(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def test_abbreviations_and_decimals_do_not_split() -> None:
    text = "Dr. Smith paid 3.5 million, e.g. in cash. Mr. Jones (i.e. the CFO) agreed! Did he?"
    assert _split(text) == [
        "Dr. Smith paid 3.5 million, e.g. in cash.",
        "Mr. Jones (i.e. the CFO) agreed!",
        "Did he?",
    ]


def test_initials_and_lowercase_continuations() -> None:
    assert _split("J. K. Rowling wrote it. It sold well.") == [
        "J. K. Rowling wrote it.",
        "It sold well.",
    ]
    assert _split("Prices rose approx. ten percent. Then fell.") == [
        "Prices rose approx. ten percent.",
        "Then fell.",
    ]


def test_closing_quotes_stay_with_their_sentence() -> None:
    assert _split('He said "stop." Then he left.') == ['He said "stop."', "Then he left."]


def test_russian() -> None:
    text = "Это т.е. пример, см. рис. 5. Договор подписан в 2021 г. в Москве. Срок — 24 месяца!"
    assert _split(text) == [
        "Это т.е. пример, см. рис. 5.",
        "Договор подписан в 2021 г. в Москве.",
        "Срок — 24 месяца!",
    ]


def test_lines_bullets_and_headings() -> None:
    text = "# Terms\nThe term is 24 months\n- first item\n- second item\n\nNew paragraph. Done"
    assert _split(text) == [
        "Terms",
        "The term is 24 months",
        "first item",
        "second item",
        "New paragraph.",
        "Done",
    ]


def test_a_full_stop_before_a_line_standing_out_to_the_left_ends_the_sentence() -> None:
    text = (
        "  depth\n"
        "    How deep the scan goes, 1-8.\n"
        "  follow\n"
        "    Whether links are followed.\n"
        "Scans stop at mount points, e.g.\n"
        "network shares."
    )
    assert _split(text) == [
        "depth",
        "How deep the scan goes, 1-8.",
        "follow",
        "Whether links are followed.",
        "Scans stop at mount points, e.g.\nnetwork shares.",
    ]


def test_a_wrapped_line_does_not_split() -> None:
    text = "The agreement was signed by the parties after a long negotiation\nthat lasted months."
    assert len(split_sentences(text)) == 1


def test_a_title_line_before_a_numbered_clause_is_its_own_sentence() -> None:
    text = "7. Payment\n7.2 Invoices are payable within 45 days of receipt. Late fees\napply after that."
    assert _split(text)[:2] == [
        "Payment",
        "7.2 Invoices are payable within 45 days of receipt.",
    ]
    prose = "The board met in the spring and voted\n2.5 thousand for the roof repairs."
    assert len(split_sentences(prose)) == 1


def test_a_clause_number_is_no_sentence_of_its_own() -> None:
    # "5." opening a clause, indented or not, is the clause's number: the run-in title
    # and the text after it are the sentences, and the number is never quoted alone.
    for indent in ("", "   "):
        text = f"Terms.\n\n{indent}5. Refunds. A refund is paid within 30 days.\n"
        assert _split(text) == ["Terms.", "Refunds.", "A refund is paid within 30 days."]
    items = "1. Fill the tank.\n2. Start the pump.\n"
    assert _split(items) == ["Fill the tank.", "Start the pump."]
    # A number that ends a sentence is still its end.
    assert _split("The pump holds 5.\nIt runs dry after that.") == [
        "The pump holds 5.",
        "It runs dry after that.",
    ]


def test_empty_and_punctuation_only() -> None:
    assert split_sentences("") == []
    assert split_sentences("  \n ... !! ") == []


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_spans_are_ordered_disjoint_trimmed_and_in_bounds(text: str) -> None:
    spans = split_sentences(text)
    prev_end = 0
    for a, b in spans:
        assert prev_end <= a < b <= len(text)
        assert not text[a].isspace() and not text[b - 1].isspace()
        assert any(c.isalnum() for c in text[a:b])
        prev_end = b


def _chat(text: str) -> list[str]:
    return [text[a:b] for a, b in split_chat_sentences(text)]


def test_chat_sentences_split_before_lower_case_and_at_every_line() -> None:
    assert _chat("i moved to porto. my sister lives there too!\nshe is a nurse") == [
        "i moved to porto.",
        "my sister lives there too!",
        "she is a nurse",
    ]
    assert _chat("i said no. then i left") == ["i said no.", "then i left"]  # not "No. 5"


def test_chat_sentences_keep_titles_and_latin_abbreviations() -> None:
    assert _chat("Dr. Weiss is my GP. I see her e.g. monthly") == [
        "Dr. Weiss is my GP.",
        "I see her e.g. monthly",
    ]
    assert _chat("Живу на ул. Ленина. Работаю рядом.") == ["Живу на ул. Ленина.", "Работаю рядом."]
    assert _chat("") == []
    assert _chat(" \n\n ") == []


def test_a_bar_gutter_is_no_text_and_its_blank_lines_end_sentences() -> None:
    # API references drawn with a left gutter of bars: a line holding only the
    # gutter is a blank line, and a sentence starts after the gutter, not on it.
    text = (
        "    class Kettle(Appliance)\n"
        "     |  A kettle boils water\n"
        "     |  \n"
        "     |  Method resolution order:\n"
        "     |      Kettle\n"
        "     |  \n"
        "     |  boil(self, minutes=3)\n"
        "     |      Heat the water until it boils."
    )
    assert _split(text) == [
        "class Kettle(Appliance)",
        "A kettle boils water",
        "Method resolution order:\n     |      Kettle",
        "boil(self, minutes=3)",
        "Heat the water until it boils.",
    ]


def test_a_signature_alone_on_its_line_is_its_own_sentence() -> None:
    text = "rotate(angle, /)\nTurn the image by angle degrees.\nS.pop() -> item -- the last item"
    assert _split(text) == [
        "rotate(angle, /)",
        "Turn the image by angle degrees.",
        "S.pop() -> item -- the last item",
    ]
    assert is_signature("     |  open(name, mode='r') from builtins.type")
    assert is_signature("class Kettle(Appliance)") and is_signature("total(self) -> int")
    assert is_signature("boil = boil_fast(kettle, litres=1)")  # an alias, as pydoc shows it
    assert not is_signature("The kettle = boil(water) here.")
    assert not is_signature("S.pop() -> item -- the last item")  # it goes on to say something
    assert not is_signature("Call rotate(angle) first.")


def test_a_decimal_split_by_a_tokenizer_stays_one_sentence() -> None:
    text = "The lighthouse stands at 28. 5 degrees east. Its lamp is 3. 2 metres tall."
    assert _split(text) == [
        "The lighthouse stands at 28. 5 degrees east.",
        "Its lamp is 3. 2 metres tall.",
    ]


def test_a_rule_line_ends_a_sentence() -> None:
    text = "Timers run in the background\n----------\nQueues are drained on exit."
    assert _split(text) == ["Timers run in the background", "Queues are drained on exit."]


def test_a_text_is_split_once_and_each_caller_gets_its_own_list() -> None:
    from memo_core.answer.sentences import _spans

    text = "The kettle boils in four minutes. The lid stays shut until it clicks."
    first = split_sentences(text)
    hits = _spans.cache_info().hits
    first.append((0, 1))  # a caller's list is its own
    again = split_sentences(text)
    assert _spans.cache_info().hits == hits + 1
    assert again == [(0, 33), (34, 69)]


def test_a_markdown_hard_break_ending_a_sentence_is_not_quoted() -> None:
    # A backslash at a line's end breaks the line in Markdown: no part of the sentence.
    text = "Name: quaywatch\\\nVersion: 0.9.2\\\n\nThe gauges are read hourly\\\n# Schedule\n"
    said = [text[a:b] for a, b in split_sentences(text)]
    assert said == ["Name: quaywatch\\\nVersion: 0.9.2", "The gauges are read hourly", "Schedule"]
    # A backslash inside a line is the text's own.
    path = "Logs go to C:\\quay\\logs by default."
    assert [path[a:b] for a, b in split_sentences(path)] == [path]
