"""The command-line help evaluation set: its tools, renderings, questions and split.

The rendering checks use help texts of the test's own (a made-up ``kettle``
tool); the committed questions are checked against this Python's rebuilt help
(they were written over Python 3.11's).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

DOCS_SET = "cli"  # the set conftest.py's docs_builder and built fixtures rebuild

KETTLE = """python -m kettle -h

usage: python -m kettle [-h] [-t DEGREES] [--keep-warm] [cup ...]

Boils water for the given cups.

positional arguments:
  cup                   a cup to fill (default: one mug)

options:
  -h, --help            show this help message and exit
  -t DEGREES, --temperature DEGREES
                        stop heating at this temperature (default: 100)
  --keep-warm           hold the water warm for ten minutes
                        after it boils

Settings:
KETTLE_LITRES : how much water to heat; the lid
                must stay shut
KETTLE_SPOUT: where the water pours
"""


@pytest.fixture(scope="module")
def cli(docs_builder: Any) -> Any:
    return docs_builder


def test_markdown_gives_each_section_title_a_heading(cli: Any) -> None:
    markdown, sections = cli.markdown_of(KETTLE)
    lines = markdown.split("\n")
    assert lines[0] == "# python -m kettle -h"
    assert "## options" in lines and "## positional arguments" in lines and "## Settings" in lines
    assert "  --keep-warm           hold the water warm for ten minutes" in lines  # kept as printed
    paths = [path for _, path in sections]
    assert paths == [
        "python -m kettle -h",
        "python -m kettle -h > positional arguments",
        "python -m kettle -h > options",
        "python -m kettle -h > Settings",
    ]
    for at, path in sections[1:]:  # each offset is where its heading starts
        assert markdown[at:].startswith("## " + path.split(" > ")[-1])


def test_html_lists_options_as_definitions(cli: Any) -> None:
    page = cli.html_of(KETTLE)
    assert "<h1>python -m kettle -h</h1>" in page and "<h2>options</h2>" in page
    assert "<dt>-t DEGREES, --temperature DEGREES</dt>" in page
    assert "<dd>stop heating at this temperature (default: 100)</dd>" in page
    assert "<dd>hold the water warm for ten minutes\nafter it boils</dd>" in page  # wrapped help
    assert "<dt>KETTLE_LITRES</dt>" in page and "<dt>KETTLE_SPOUT</dt>" in page  # "NAME : help"
    assert "<dd>where the water pours</dd>" in page
    assert "<p>Boils water for the given cups.</p>" in page  # prose is a paragraph
    assert "<pre>usage: python -m kettle" in page  # the usage line is kept as printed
    text = cli._lib.html_text(page)  # what --check searches: tags dropped
    assert "--temperature DEGREES\nstop heating" in text  # tags never glue option and help


def test_prose_and_ragged_blocks_are_not_definition_lists(cli: Any) -> None:
    assert cli._definitions(["Boils water for the given cups,", "then pours it."]) is None
    ragged = ["    --spout", "    -s", "        pour from the spout"]  # an entry with no help
    assert cli._definitions(ragged) is None
    assert cli._definitions(["  -q            say nothing", "  -v            say more"]) == [
        ("-q", ["say nothing"]),
        ("-v", ["say more"]),
    ]


def test_every_tool_prints_help_the_same_way_on_every_machine(
    cli: Any, built: tuple[Path, dict[str, Any]]
) -> None:
    out, manifest = built
    assert list(manifest["modules"]) == list(cli.TOOLS)  # the order formats are mixed by
    assert manifest["columns"] == cli.COLUMNS
    for name, entry in manifest["modules"].items():
        assert set(entry["files"]) == {"txt", "md", "html", "pdf"}
        text = (out / entry["files"]["txt"]).read_text(encoding="utf-8")
        assert text.startswith(cli.command(name) + "\n\n")
        assert "Traceback" not in text and len(text.split("\n")) > 4, name
        for fmt in ("txt", "md", "html"):
            rendered = (out / entry["files"][fmt]).read_text(encoding="utf-8")
            assert sys.executable not in rendered and sys.prefix not in rendered, (name, fmt)
    # Program names are fixed, not the module's file: argparse prints what argv[0] says.
    assert "usage: python -m json.tool" in (out / "txt" / "json_tool.txt").read_text()
    assert "usage: python [option]" in (out / "txt" / "python.txt").read_text()
    # A second build gives the same text (no width, path or order from the machine).
    assert cli.render_text("gzip") == (out / "txt" / "gzip.txt").read_text(encoding="utf-8")


def test_a_help_naming_a_machine_path_is_refused(cli: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(
        cli.TOOLS, "where", ("-c", "import sys; print(sys.prefix); print(1); print(2)")
    )
    with pytest.raises(RuntimeError, match="path of this machine"):
        cli.help_text("where")


def test_every_answer_span_is_in_every_rendered_format(
    cli: Any, committed_problems: list[str]
) -> None:
    broken = {p.split(":")[0] for p in committed_problems}
    rows = cli.load_questions()
    holding = [r for r in rows if r["kind"] == "answerable" and r["id"] not in broken]
    assert len(holding) >= 170


def test_committed_questions_are_shaped_as_asked(cli: Any, shaped_as_asked: Any) -> None:
    shaped_as_asked(cli.load_questions(), cli.TOOLS, 250, 350)  # every tool is asked about
