"""Manual pages as ``man`` prints them: capital section titles, a running header, the
one-line description under NAME, a synopsis, and lists whose terms are options, paths or
exit codes. The page is a made-up tool of the test's own.
"""

from __future__ import annotations

from dataclasses import replace

from memo_core.answer.extractive import (
    ExtractiveConfig,
    PickWeights,
    _defined_subject,
    _opens_with,
    extractive_answer,
    pick_candidates,
)
from memo_core.answer.sentences import is_section_title, option_entry, split_sentences
from memo_core.answer.windows import is_heading

PAGE = """KILNCTL(8)                 System Manager's Manual                KILNCTL(8)

NAME
       kilnctl - fire a pottery kiln on a schedule

SYNOPSIS
       kilnctl [OPTION]... PROGRAM

DESCRIPTION
       kilnctl ramps the kiln through the steps of PROGRAM and logs each
       temperature it reaches.

       -c, --cone=NUMBER
              stop when the pyrometric cone NUMBER bends (default 6)

EXIT STATUS
       0      the firing finished

       3      the thermocouple stopped answering

ENVIRONMENT
       KILNCTL_PROGRAMS
              the folder read for firing programs instead of /etc/kilnctl

FILES
       /etc/kilnctl/programs
              one firing program a line

kilnctl 2.1                        March 2026                   KILNCTL(8)
"""


