"""Evidence windows, headings and the answerability gate's features."""

from __future__ import annotations

from pathlib import Path

from memo_core.answer.extractive import extractive_answer
from memo_core.answer.gate import FEATURES, GateCalibration, SufficiencyGate, gate_features
from memo_core.answer.gate import _DocumentFrequencies as Frequencies
from memo_core.answer.lemmas import term_of
from memo_core.answer.sentences import is_section_title
from memo_core.answer.windows import (
    answer_form,
    answer_slot,
    answer_type_match,
    best_window,
    implied_terms,
    is_heading,
    rank_windows,
    states_asked_default,
)
from memo_core.embedders import HashEmbedder
from memo_core.kb import MemoBase
from memo_core.types import Hit

DOC = (
    "# Renewal fees\n"
    "Renewal fees and deadlines\n"
    "The renewal fee is 40 euros per year. It is paid before the first of March.\n"
    "Late payers lose the discount."
)


def _spans(text: str) -> list[str]:
    from memo_core.answer.sentences import split_sentences

    return [text[a:b] for a, b in split_sentences(text) if is_heading(text, a, b)]


def test_headings_are_told_apart_from_sentences() -> None:
    assert _spans(DOC) == ["Renewal fees", "Renewal fees and deadlines"]


def test_an_underlined_title_is_a_heading_whatever_it_ends_with() -> None:
    # Setext or reStructuredText: the underline makes it a title, also when it ends in a
    # closing parenthesis as a changelog's release titles do.
    text = (
        "Changes\n=======\n\n"
        "2.1.0 (2026-03-02)\n------------------\n"
        "- Fix the lid sensor reading on cold starts.\n\n"
        "2.0.0 (2025-11-20)\n------------------\n"
        "- Drop the serial driver.\n"
    )
    assert _spans(text) == ["Changes", "2.1.0 (2026-03-02)", "2.0.0 (2025-11-20)"]
    picked = extractive_answer("What did release 2.1.0 fix?", [("c", text)])
    texts = [text[a:b] for _, a, b in picked]
    assert texts and texts[0] == "Fix the lid sensor reading on cold starts."
    # Asked which release it is, its underlined title is a window.
    release = Hit("r", "changes", text, 1.0)
    idf = {"serial": 1.0, "driver": 1.0, "drop": 1.0}
    windows = rank_windows("Which release dropped the serial driver?", [release], idf)
    assert "2.0.0 (2025-11-20)" in {w.sentence for w in windows}
    # Asked when a release came out, its title holds the date.
    picked = extractive_answer("When did release 2.0.0 come out?", [("c", text)])
    assert "2.0.0 (2025-11-20)" in [text[a:b] for _, a, b in picked]


def test_a_numbered_section_title_is_a_heading() -> None:
    text = "3. Delivery\n3.1 Goods ship within ten working days of the order date."
    assert _spans(text) == ["Delivery"]
    picked = extractive_answer("When do goods ship after an order?", [("c", text)])
    texts = [text[a:b] for _, a, b in picked]
    assert texts and "Delivery" not in texts and texts[0].startswith("3.1 Goods ship")


def test_a_bulleted_line_is_an_item_of_a_list_not_a_title() -> None:
    text = (
        "Strict mode\n"
        "Strict mode makes the loader check more:\n"
        "* Reject unsigned plugins\n"
        "* Refuse symbolic links inside the cache\n"
        "- Log every skipped file\n"
    )
    assert _spans(text) == ["Strict mode"]
    picked = extractive_answer("Does strict mode refuse symbolic links?", [("c", text)])
    texts = [text[a:b] for _, a, b in picked]
    assert texts and texts[0] == "Refuse symbolic links inside the cache"


def test_an_entry_of_a_table_of_contents_is_a_heading() -> None:
    # A line that is only a link to a section of the page names that section; a link
    # inside a sentence is part of what the sentence says.
    text = (
        "## Contents\n"
        "- [Watering schedules](#watering-schedules)\n"
        "* [Frost alarms](#frost-alarms)\n"
        "1. [Pot sizes](#pot-sizes)\n"
        "\n"
        "## Watering schedules\n"
        "See [frost alarms](#frost-alarms) before watering in winter.\n"
    )
    assert _spans(text) == [
        "Contents",
        "[Watering schedules](#watering-schedules)",
        "[Frost alarms](#frost-alarms)",
        "[Pot sizes](#pot-sizes)",
        "Watering schedules",
    ]
    picked = extractive_answer("Which alarms matter for watering in winter?", [("c", text)])
    texts = [text[a:b] for _, a, b in picked]
    assert texts and texts[0].startswith("See [frost alarms]")


