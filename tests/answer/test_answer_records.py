"""Records of "Name: value" fields (mail headers, package metadata, Debian's control and
copyright files): a field is never a title, so it can be the answer and the gate's
evidence.

A field's value seldom ends with a full stop, so a short field read as a title: context
for its neighbours, never quoted. The records are made up for these tests.
"""

from __future__ import annotations

from memo_core.answer.extractive import extractive_answer, pick_candidates
from memo_core.answer.sentences import is_record_field, record_around, split_sentences
from memo_core.answer.windows import is_heading, rank_windows
from memo_core.types import Hit

MANIFEST = """Format: ledger-manifest 2
Project-Name: saltmarsh
Maintainer: Ines Valdivia <ines@saltmarsh.example>

Files: *
Copyright: 2016-2022 Ines Valdivia
           2023 Koji Arakawa
Terms: Marsh-Open

Files: third_party/tidewatch/*
Copyright: 2012 Percival Osei
Terms: Tide-Simple
Comment: Copied from the tidewatch 1.4 tarball without changes.
"""

PROSE = """Chapter 3: The Return

The ferry left at dawn. Nobody on the pier spoke.
Note: the timetable changed in spring, so the ferry now leaves an hour later.
"""


def _split(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def _line(text: str, line: str) -> int:
    return text.index(line)


def test_no_field_of_a_record_is_a_title_and_a_value_keeps_its_continuation() -> None:
    sentences = _split(MANIFEST)
    for a, b in split_sentences(MANIFEST):
        assert not is_heading(MANIFEST, a, b), MANIFEST[a:b]
    # A value continued on an indented line stays with its field; a path ending in "*"
    # reads on into the field under it, which states what holds for that path.
    assert "Copyright: 2016-2022 Ines Valdivia\n           2023 Koji Arakawa" in "\n".join(
        sentences
    )
    assert "Files: third_party/tidewatch/*\nCopyright: 2012 Percival Osei" in sentences
    assert "Maintainer: Ines Valdivia <ines@saltmarsh.example>" in sentences


def test_a_field_is_no_title_but_a_lone_colon_line_stays_what_it_was() -> None:
    for line in ("Maintainer: Ines Valdivia <ines@saltmarsh.example>", "Terms: Tide-Simple"):
        start = _line(MANIFEST, line)
        assert is_record_field(MANIFEST, start)
        assert not is_heading(MANIFEST, start, start + len(line))
    # One "Name: value" line with no other field beside it is a title or prose.
    assert not is_record_field(PROSE, 0)
    assert is_heading(PROSE, 0, len("Chapter 3: The Return"))
    note = _line(PROSE, "Note:")
    assert not is_record_field(PROSE, note)
    assert "The ferry left at dawn." in _split(PROSE)
    # A usage synopsis and a section title are no fields.
    helptext = "usage: brew [-h]\noptions: none\n"
    assert not is_record_field(helptext, 0)


def test_the_field_that_states_the_value_asked_for_is_the_answer() -> None:
    passages = [("manifest", MANIFEST)]
    picked = extractive_answer("Who maintains saltmarsh?", passages, max_sentences=1)
    _, a, b = picked[0]
    assert MANIFEST[a:b] == "Maintainer: Ines Valdivia <ines@saltmarsh.example>"
    picked = extractive_answer("Who holds the copyright of tidewatch?", passages, max_sentences=1)
    assert "Copyright: 2012 Percival Osei" in MANIFEST[picked[0][1] : picked[0][2]]


def test_the_gate_reads_a_field_with_its_whole_record() -> None:
    # The subject is named once ("Project-Name: saltmarsh"), four lines above the field
    # that answers: a window of the field and its neighbours alone would not hold it.
    start, end = record_around(MANIFEST, MANIFEST.index("Maintainer:")) or (0, 0)
    assert MANIFEST[start:end].startswith("Format: ledger-manifest 2")
    assert MANIFEST[start:end].endswith("<ines@saltmarsh.example>")
    assert record_around(MANIFEST, MANIFEST.index("Files: *")) != (start, end)  # next stanza
    assert record_around(PROSE, PROSE.index("Nobody")) is None
    record = (
        "Package: heronlog\nPriority: optional\nSection: utils\nInstalled-Size: 120\n"
        "Maintainer: Pia Lund <pia@example.org>\nArchitecture: all\nVersion: 2.3-1\n"
    )
    hit = Hit(chunk_id="c", document_id="d", text=record, score=1.0)
    windows = rank_windows("Who maintains heronlog?", [hit], {"heronlog": 3.0, "maintain": 1.0})
    field = next(w for w in windows if w.sentence.startswith("Maintainer: Pia Lund"))
    assert field.weight == 4.0 and "Package: heronlog" in field.text


STANZAS = """Files: lib/*
Copyright: 2019 Odette Brun
License: Reed-Plain

License: Reed-Plain
 Anyone may copy, print and give away this work, as long as the name of the
 author stays on every copy.
 .
 No promise is made that the work is fit for any use.
Comment: Odette Brun set these terms down for her own recipe books.
"""

#: A field after a field: its value is stated, whatever its length.
LISTED = """License: Reed-Plain-Short
Comment: the terms below are kept as the authors wrote them when they first shared it.
"""


def test_a_field_naming_the_prose_indented_under_it_titles_that_prose() -> None:
    # A licence's short name over its text, as a Debian copyright file writes it: the
    # text is the answer, its name context, as a heading's. With a comment beside it,
    # the name is a field of a record, and still titles the text.
    named = STANZAS.index("License: Reed-Plain\n Anyone")
    assert is_record_field(STANZAS, named)
    assert is_heading(STANZAS, named, named + len("License: Reed-Plain"))
    # The text's first sentence is the text itself, no introduction under a heading.
    licence = STANZAS[named:]
    picked = extractive_answer(
        "What does the Reed-Plain licence ask of those who copy the work?",
        [("copyright", licence)],
        max_sentences=1,
    )
    assert licence[picked[0][1] : picked[0][2]].startswith("Anyone may copy")
    # The same field among others, with no prose under it, states the value of its
    # stanza; so do a field whose next line is another field, and a value that goes on
    # as a list.
    stated = STANZAS.index("License: Reed-Plain\n\n")
    assert not is_heading(STANZAS, stated, stated + len("License: Reed-Plain"))
    assert not is_heading(LISTED, 0, len("License: Reed-Plain-Short"))
    first = MANIFEST.index("Copyright: 2016-2022")
    assert not is_heading(MANIFEST, first, first + len("Copyright: 2016-2022 Ines Valdivia"))


#: A stanza whose licence field carries a note indented under it.
NOTED = """Files: *
Copyright: 2020 Odette Brun
License: Reed-Plain

Files: tools/weigh.c
Copyright: 2004 Lamine Sarr
License: public-domain
 Lamine Sarr gave this file away and keeps no rights to it.
"""


def test_a_field_after_other_fields_of_its_record_states_its_value_over_a_note() -> None:
    # "License: public-domain" over a note, after the stanza's other fields, says which
    # terms hold for tools/weigh.c: it is the answer, not a title of the note.
    field = NOTED.index("License: public-domain")
    assert not is_heading(NOTED, field, field + len("License: public-domain"))
    picked = extractive_answer(
        "What license applies to tools/weigh.c?", [("copyright", NOTED)], max_sentences=2
    )
    quoted = [NOTED[a:b] for _, a, b in picked]
    assert "License: public-domain" in quoted
    # Opening its own paragraph, the same line titles the licence's text (above).
    named = STANZAS.index("License: Reed-Plain\n Anyone")
    assert is_heading(STANZAS, named, named + len("License: Reed-Plain"))


METADATA = """Metadata-Version: 2.1
Name: heronlog
Version: 2.3.1
Summary: Keep a log of heron sightings by the river
Author: Pia Lund
Maintainer: Oskar Berg
License: Reed-Plain
Requires-Python: >=3.9
"""


def test_the_field_named_by_the_question_answers_and_the_subject_s_field_is_context() -> None:
    # "Name: heronlog" holds the question's rarest term, but only says what the record is
    # about: the field whose name the question asks for states the answer, read with its
    # whole record.
    passages = [("metadata", METADATA)]
    for question, field in (
        ("Who is the author of heronlog?", "Author: Pia Lund"),
        ("Who maintains heronlog?", "Maintainer: Oskar Berg"),
        ("Which Python does heronlog require?", "Requires-Python: >=3.9"),
    ):
        picked = extractive_answer(question, passages, max_sentences=1)
        quoted = METADATA[picked[0][1] : picked[0][2]]
        # A long field runs on into the next one's sentence; the name is never quoted.
        assert field in quoted and "Name:" not in quoted, question
    # The picker reads a field with its record (the subject is in "Name:") and knows the
    # field the question names.
    candidates = pick_candidates("Who is the author of heronlog?", passages)
    author = next(c for c in candidates if "Author: Pia Lund" in c.text)
    assert author.features["asked_field"] == 1.0
    assert author.features["with_context"] == 1.0 > author.features["coverage"]
    named = next(c for c in candidates if c.text == "Name: heronlog")
    assert named.features["asked_field"] == 0.0


def test_a_short_field_over_indented_prose_ends_its_sentence() -> None:
    text = (
        "License: GPL-3+\n This program is free software: you may share it under the terms"
        " of the\n licence.\n"
    )
    assert _split(text)[:2] == [
        "License: GPL-3+",
        "This program is free software: you may share it under the terms of the\n licence.",
    ]
    listed = "Copyright: 2016 Ines Valdivia\n           2023 Koji Arakawa\nLicense: Expat\n"
    assert _split(listed)[0] == "Copyright: 2016 Ines Valdivia\n           2023 Koji Arakawa"
