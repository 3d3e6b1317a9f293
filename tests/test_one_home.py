"""Shared primitives have one home each: a second definition anywhere in the packages fails.

Copies drift (two token estimates that disagreed on an empty text, two prompt fences
with different security policies, BM25 constants in three modules). This walks every
module of ``memo_core`` and ``memo_integrations`` and finds where each primitive is
defined; an import of it is fine, a definition outside its home is not.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import memo_core
import memo_integrations

HOMES = {
    "estimate_tokens": "memo_core/prompt.py",
    "inline_data": "memo_core/prompt.py",
    "passage_data": "memo_core/prompt.py",
    "split_sentences": "memo_core/answer/sentences.py",
    "split_chat_sentences": "memo_core/answer/sentences.py",
    "K1": "memo_core/search/bm25.py",
    "B": "memo_core/search/bm25.py",
    "IDF_FLOOR": "memo_core/search/bm25.py",
    "COLUMN_WEIGHTS": "memo_core/search/bm25.py",
    "find_date_range": "memo_core/values.py",
    "parse_when": "memo_core/memory/timeutil.py",
    "word_frequency": "memo_core/frequencies.py",
    "dictionary_available": "memo_core/frequencies.py",
}
#: Names the old copies had: none may come back under its old name either.
RETIRED = {"_zipf", "_fence", "_clean", "_K1", "_B", "BM25_K1", "BM25_B", "_WEIGHTS_BM25"}
#: FTS5's ranking call with literal weights belongs in search/bm25.py only.
WEIGHTED_BM25 = re.compile(r"bm25\(\w+,\s*[0-9.]")


def _modules() -> list[tuple[str, ast.Module]]:
    out = []
    for package in (memo_core, memo_integrations):
        root = Path(package.__file__).parent
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root.parent).as_posix()
            out.append((rel, ast.parse(path.read_text(encoding="utf-8"))))
    return out


def _definitions(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            for target in node.targets:
                if isinstance(target, ast.Tuple):
                    names |= {e.id for e in target.elts if isinstance(e, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def test_each_shared_primitive_is_defined_in_its_home_only() -> None:
    where: dict[str, list[str]] = {}
    for rel, tree in _modules():
        for name in _definitions(tree) & (set(HOMES) | RETIRED):
            where.setdefault(name, []).append(rel)
    assert {name: paths for name, paths in where.items() if name in RETIRED} == {}
    assert where == {name: [home] for name, home in HOMES.items()}


def test_fts5_weights_are_spelled_in_one_place() -> None:
    spelled = [
        rel
        for rel, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if WEIGHTED_BM25.search(node.value)
    ]
    assert set(spelled) <= {"memo_core/search/bm25.py"}  # others call fts5_bm25()


def test_the_word_frequency_lists_are_loaded_in_one_place() -> None:
    # Ingest and the answer engine read the same lists through memo_core/frequencies.py;
    # a second loader (an import of wordfreq, or a probe for it) would drift from it.
    loaders = set()
    for rel, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                named = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                named = [node.module or ""]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                named = [node.value]  # importlib.import_module("wordfreq"), find_spec(...)
            else:
                continue
            if any(name.split(".")[0] == "wordfreq" for name in named):
                loaders.add(rel)
    assert loaders == {"memo_core/frequencies.py"}