def test_what_a_help_text_says_under_its_usage_is_the_programs_description() -> None:
    text = (
        "usage: python -m wrentool [-h] [-m] [-q]\n"
        "                         [journal ...]\n"
        "\n"
        "merge the journals of two wren daemons\n"
        "\n"
        "options:\n"
        "  -h, --help   show this help message and exit\n"
        "  -m, --move   move the merged journals instead of copying them\n"
        "  -q, --quiet  print nothing but errors\n"
    )
    assert "merge the journals of two wren daemons" not in _spans(text)
    # The "-m" that runs the module is no option of it: the description answers.
    picked = extractive_answer("What does python -m wrentool do?", [("c", text)])
    texts = [text[a:b] for _, a, b in picked]
    assert texts and texts[0] == "merge the journals of two wren daemons"


def test_a_heading_is_never_the_extractive_answer() -> None:
    picked = extractive_answer("What are the renewal fees and deadlines?", [("c", DOC)])
    texts = [DOC[a:b] for _, a, b in picked]
    assert texts and all(t != "Renewal fees and deadlines" for t in texts)
    assert "Renewal fees" not in texts


def test_the_best_window_is_a_sentence_with_its_neighbours() -> None:
    hit = Hit("c", "d", DOC, 1.0)
    idf = {term_of("paid", "english"): 2.0, "fee": 1.0}  # the gate's terms (answer/lemmas.py)
    window, score = best_window("When is the renewal fee paid?", [hit], idf)
    assert "paid before the first of March" in window and score == 3.0
    assert not window.startswith("#")


def test_answer_type_match() -> None:
    assert answer_type_match("When is the fee paid?", "paid before the first of March") == 1.0
    assert answer_type_match("When is the fee paid?", "paid by the tenant") == 0.0
    assert answer_type_match("How many rooms are there?", "there are 4 rooms") == 1.0
    assert answer_type_match("How many rooms are there?", "the rooms are large") == 0.0
    assert answer_type_match("Who signed it?", "it was signed by Alice Moreau") == 1.0
    assert answer_type_match("Who signed it?", "it was signed yesterday") == 0.0
    assert answer_type_match("Why is it late?", "no reason") == 1.0


def test_a_question_asking_which_version_is_answered_by_a_version_number() -> None:
    asked = "Which kiln firmware version added the cooling alarm?"
    assert answer_type_match(asked, "The cooling alarm came with firmware 2.4.") == 1.0
    assert answer_type_match(asked, "The cooling alarm beeps when the kiln cools.") == 0.0
    assert answer_type_match("Since which release is the lid sensor read?", "Since 1.9.") == 1.0
    assert answer_type_match("В какой версии появился датчик?", "Датчик читается всегда.") == 0.0
    # The version the question names is no answer to it.
    assert answer_slot("Which release after 3.1 dropped the alarm?", "Release 3.1 kept it.") == -1.0
    assert answer_slot("Which release after 3.1 dropped the alarm?", "Release 3.4 did.") == 1.0


def test_a_question_about_a_default_needs_a_passage_that_states_one() -> None:
    asked = "What is the default glaze temperature of the kiln?"
    assert states_asked_default(asked, "The glaze temperature defaults to 1040 degrees.")
    assert states_asked_default(asked, "fire(glaze, temperature=1040)")
    assert not states_asked_default(asked, "The glaze temperature is set on the front panel.")
    assert not states_asked_default("Which log does the kiln write to by default?", "It logs.")
    # A value in an example is no default: an option on a command line, or an argument
    # after a literal one in a call.
    assert not states_asked_default(asked, "To fire hotter, run: kiln --glaze-temperature=1100")
    assert not states_asked_default(asked, 'kiln.fire("vase", temperature=1100)')
    assert states_asked_default(asked, "Kiln(glaze, temperature=1040, hold=20)")
    assert not states_asked_default(asked, ">>> kiln.fire(temperature=1100, hold=20)")
    assert not states_asked_default(asked, "...     kiln.fire(temperature=1100)")
    # A name that holds the word asks for no default; nor does any other question.
    assert states_asked_default("What does default_glaze hold?", "The glaze in use.")
    assert states_asked_default("What is the glaze temperature?", "It is set on the panel.")