def _split(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


def _heading(sentence: str) -> bool:
    start = PAGE.index(sentence)
    return is_heading(PAGE, start, start + len(sentence))


def test_capital_section_titles_stand_alone_and_title_their_section() -> None:
    sentences = _split(PAGE)
    for title in ("NAME", "SYNOPSIS", "DESCRIPTION", "EXIT STATUS", "FILES"):
        assert title in sentences and is_section_title(title) and _heading(title)
    assert not is_section_title("The kiln cools overnight")  # not in capitals
    assert not is_section_title("DO NOT OPEN THE LID WHILE FIRING")  # a warning, not a title
    # The one-line description under NAME has no full stop and is no title.
    assert "kilnctl - fire a pottery kiln on a schedule" in sentences
    assert not _heading("kilnctl - fire a pottery kiln on a schedule")


def test_exit_codes_are_entries_of_their_list() -> None:
    sentences = _split(PAGE)
    assert "3      the thermocouple stopped answering" in sentences
    assert option_entry("       3      the thermocouple stopped answering") == "entry"
    assert not _heading("3      the thermocouple stopped answering")
    assert option_entry("       3 cones bend before the kiln stops") is None  # prose


def test_the_running_header_and_the_synopsis_are_never_the_answer() -> None:
    assert _heading("KILNCTL(8)                 System Manager's Manual                KILNCTL(8)")
    # "[OPTION]..." is a repeat mark, not an ellipsis ending a sentence.
    assert "kilnctl [OPTION]... PROGRAM" in _split(PAGE)
    passages = [("page", PAGE)]
    for question in ("What does kilnctl do?", "Which programs does kilnctl take?"):
        for _, a, b in extractive_answer(question, passages, max_sentences=2):
            quoted = PAGE[a:b]
            assert "OPTION" not in quoted and "System Manager" not in quoted, quoted
    # The line under NAME sums the command up: it answers what the command does.
    picked = extractive_answer("What does kilnctl do?", passages, max_sentences=1)
    assert PAGE[picked[0][1] : picked[0][2]] == "kilnctl - fire a pottery kiln on a schedule"
    picked = extractive_answer(
        "Which exit status means the thermocouple stopped answering?", passages, max_sentences=1
    )
    assert PAGE[picked[0][1] : picked[0][2]] == "3      the thermocouple stopped answering"


def test_a_readme_usage_section_is_prose_that_answers() -> None:
    # Only a manual page's SYNOPSIS / USAGE, in capitals, holds a synopsis; a README's
    # "Usage" heading titles sentences that answer.
    readme = "# kilnctl\n\n## Usage\n\nThe small kiln reaches cone 6 in about nine hours.\n"
    picked = extractive_answer(
        "How long does the small kiln take to reach cone 6?", [("r", readme)]
    )
    assert picked and readme[picked[0][1] : picked[0][2]].startswith("The small kiln reaches")


def test_an_environment_variable_and_its_help_are_one_entry() -> None:
    # Indented alone on its line, a variable opens an entry whose help is below it; a
    # word in capitals at the margin is a section's title.
    assert option_entry("       KILNCTL_PROGRAMS") == "option"
    assert option_entry("ENVIRONMENT") is None and _heading("ENVIRONMENT")
    entry = "KILNCTL_PROGRAMS\n              the folder read for firing programs instead of"
    assert any(s.startswith(entry) for s in _split(PAGE))
    picked = extractive_answer(
        "Which variable sets the folder of the firing programs?", [("page", PAGE)], max_sentences=1
    )
    assert PAGE[picked[0][1] : picked[0][2]].startswith("KILNCTL_PROGRAMS")


def test_a_file_and_its_description_are_one_entry() -> None:
    # FILES lists paths as ENVIRONMENT lists variables: the path alone on its indented
    # line opens the entry, and the answer to "where" is the path with what it holds.
    for path in ("/etc/kilnctl/programs", "~/.kilnctl/log", "$HOME/.kilnrc", "./kiln.d/*.conf"):
        assert option_entry(f"       {path}") == "option", path
    assert option_entry("/etc/kilnctl/programs") is None  # at the margin: no list's entry
    assert option_entry("       see /etc/kilnctl for more") is None  # prose naming a path
    entry = "/etc/kilnctl/programs\n              one firing program a line"
    assert any(s.startswith(entry) for s in _split(PAGE))
    assert not _heading("/etc/kilnctl/programs")
    picked = extractive_answer(
        "Where are the firing programs kept, one a line?", [("page", PAGE)], max_sentences=1
    )
    assert PAGE[picked[0][1] : picked[0][2]].startswith("/etc/kilnctl/programs")


def test_the_running_footer_answers_which_version_the_page_is_for() -> None:
    footer = "kilnctl 2.1                        March 2026                   KILNCTL(8)"
    picked = extractive_answer(
        "Which version of kilnctl is this?", [("page", PAGE)], max_sentences=1
    )
    assert PAGE[picked[0][1] : picked[0][2]] == footer
    # Asked anything else, the footer is no answer, though it names the command.
    picked = extractive_answer("What does kilnctl log?", [("page", PAGE)])
    assert footer not in [PAGE[a:b] for _, a, b in picked]


def test_what_a_command_is_is_told_by_the_sentence_that_opens_on_its_name() -> None:
    # The environment chunk ranks first: its variable holds the command's name, as does
    # the path after it, but neither is the command.
    environment = PAGE[PAGE.index("ENVIRONMENT") : PAGE.index("FILES")]
    environment += "       If unset, ~/.kilnctl holds the programs.\n"
    passages = [("environment", environment), ("page", PAGE)]
    texts = dict(passages)
    for question in ("What is kilnctl?", "What does kilnctl do?", "What is the kilnctl command?"):
        [(chunk, a, b)] = extractive_answer(question, passages, max_sentences=1)
        assert texts[chunk][a:b].startswith(("kilnctl - ", "kilnctl ramps")), texts[chunk][a:b]
    # Weighed at nothing, a sentence of the first chunk wins: the feature tells them apart.
    unweighed = ExtractiveConfig(weights=replace(PickWeights(), defines_subject=0.0))
    [(chunk, a, b)] = extractive_answer("What is kilnctl?", passages, config=unweighed)[:1]
    assert chunk == "environment"


def test_a_definition_is_asked_by_what_is_and_what_does_do() -> None:
    assert _defined_subject("What does the --cone flag do?") == "--cone"
    assert _defined_subject('What does "program" mean?') == "program"
    assert _defined_subject("What is a kiln?") == "kiln"
    assert _defined_subject("What does kilnctl return?") is None  # one thing about it
    assert _opens_with("kilnctl - fire a kiln", "kilnctl")
    assert _opens_with("  kilnctl ramps the kiln", "kilnctl")
    assert _opens_with("- kilnctl ramps the kiln", "kilnctl")  # a bullet before it
    assert _opens_with("--cone NUMBER  stop when the cone bends", "--cone")  # not a bullet
    others = ("KILNCTL_PROGRAMS the folder", "kilnctl.conf holds", "kilnctls are", "kilnctl 2.1")
    for other in others:
        assert not _opens_with(other, "kilnctl")


def test_the_first_line_under_a_capital_section_title_is_content_not_an_introduction() -> None:
    page = PAGE.replace("FILES\n", "AUTHOR\n       Written by Mira Okonjo.\n\nFILES\n")
    features = {
        c.text: c.features
        for c in pick_candidates("Who wrote kilnctl?", [("page", page)])
        if c.scored
    }
    assert features["Written by Mira Okonjo."]["after_heading"] == 0.0
    # Under a README's heading the first sentence still reads as an introduction.
    readme = "# kilnctl\n\n## Authors\n\nkilnctl was written by Mira Okonjo.\n"
    [first] = [c for c in pick_candidates("Who wrote kilnctl?", [("r", readme)]) if c.scored]
    assert first.features["after_heading"] == 1.0
