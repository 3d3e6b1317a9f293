"""What the rendered dev sets' tests share: the set's document builder and a fresh build.

A test module names its set in ``DOCS_SET`` (``"topics"``, ``"library"``, ``"cli"``,
``"readmes"``, ``"records"``).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def docs_builder(request: pytest.FixtureRequest) -> Any:
    """The module's set's ``build_docs.py`` as a module, loaded as bench/answer_sets.py loads it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(BENCH))
        import answer_sets

        return getattr(answer_sets, f"{request.module.DOCS_SET}_docs_module")()


@pytest.fixture(scope="module")
def built(
    docs_builder: Any, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    """The set's documents rebuilt into a fresh folder: (folder, manifest)."""
    out = tmp_path_factory.mktemp(f"{docs_builder.DOCS.parent.name}_docs")
    return out, docs_builder.build(out)


@pytest.fixture(scope="module")
def committed_problems(docs_builder: Any, built: tuple[Path, dict[str, Any]]) -> list[str]:
    """The committed questions' problems on the fresh build (``validate``).

    They were written over Python 3.11: there every one must hold; docstrings and
    the reference change between versions, so elsewhere up to a fifth may not.
    """
    questions = docs_builder.load_questions()
    problems: list[str] = docs_builder.validate(questions, built[0])
    if sys.version_info[:2] == (3, 11):
        assert problems == []
    else:
        assert len(problems) <= len(questions) // 5, problems
    return problems


@pytest.fixture
def shaped_as_asked() -> Callable[[list[dict[str, Any]], Collection[str], int, int], None]:
    """A check of a set's committed questions: ``low`` to ``high`` of them with unique ids,
    about 60% answerable and 20% of each refusal kind (or ``near_misses`` of them, for a
    set grown with near-misses of its own), every nonexistent one naming its ``absent``
    term, every document asked about, no answer span written in its question."""

    def check(
        rows: list[dict[str, Any]],
        documents: Collection[str],
        low: int,
        high: int,
        near_misses: float = 0.2,
    ) -> None:
        assert low <= len(rows) <= high
        assert len({r["id"] for r in rows}) == len(rows)
        kinds = Counter(r["kind"] for r in rows)
        share = {k: n / len(rows) for k, n in kinds.items()}
        assert set(kinds) == {"answerable", "near_miss", "nonexistent"}
        answerable = 0.8 - near_misses
        assert answerable - 0.05 <= share["answerable"] <= answerable + 0.05
        assert near_misses - 0.05 <= share["near_miss"] <= near_misses + 0.05
        assert 0.15 <= share["nonexistent"] <= 0.25
        assert all(r.get("absent") for r in rows if r["kind"] == "nonexistent")
        assert {r["doc"] for r in rows} == set(documents)
        for r in rows:  # questions in the team's own words, not the documents' lines
            if r["kind"] == "answerable":
                assert r["answer"].casefold() not in r["question"].casefold(), r["id"]

    return check