def test_answer_form_reads_a_stance_for_yes_no_and_a_reason_for_why() -> None:
    polar = "Can the kiln be opened while it is firing?"
    assert answer_form(polar, "The kiln must stay shut until it cools.") == 1.0
    assert answer_form(polar, "It cannot be opened then.") == 1.0
    assert answer_form(polar, "The door isn't locked.") == 1.0
    assert answer_form(polar, "The kiln fires at 1200 degrees.") == 0.0
    why = "Why is the glaze applied twice?"
    assert answer_form(why, "A second coat is needed because the first one soaks in.") == 1.0
    assert answer_form(why, "This is to avoid bare patches.") == 1.0
    assert answer_form(why, "The glaze is applied with a brush.") == 0.0
    # A help text says what a thing is for: that is the reason a "why" asks for.
    option = "Why would I pass --keep-ash to the kiln?"
    assert answer_form(option, "Useful if you want to weigh the ash afterwards.") == 1.0
    assert answer_form(option, "This helps avoid dust in the vents.") == 1.0
    assert answer_form(option, "The flag is meant for test firings.") == 1.0
    assert answer_form(option, "Keep the ash in the tray.") == 0.0
    assert answer_form("Можно ли открыть печь?", "Печь нельзя открывать горячей.") == 1.0
    assert answer_form("Почему глазурь трескается?", "Она трескается, потому что остывает.") == 1.0
    # Any other question neither gains nor loses.
    assert answer_form("What is the kiln made of?", "It must not be made of steel.") == 0.0


def test_answer_slot_needs_a_typed_thing_the_question_does_not_name() -> None:
    question = "When did Alice Moreau sign the harbour lease?"
    assert answer_slot(question, "Alice Moreau signed the harbour lease on 3 May 1998.") == 1.0
    # The same type, but only what the question already says: no answer in it.
    assert answer_slot(question, "Alice Moreau signed the harbour lease.") == -1.0
    assert answer_slot("Who signed the harbour lease?", "Alice Moreau signed it.") == 1.0
    assert answer_slot("Who did Alice Moreau sign with?", "Alice Moreau signed it.") == -1.0
    assert (
        answer_slot("How many cranes does the harbour have in 1998?", "In 1998 it had 12.") == 1.0
    )
    assert (
        answer_slot("How many cranes does the harbour have in 1998?", "In 1998 it had cranes.")
        == -1.0
    )
    # A question of no checked type neither gains nor loses.
    assert answer_slot("Why was the lease signed?", "It was signed to keep the pier.") == 0.0


def test_the_gate_reads_term_order_and_the_answer_slot_of_the_best_sentence(
    tmp_path: Path,
) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=None)
    try:
        base.add_texts(
            [
                "The night ferry leaves the north pier at 9 pm.",
                "Pier north of the ferry night market, leaves of fern are sold.",
                *(f"Unrelated note {i} on tides and ferns." for i in range(8)),
            ]
        )
        freqs = Frequencies(base.store)

        def features(question: str, text: str) -> dict[str, object]:
            hits = [h for h in base.search(question, k=10) if h.text == text]
            return gate_features(question, hits, freqs)

        asked = "When does the night ferry leave the north pier?"
        in_order = features(asked, "The night ferry leaves the north pier at 9 pm.")
        mixed = features(asked, "Pier north of the ferry night market, leaves of fern are sold.")
        assert in_order["term_order"] == 1.0 and mixed["term_order"] < 0.5
        assert in_order["answer_slot"] == 1.0 and mixed["answer_slot"] == -1.0
    finally:
        base.close()


def test_a_question_naming_what_the_base_lacks_scores_lower(tmp_path: Path) -> None:
    base = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    base.add_texts(
        ["Version 3.12 of the parser added a strict mode for dates.", *DOC.split("\n")]
        + [f"Unrelated note {i} on tides and ferns." for i in range(10)]
    )
    try:
        freqs = Frequencies(base.store)
        asked = "What did version 3.12 of the parser add?"
        absent = "What did version 3.14 of the parser add?"
        present = gate_features(asked, base.search(asked, k=3), freqs)
        missing = gate_features(absent, base.search(absent, k=3), freqs)
        assert present["hard_missing"] == 0.0 and missing["hard_missing"] == 1.0
        calibration = GateCalibration(
            "test", {name: 1.0 for name in FEATURES} | {"hard_missing": -4.0}, 0.0, 0.5
        )
        gate = SufficiencyGate(calibration)
        assert (
            gate.decide(asked, base.search(asked, k=3), base.store).score
            > gate.decide(absent, base.search(absent, k=3), base.store).score
        )
    finally:
        base.close()


