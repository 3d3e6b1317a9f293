"""Option lists (command-line help, manual-page-like references): one entry, one sentence.

An option list's help seldom ends with a full stop, so without these rules a whole list
read as one sentence, and an option alone on its line read as a title. The texts are
made-up tools of the test's own.
"""

from __future__ import annotations

from memo_core.answer.extractive import (
    ExtractiveConfig,
    PickWeights,
    extractive_answer,
    pick_candidates,
)
from memo_core.answer.sentences import (
    is_section_title,
    is_synopsis,
    option_entry,
    option_spelling,
    split_sentences,
)
from memo_core.answer.windows import is_heading

BREW = """brew -h

usage: brew [-h] [-t DEGREES] [--keep-warm]
            [--cups N] [cup ...]

Heats water for tea.

positional arguments:
  cup                   a cup to fill

options:
  -h, --help            show this help message and exit
  -t DEGREES, --temperature DEGREES
                        stop heating at this temperature (default: 100)
  --keep-warm           hold the water warm for ten minutes after it
                        boils
  --cups N              how many cups to pour; pours one when not given
"""

COLUMNS = """Settings (and the variables they read):
-q     : say nothing while heating; also BREW_QUIET=x
-s     : pour slowly, so the tea
         does not splash
BREW_HOME   : where recipes are read from
BREW_LIMIT: how many litres one run may heat
"""


def _split(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def test_each_entry_of_an_option_list_is_one_sentence_with_its_wrapped_help() -> None:
    sentences = _split(BREW)
    assert "--keep-warm           hold the water warm for ten minutes after it\n" in BREW
    assert (
        "--keep-warm           hold the water warm for ten minutes after it\n"
        "                        boils"
    ) in sentences
    assert (
        "-t DEGREES, --temperature DEGREES\n"
        "                        stop heating at this temperature (default: 100)"
    ) in sentences  # the option alone on its line keeps the help indented under it
    assert "--cups N              how many cups to pour; pours one when not given" in sentences
    assert "-h, --help            show this help message and exit" in sentences
    assert "options:" in sentences and "positional arguments:" in sentences  # titles alone
    assert "Heats water for tea." in sentences


def test_a_usage_synopsis_is_one_sentence_over_its_indented_lines() -> None:
    sentences = _split(BREW)
    assert "usage: brew [-h] [-t DEGREES] [--keep-warm]\n            [--cups N] [cup ...]" in (
        sentences
    )  # "[cup ...]" is a repeat mark, not an ellipsis ending a sentence
    assert "brew -h" in sentences  # the line above it is not glued to it
    glued = "usage: tar [-x] [file ...]\nExtracts files."  # no blank line, as a PDF reads
    assert _split(glued) == ["usage: tar [-x] [file ...]", "Extracts files."]


def test_entries_separated_by_a_colon_column() -> None:
    assert _split(COLUMNS) == [
        "Settings (and the variables they read):",
        "-q     : say nothing while heating; also BREW_QUIET=x",
        "-s     : pour slowly, so the tea\n         does not splash",
        "BREW_HOME   : where recipes are read from",
        "BREW_LIMIT: how many litres one run may heat",
    ]


def test_prose_and_wrapped_help_lines_are_no_entries() -> None:
    assert option_entry("  -t DEGREES, --temperature DEGREES") == "option"
    assert option_entry("  --cups N              how many cups") == "entry"
    assert option_spelling("  --cups N              how many cups") == "--cups N"
    assert option_spelling("BREW_HOME   : where recipes are read from") == "BREW_HOME"
    assert option_entry("                        --cups, --keep-warm and -t below.") is None
    assert option_entry("-1 which uses the default level") is None
    assert option_entry("The kettle boils.  Then it stops.") is None
    assert option_entry("- a bullet item") is None
    wrapped = "Pours the water, see also\n--cups for the count, and stops."
    assert _split(wrapped) == [wrapped]  # an option at the start of a wrapped line


def test_titles_synopses_and_entries() -> None:
    assert is_section_title("options:") and is_section_title("Exit codes:")
    assert not is_section_title("  options:") and not is_section_title("The lid stays shut.")
    assert not is_section_title("These are the settings this program reads from the file:")
    assert is_synopsis("usage: brew [-h] [cup ...]") and is_synopsis("Usage: brew [options]")
    assert is_synopsis("[-n | -t] [--cups N] url")
    assert not is_synopsis("Pours [at most] two cups of tea.")
    # An option and its help alone on a line is a definition, not a title.
    text = "options:\n  --fast  boil faster\n  --quiet  say nothing\n"
    start = text.index("--fast")
    assert not is_heading(text, start, start + len("--fast  boil faster"))


def test_the_entry_of_the_option_asked_about_is_picked_over_one_that_mentions_it() -> None:
    # Another entry's help names the option and the tool too: only the entry defines it.
    passages = [("brew", BREW.replace("after it\n", "after the brew; see --cups for the cups\n"))]
    picked = extractive_answer("What does --cups do in brew?", passages, max_sentences=1)
    _, a, b = picked[0]
    assert passages[0][1][a:b] == (
        "--cups N              how many cups to pour; pours one when not given"
    )
    without = ExtractiveConfig(weights=PickWeights(defines_option=0.0))
    picked = extractive_answer("What does --cups do in brew?", passages, config=without)
    assert passages[0][1][picked[0][1] : picked[0][2]].startswith("--keep-warm ")  # the mention
    picked = extractive_answer("What does brew's --keep-warm do?", passages, max_sentences=1)
    assert passages[0][1][picked[0][1] : picked[0][2]].startswith("--keep-warm ")
    # The synopsis names every option and is never the answer.
    picked = extractive_answer("Which options does brew take?", passages, max_sentences=2)
    assert all(not passages[0][1][a:b].startswith("usage:") for _, a, b in picked)


def test_a_definition_list_written_as_bullets_keeps_each_option_with_its_help() -> None:
    # How a page's <dt>/<dd> pairs come out of the HTML extractor: one bullet each.
    text = (
        "## options\n\n- -t DEGREES\n- stop heating at this temperature\n- --quiet\n- say nothing\n"
    )
    assert _split(text) == [
        "options",
        "-t DEGREES\n- stop heating at this temperature",
        "--quiet\n- say nothing",
    ]
    listed = "- --quiet\n- --cups N\n- --keep-warm\n"  # a list of options, no help between
    assert _split(listed) == ["--quiet", "--cups N", "--keep-warm"]


def test_the_help_of_an_entry_goes_on_about_its_option_past_a_full_stop() -> None:
    text = (
        "options:\n"
        "  -s MINUTES, --steep MINUTES\n"
        "                        steep the tea this long. The bag comes out\n"
        "                        afterwards.\n"
        "  --sugar               add a spoon of sugar. Stir it in.\n"
        "\n"
        "The bag is paper.\n"
    )
    question = "What happens to the bag after --steep?"
    by_text = {c.text: c.features for c in pick_candidates(question, [("t", text)])}
    going_on = by_text["The bag comes out\n                        afterwards."]
    assert going_on["defines_option"] == 1.0 and going_on["block"] > 0  # the entry's option
    assert by_text["The bag is paper."]["defines_option"] == 0.0  # past the blank line
    assert option_entry("  -c <name> [<file> ...], --create <name> [<file> ...], --new <name>") == (
        "option"
    )  # a long spelling alone on its line
    choices = "{" + ",".join(f"FLAG_{n}" for n in range(30)) + "}"
    listing = f"  -o {choices}, --option {choices}\n                        set a flag\n"
    assert _split(listing) == [listing.strip()]  # however long, with its help under it
