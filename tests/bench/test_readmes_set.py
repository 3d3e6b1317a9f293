"""The project README evaluation set: licence stripping, renderings, questions and split.

The stripping and conversion checks use READMEs of the test's own (a made-up
``teapot`` project); the committed questions are checked against the installed
distributions' rebuilt descriptions (they were written over the versions the
builder pins).
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import Any

import pytest

DOCS_SET = "readmes"  # the set conftest.py's docs_builder and built fixtures rebuild

TEAPOT_MD = """# teapot

[![License: MIT](https://img.shields.io/badge/license-MIT-green)](LICENSE)

Teapot brews tea at the right temperature for every leaf.

## Installing

```sh
pip install teapot  # works on any kettle
```

## License

Teapot is released under a permissive licence.

### Third-party notices

The steam module was adapted from another project.

## Brewing

Green tea steeps for two minutes.

*License?*

Permissive.

## Frequently asked

Does teapot whistle? Only when asked.
"""

TEAPOT_RST = """Teapot
======

Teapot brews tea.

Leaves
------

Black tea steeps for four minutes.

Copyright
---------

Copyright (c) 2024 the teapot authors.

Cups
----

One cup per person.

=======
Changes
=======

1.0
---

First pour.
"""


@pytest.fixture(scope="module")
def readmes(docs_builder: Any) -> Any:
    return docs_builder


def test_licence_sections_paragraphs_and_badges_are_stripped(readmes: Any) -> None:
    kept = readmes.strip_licences(TEAPOT_MD, markdown=True)
    assert not readmes.LICENCE.search(kept)
    assert "## License" not in kept and "Third-party notices" not in kept  # with its subsections
    assert "img.shields.io" not in kept  # the badge naming the licence
    assert "Permissive." not in kept  # the answer under a licence title in all but markup
    for section in ("# teapot", "## Installing", "## Brewing", "## Frequently asked"):
        assert section in kept
    assert "Green tea steeps for two minutes." in kept
    assert "```sh\npip install teapot  # works on any kettle\n```" in kept  # the fence kept whole
    rst = readmes.strip_licences(TEAPOT_RST, markdown=False)
    assert "Copyright" not in rst and "One cup per person." in rst and "First pour." in rst


def test_a_licence_line_inside_code_goes_alone(readmes: Any) -> None:
    readme = "# pot\n\n```\nfrom pot import brew\n# licensed to brew\nbrew()\n```\n\nAfter.\n"
    kept = readmes.strip_licences(readme, markdown=True)
    assert kept == "# pot\n\n```\nfrom pot import brew\nbrew()\n```\n\nAfter.\n"


def test_rest_titles_become_markdown_headings_by_adornment_order(readmes: Any) -> None:
    markdown = readmes.rst_as_markdown(TEAPOT_RST)
    lines = markdown.split("\n")
    assert lines[0] == "# Teapot" and "======" not in lines
    assert "## Leaves" in lines and "## Cups" in lines  # the second style met is level 2
    assert "### Changes" in lines  # overlined "=" is a style of its own, met third
    assert "## 1.0" in lines
    paths = [path for _, path in readmes.markdown_sections(markdown)]
    assert paths[:2] == ["Teapot", "Teapot > Leaves"]
    assert paths[-2:] == ["Teapot > Cups > Changes", "Teapot > 1.0"]  # levels as the styles say


def test_markdown_sections_start_where_their_headings_are(readmes: Any) -> None:
    markdown = "Intro line.\n\n# Title\n\nText.\n\n```\n# not a heading\n```\n\n## Part\n\nMore.\n"
    sections = readmes.markdown_sections(markdown)
    assert [path for _, path in sections] == ["Title", "Title > Part"]
    for at, path in sections:
        assert markdown[at:].lstrip("#").lstrip().startswith(path.split(" > ")[-1])


def test_a_description_that_is_mostly_licence_is_refused(
    readmes: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "# pot\n\nBrews.\n\n## License\n\n" + "Permission is granted to brew. " * 40 + "\n"
    monkeypatch.setattr(readmes, "description", lambda name: (body, True, "A pot"))
    with pytest.raises(RuntimeError, match="mostly licence"):
        readmes.texts("httpx")


def test_every_installed_distribution_is_rendered_in_four_formats(
    readmes: Any, built: tuple[Path, dict[str, Any]]
) -> None:
    out, manifest = built
    installed = readmes.installed()
    assert list(manifest["modules"]) == [n for n in readmes.DISTRIBUTIONS if n in installed]
    assert manifest["versions"] == installed and not readmes.stale(manifest)
    assert readmes.stale({**manifest, "versions": {**installed, "httpx": "0.0.1"}})
    for name, entry in manifest["modules"].items():
        assert set(entry["files"]) == {"txt", "md", "html", "pdf"}
        text = (out / entry["files"]["txt"]).read_text(encoding="utf-8")
        assert text.startswith(f"{name} {installed[name]}")
        assert entry["md_sections"] and entry["pdf_page_starts"][0] == 0
        for fmt in ("txt", "md", "html"):
            rendered = (out / entry["files"][fmt]).read_text(encoding="utf-8")
            assert not readmes.LICENCE.search(rendered), (name, fmt)


def test_every_answer_span_is_in_every_rendered_format(
    readmes: Any, built: tuple[Path, dict[str, Any]]
) -> None:
    rows = readmes.load_questions()
    problems = readmes.validate(rows, built[0])
    pinned = all(
        readmes.installed().get(name) == version for name, version in readmes.DISTRIBUTIONS.items()
    )
    if pinned:  # the versions the questions were written over: every one holds
        assert problems == []
    else:  # descriptions change between versions: most still hold
        assert len(problems) <= len(rows) // 3, problems


def test_committed_questions_are_shaped_as_asked(readmes: Any, shaped_as_asked: Any) -> None:
    # Grown by 160 questions on the train half's distributions, half of them near-misses,
    # then by 68 and 60 over four more of its distributions each.
    shaped_as_asked(readmes.load_questions(), readmes.DISTRIBUTIONS, 450, 700, near_misses=0.3)


def test_pinned_versions_name_real_distributions(readmes: Any) -> None:
    for name, version in readmes.DISTRIBUTIONS.items():
        assert version.split(".")[0].isdigit(), name
        try:
            importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pytest.skip(f"{name} is not installed here")