def test_diversify_caps_hits_per_document_and_keeps_order() -> None:
    from memo_core.answer.windows import diversify

    hits = [Hit(f"c{i}", doc, "t", 1.0) for i, doc in enumerate("aaabab")]
    assert [h.chunk_id for h in diversify(hits, 4)] == ["c0", "c1", "c3", "c5"]
    # With too few other documents, held-back hits fill the rest, in order.
    assert [h.chunk_id for h in diversify(hits[:3], 3)] == ["c0", "c1", "c2"]
    # A document the question names is read as far as it ranks.
    assert [h.chunk_id for h in diversify(hits, 4, uncapped={"a"})] == ["c0", "c1", "c2", "c3"]


def test_a_question_names_a_document_by_its_file_name_or_whole_title() -> None:
    from memo_core.answer.windows import named_documents

    hits = [
        Hit("c1", "wren", "t", 1.0, source="/docs/txt/wrenlog.txt", title="wrenlog 2.1: logs"),
        Hit("c2", "tide", "t", 1.0, source="https://example.org/tidelib.html", title="tidelib"),
        Hit("c3", "kiln", "t", 1.0, title="Kiln guide"),
        Hit("c4", "bare", "t", 1.0),
    ]
    assert named_documents("Which levels does WrenLog write?", hits) == {"wren"}
    assert named_documents("What does tidelib.open return?", hits) == {"tide"}
    assert named_documents("How long does the kiln guide say to wait?", hits) == {"kiln"}
    # part of a longer name, a dotted path's tail, or a word inside another is no name
    assert named_documents("Is wrenlog-extra maintained?", hits) == set()
    assert named_documents("What does os.tidelib do?", hits) == set()
    assert named_documents("How do kilns cool?", hits) == set()


def test_context_has_its_own_looser_floor_than_an_answer() -> None:
    from memo_core.answer.gate import load_calibrations

    for calibration in load_calibrations().values():
        assert calibration.context is not None
        assert set(calibration.weights) <= set(FEATURES)


def test_a_description_without_a_full_stop_under_a_signature_is_no_heading() -> None:
    # Short unpunctuated lines are titles, except a call's description whose author
    # left out the full stop: right under a signature, or right above a heading.
    text = "## Wheel.spin\n\nspin(self)\n\nRotate the wheel once\n\n## Wheel.stop\n\nstop(self)"
    assert _spans(text) == ["Wheel.spin", "Wheel.stop"]
    above = "Turning\nRotate the wheel once\n## Wheel.stop"
    assert _spans(above) == ["Turning", "Wheel.stop"]
    picked = extractive_answer("What does spin do to the wheel?", [("w", text)])
    # The description is quoted with the signature it describes.
    assert picked and text[picked[0][1] : picked[0][2]] == "spin(self)\n\nRotate the wheel once"


def test_a_document_s_title_is_what_each_of_its_windows_is_about() -> None:
    # A page about one thing seldom repeats its name: "sell" is answered in the kiln
    # club's rules, titled so, not in the note that names the club in passing.
    rules = Hit("r", "rules", "Members may sell the pots they fire.", 1.0, title="Kiln club rules")
    note = Hit("n", "note", "The kiln was fired twice. Pots sell well in spring.", 1.0, title="Log")
    idf = {"kiln": 2.0, "club": 1.0, "sell": 1.0}
    windows = rank_windows("Can members of the kiln club sell pots?", [note, rules], idf)
    assert windows[0].chunk_id == "r" and windows[0].weight == 4.0


def test_a_window_stops_at_the_heading_below_its_sentence() -> None:
    # The title under a sentence names the next section: "The settings file." is not
    # about an exit status for having EXIT STATUS below it.
    text = (
        "FILES\n       /etc/fern.conf\n              The settings file.\n\n"
        "EXIT STATUS\n       0      Done.\n"
    )
    page = Hit("p", "page", text, 1.0)
    idf = {term_of(w, "english"): 1.0 for w in ("exit", "status", "settings", "file")}
    windows = rank_windows("Which exit status means the settings file is bad?", [page], idf)
    entry = next(w for w in windows if "The settings file." in w.sentence)
    assert "EXIT STATUS" not in entry.text and entry.weight == 2.0
    # The heading above a sentence still reads with it.
    done = next(w for w in windows if "Done." in w.sentence)
    assert done.text.startswith("EXIT STATUS") and done.weight == 2.0


def test_asked_which_version_a_text_is_its_title_is_a_window() -> None:
    text = "THE FERN TERMS, VERSION 4\n\nYou may copy the Work.\n"
    terms = Hit("t", "terms", text, 1.0)
    idf = {"fern": 1.0, "term": 1.0, "version": 1.0}
    own = rank_windows("Which version of the Fern terms is this?", [terms], idf)
    assert own[0].sentence == "THE FERN TERMS, VERSION 4"
    # The version of something else (what the text needs) is not the title's.
    other = rank_windows("Which Python version do the Fern terms need?", [terms], idf)
    assert all(w.sentence != "THE FERN TERMS, VERSION 4" for w in other)


def test_counts_as_asks_for_a_definition() -> None:
    base = MemoBase(":memory:", embedder=None)
    base.add_document('"Member" means anyone who has paid the fee.', document_id="rules")
    question = "Who counts as a member?"
    features = gate_features(question, base.search(question, k=3), Frequencies(base.store))
    assert features["terms"] == ["member"] and features["unseen_terms"] == 0.0
    base.close()


README = """# fernctl

## Setup

To set fernctl up, run:

```
pip install fernctl
```

It needs a mister attached over USB.

## Use

Water every pot on the shelf:

    fernctl water --shelf 2
"""


def test_what_a_colon_introduces_is_no_title_and_is_quoted_with_it() -> None:
    # A command under "..., run:" (in a code fence or indented) is what the line
    # introduces; the Markdown headings stay titles.
    assert _spans(README) == ["fernctl", "Setup", "Use"]
    assert not is_section_title("To set fernctl up, run:")  # a sentence, not a title
    for question, command in (
        ("How do I set fernctl up?", "pip install fernctl"),
        ("How do I water every pot on the shelf?", "fernctl water --shelf 2"),
    ):
        [(_, a, b)] = extractive_answer(question, [("r", README)], max_sentences=1)
        assert README[a:b].rstrip(":").endswith(command), README[a:b]
        assert README[a:b].split("\n", 1)[0].endswith(":")  # the line that introduces it


def test_a_bound_is_read_as_the_least_or_the_most_accepted() -> None:
    # ">=3.9", "1.4 or newer" and "3.8+" state the least accepted, "<2" the most: what
    # a question asks by "minimum" or "maximum", words such texts seldom use.
    for text in ("Requires-Runtime: >=3.9", "Works with Tidal 1.4 or newer.", "needs 3.8+"):
        assert term_of("minimum", "english") in implied_terms(text, "english"), text
    for text in ("Requires-Lib: quaycore<2", "Needs chartlib <= 4.1."):
        assert term_of("maximum", "english") in implied_terms(text, "english"), text
    for text in ("a -> 2", "C++ 17", "A tide of 3.9 metres.", "x >= y"):
        implied = implied_terms(text, "english")
        assert term_of("minimum", "english") not in implied, text
        assert term_of("maximum", "english") not in implied, text
    text = "Tidal 2.0 added live streaming. Harbourview works with Tidal 1.4 or newer."
    picked = extractive_answer("What is the minimum Tidal version?", [("c", text)], max_sentences=1)
    assert text[picked[0][1] : picked[0][2]] == "Harbourview works with Tidal 1.4 or newer."


def test_the_engine_reads_more_of_a_document_the_question_names(tmp_path: Path) -> None:
    from memo_core.answer.engine import GuardedAnswerer
    from memo_core.embedders import HashEmbedder
    from memo_core.kb import MemoBase
    from memo_core.kb.records import ChunkInput

    parts = [
        "The wrenlog daemon rotates its lamp oil ledger every night.",
        "Wrenlog keeps seven rotated ledgers of lamp oil before deleting one.",
        "A wrenlog ledger of lamp oil is compressed once it is rotated.",
    ]
    text = "\n\n".join(parts)
    chunks, at = [], 0
    for part in parts:
        chunks.append(ChunkInput(part, at, at + len(part)))
        at += len(part) + 2
    kb = MemoBase(tmp_path / "kb.db", embedder=HashEmbedder(64))
    try:
        kb.add_document(text, document_id="wren", chunks=chunks, source="/docs/wrenlog.txt")
        kb.add_texts(["The quay shop sells lamp oil ledgers by the dozen."], ids=["shop"])
        engine = GuardedAnswerer(kb, k=3)

        def wren_chunks(question: str) -> int:
            return sum(h.document_id == "wren" for h in engine.retrieve(question))

        assert wren_chunks("How many lamp oil ledgers are rotated?") == 2  # capped
        assert wren_chunks("How many lamp oil ledgers does wrenlog rotate?") == 3
    finally:
        kb.close()
