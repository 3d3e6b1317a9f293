"""The quote-or-refuse evaluation sets, loaded the same way for every benchmark.

    from answer_sets import load_set            # bench/ is on sys.path for bench scripts
    squad = load_set("squad", limit=200)        # ../shared/eval/qa (public SQuAD split)
    pydoc = load_set("pydoc", formats="mixed")  # stdlib docs rebuilt by bench/data/answer/build_docs.py
    topics = load_set("topics")                 # Language Reference, bench/data/topics/build_docs.py
    library = load_set("library")               # 32 more modules, bench/data/library/build_docs.py
    cli = load_set("cli")                       # command-line help, bench/data/cli/build_docs.py
    readmes = load_set("readmes")               # project READMEs, bench/data/readmes/build_docs.py
    with squad.open_base(embedder) as kb:       # a fresh MemoBase in a temporary folder, ingested
        for q in squad.questions: ...
    heldout = load_set("pydoc", split="heldout")  # the half calibrate_gate.py never fits on
    with heldout.open_base(embedder, keep=Path("bases")) as kb: ...  # ingested once, reused

Each set is an :class:`AnswerSet`: its questions (``kind`` is ``answerable`` or one
of the set's refusal kinds), and how to fill a fresh :class:`~memo_core.kb.MemoBase`
with its documents. ``q.should_answer`` is the label a gate is calibrated on.

* ``squad``: refusal kinds ``out_of_base`` (the paragraph is not in the base) and
  ``unanswerable`` (SQuAD 2.0's plausible-but-unanswered questions).
* ``pydoc``: refusal kinds ``near_miss`` (about a module in the base, not answered
  by its docs) and ``nonexistent`` (names a function, option or version that does
  not exist). Documents: 54 standard-library modules rendered by ``pydoc`` in
  ``txt``, ``md``, ``html``, ``pdf``; ``formats="mixed"`` gives module *i* format
  ``i % 4`` (every extractor in one base), ``"all"`` ingests every format of every
  module (four near-copies of each), or name one format. Docstrings differ
  between Python versions: a question whose answer span is not in this Python's
  text (or whose ``absent`` term is) is left out and counted in ``skipped``.
  Answerable questions carry the gold locators of their answer: the PDF page(s)
  and Markdown heading path(s) where the span sits.
* ``topics``: the pydoc set's kinds, formats and locators over a different
  shape of text: the Python Language Reference sections shipped with every
  Python as ``pydoc_data.topics`` (long prose with grammar rules, examples and
  nested headings; ``bench/data/topics/build_docs.py``). It checks that what
  was tuned on the first two sets carries over; nothing is fitted on it.
* ``library``: the pydoc set's kinds, formats, locators and renderers over 32
  other standard-library modules (``bench/data/library/build_docs.py``:
  compression, serialisation, mail and FTP clients, option parsers, ...), whose
  docstrings are dense with options, defaults, exceptions, limits and versions;
  a second check that what was tuned carries over. Its answer spans are checked
  in all four renderings (``--check``).
* ``cli``: the pydoc set's kinds, formats and locators over option lists: the
  ``--help`` output of the interpreter and of 34 standard-library command-line
  tools (``bench/data/cli/build_docs.py``), one entry per option with its help
  (``-b ADDRESS, --bind ADDRESS`` / ``bind to this address (default: all
  interfaces)``), the shape of a manual page rather than reference prose. Held
  out by tool.
* ``readmes``: the pydoc set's kinds, formats and locators over another genre:
  the project READMEs (long descriptions, Markdown or reST) of 36 third-party
  distributions installed in the venv, licence sections stripped
  (``bench/data/readmes/build_docs.py``): install steps, feature lists, quick
  starts, benchmarks, FAQs and changelogs written by others. The descriptions
  depend on the installed versions, not on Python: the documents are rebuilt
  when those change, and questions whose span is then missing are skipped.
  Held out by distribution.
* ``records``: the same kinds, formats and locators over records of "Name: value"
  fields, the shape of mail headers and Debian's control files: the metadata
  headers of the readmes set's distributions, licence fields dropped
  (``bench/data/records/build_docs.py``): authors, maintainers, project links,
  required Python, dependencies, extras and classifiers. Rebuilt and skipped as
  the readmes set; held out by distribution.

The held-out half of each set is fixed by its :attr:`EvalQuestion.group` (a
SQuAD paragraph, a pydoc module, a reference topic, a command-line tool, a distribution), so no group is on both sides.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import qa_dir, read_jsonl

from memo_core.ingest.inline import readable_inline
from memo_core.kb import MemoBase

HERE = Path(__file__).resolve().parent
PYDOC_DIR = HERE / "data" / "answer"
TOPICS_DIR = HERE / "data" / "topics"
LIBRARY_DIR = HERE / "data" / "library"
CLI_DIR = HERE / "data" / "cli"
READMES_DIR = HERE / "data" / "readmes"
RECORDS_DIR = HERE / "data" / "records"

__all__ = [
    "RENDERED_SETS",
    "SETS",
    "SPLITS",
    "AnswerSet",
    "EvalQuestion",
    "build_docs_module",
    "cli_docs_module",
    "cli_set",
    "library_docs_module",
    "library_set",
    "load_set",
    "pydoc_set",
    "readmes_docs_module",
    "readmes_set",
    "records_docs_module",
    "records_set",
    "squad_set",
    "topics_docs_module",
    "topics_set",
]


def build_docs_module() -> Any:
    """bench/data/answer/build_docs.py as a module (it is a script, not a package member)."""
    return _script_module("memo_bench_build_docs", PYDOC_DIR / "build_docs.py")


def topics_docs_module() -> Any:
    """bench/data/topics/build_docs.py as a module."""
    return _script_module("memo_bench_topics_docs", TOPICS_DIR / "build_docs.py")


def library_docs_module() -> Any:
    """bench/data/library/build_docs.py as a module."""
    return _script_module("memo_bench_library_docs", LIBRARY_DIR / "build_docs.py")


def cli_docs_module() -> Any:
    """bench/data/cli/build_docs.py as a module."""
    return _script_module("memo_bench_cli_docs", CLI_DIR / "build_docs.py")


def readmes_docs_module() -> Any:
    """bench/data/readmes/build_docs.py as a module."""
    return _script_module("memo_bench_readmes_docs", READMES_DIR / "build_docs.py")


def records_docs_module() -> Any:
    """bench/data/records/build_docs.py as a module."""
    return _script_module("memo_bench_records_docs", RECORDS_DIR / "build_docs.py")


def _script_module(name: str, path: Path) -> Any:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class EvalQuestion:
    """One question; ``answer`` is the gold span (answerable only)."""

    id: str
    question: str
    kind: str
    answer: str | None = None
    doc: str | None = None  # pydoc / topics: the module or topic the question is about
    format: str | None = None  # the format that document was ingested in (mixed / one format)
    gold_pages: frozenset[int] = frozenset()  # PDF pages (1-based) holding the answer span
    gold_headings: frozenset[str] = frozenset()  # Markdown heading paths holding the answer span
    group: str = ""  # what the held-out split keeps together: a paragraph, a module, a topic

    @property
    def should_answer(self) -> bool:
        return self.kind == "answerable"

    @property
    def heldout(self) -> bool:
        """Whether the question is in the held-out half (never fitted on; reported).

        Split by :attr:`group`, so questions about one paragraph or one module are
        all on the same side.
        """
        return hashlib.sha256((self.group or self.id).encode()).digest()[0] % 2 == 1


@dataclass
class AnswerSet:
    """Questions plus the documents to ingest into a fresh base."""

    name: str
    questions: list[EvalQuestion]
    refusal_kinds: tuple[str, ...]
    texts: list[tuple[str, str]] = field(default_factory=list)  # (id, text) for add_texts
    files: list[Path] = field(default_factory=list)  # paths for the ingest pipeline
    root: Path | None = None  # the folder the files live in (ingest policy root)
    skipped: Counter[str] = field(default_factory=Counter)  # questions left out, by reason
    info: dict[str, Any] = field(default_factory=dict)

    def ingest(self, kb: MemoBase) -> dict[str, Any]:
        """Put this set's documents into ``kb``; returns what was stored."""
        if self.texts:
            kb.add_texts([t for _, t in self.texts], ids=[i for i, _ in self.texts])
            return {"documents": len(self.texts)}
        from memo_core.ingest import IngestPolicy
        from memo_core.kb.ingest import ingest_sources

        assert self.root is not None
        report = ingest_sources(kb, self.files, policy=IngestPolicy.for_roots([self.root]))
        if report.failed:
            raise RuntimeError(f"{self.name}: documents failed to ingest: {report.failed}")
        return {"documents": len(self.files), "chunks": report.chunks}

    @contextmanager
    def open_base(self, embedder: Any, keep: Path | None = None) -> Iterator[MemoBase]:
        """A MemoBase holding this set's documents: fresh in a temporary folder, or kept.

        ``keep`` names a folder where the ingested base is stored and reused by later
        runs (ingesting the pydoc set takes minutes): one file per set, formats and
        embedder, reused only when its ingest finished. Delete the folder after
        changing how documents are chunked.
        """
        if keep is None:
            with (
                tempfile.TemporaryDirectory() as tmp,
                self._base(Path(tmp) / f"{self.name}.db", embedder) as kb,
            ):
                yield kb
            return
        keep.mkdir(parents=True, exist_ok=True)
        model = embedder.fingerprint.model if embedder is not None else "keyword-only"
        label = "-".join([self.name, str(self.info.get("formats", "")), model])
        with self._base(keep / (re.sub(r"[^\w.-]+", "_", label) + ".db"), embedder) as kb:
            yield kb

    @contextmanager
    def _base(self, path: Path, embedder: Any) -> Iterator[MemoBase]:
        done = path.with_suffix(".ingested.json")
        if not done.exists():
            for stale in path.parent.glob(path.name + "*"):
                stale.unlink()  # a base whose ingest did not finish is not reused
        kb = MemoBase(path, embedder=embedder)
        try:
            if done.exists():
                self.info["ingest"] = {**json.loads(done.read_text()), "reused": str(path)}
            else:
                self.info["ingest"] = self.ingest(kb)
                done.write_text(json.dumps(self.info["ingest"]))
            yield kb
        finally:
            kb.close()


#: Which questions a run takes: every one, the held-out half, or the half fitted on.
SPLITS = ("all", "heldout", "train")


def _split(questions: list[EvalQuestion], split: str) -> list[EvalQuestion]:
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    if split == "all":
        return questions
    return [q for q in questions if q.heldout == (split == "heldout")]


def _take(questions: list[EvalQuestion], limit: int) -> list[EvalQuestion]:
    """``limit`` questions of each kind spread evenly over the set (all when 0), order kept.

    Evenly spaced rather than the first ones, so a quick run still covers every
    module (pydoc questions are grouped by module) and every part of SQuAD.
    """
    if not limit:
        return questions
    by_kind: dict[str, list[int]] = {}
    for index, q in enumerate(questions):
        by_kind.setdefault(q.kind, []).append(index)
    keep: set[int] = set()
    for indices in by_kind.values():
        step = max(1.0, len(indices) / limit)
        keep.update(indices[int(i * step)] for i in range(min(limit, len(indices))))
    return [q for index, q in enumerate(questions) if index in keep]


def squad_set(limit: int = 0, split: str = "all") -> AnswerSet:
    data = qa_dir()
    questions = []
    skipped: Counter[str] = Counter()
    for q in read_jsonl(data / "questions.jsonl"):
        if not q["question"].strip():  # the split holds a few blank questions: nothing to ask
            skipped[f"{q['kind']} (blank question)"] += 1
            continue
        questions.append(
            EvalQuestion(
                id=q["id"],
                question=q["question"],
                kind=q["kind"],
                answer=q.get("answer"),
                group=q.get("paragraph_id") or q["id"],
            )
        )
    texts = [(p["id"], p["text"]) for p in read_jsonl(data / "corpus.jsonl")]
    return AnswerSet(
        name="squad",
        questions=_take(_split(questions, split), limit),
        refusal_kinds=("out_of_base", "unanswerable"),
        texts=texts,
        skipped=skipped,
        info={"split": split},
    )


def _module_formats(
    modules: list[str], formats: str, all_formats: tuple[str, ...]
) -> dict[str, list[str]]:
    if formats == "mixed":
        return {m: [all_formats[i % len(all_formats)]] for i, m in enumerate(modules)}
    if formats == "all":
        return {m: list(all_formats) for m in modules}
    if formats in all_formats:
        return {m: [formats] for m in modules}
    raise ValueError(f"formats must be 'mixed', 'all' or one of {all_formats}, not {formats!r}")


def _gold_locators(
    bd: Any, manifest: dict[str, Any], docs: Path, module: str, span: str
) -> tuple[frozenset[int], frozenset[str]]:
    """PDF pages and Markdown heading paths where ``span`` occurs in ``module``'s rendering
    (a heading path as memo stores it: its inline Markdown rendered, ``*x*`` read as x)."""
    entry = manifest["modules"][module]
    text = (docs / entry["files"]["txt"]).read_text(encoding="utf-8")
    starts = entry["pdf_page_starts"]
    pages = set()
    for match in bd.span_pattern(span).finditer(text):
        for offset in (match.start(), match.end() - 1):
            pages.add(sum(1 for s in starts if s <= offset))
    markdown = (docs / entry["files"]["md"]).read_text(encoding="utf-8")
    headings = set()
    for offset in bd.find_span(markdown, span):
        inside = [h for at, h in entry["md_sections"] if at <= offset]
        if inside:
            headings.add(readable_inline(inside[-1]))
    return frozenset(pages), frozenset(headings)


def pydoc_set(
    formats: str = "mixed", limit: int = 0, rebuild: bool = False, split: str = "all"
) -> AnswerSet:
    """The pydoc set on this Python, rebuilding the documents when absent or from another Python."""
    return _rendered_set("pydoc", build_docs_module(), formats, limit, rebuild, split)


def topics_set(
    formats: str = "mixed", limit: int = 0, rebuild: bool = False, split: str = "all"
) -> AnswerSet:
    """The Language Reference set on this Python, rebuilt like the pydoc set."""
    return _rendered_set("topics", topics_docs_module(), formats, limit, rebuild, split)


def library_set(
    formats: str = "mixed", limit: int = 0, rebuild: bool = False, split: str = "all"
) -> AnswerSet:
    """The library set (32 more standard-library modules) on this Python, rebuilt like the pydoc set."""
    return _rendered_set("library", library_docs_module(), formats, limit, rebuild, split)


def cli_set(
    formats: str = "mixed", limit: int = 0, rebuild: bool = False, split: str = "all"
) -> AnswerSet:
    """The command-line help set (the interpreter's and 34 tools' ``--help``), rebuilt like the pydoc set."""
    return _rendered_set("cli", cli_docs_module(), formats, limit, rebuild, split)


def readmes_set(
    formats: str = "mixed", limit: int = 0, rebuild: bool = False, split: str = "all"
) -> AnswerSet:
    """The project README set (36 installed distributions' long descriptions), rebuilt like the pydoc set."""
    return _rendered_set("readmes", readmes_docs_module(), formats, limit, rebuild, split)


def records_set(
    formats: str = "mixed", limit: int = 0, rebuild: bool = False, split: str = "all"
) -> AnswerSet:
    """The package-record set (the readmes set's distributions' metadata headers), rebuilt like the pydoc set."""
    return _rendered_set("records", records_docs_module(), formats, limit, rebuild, split)


def _rendered_set(
    name: str, bd: Any, formats: str, limit: int, rebuild: bool, split: str
) -> AnswerSet:
    """A set whose documents a ``build_docs.py`` renders in every format from this Python.

    ``bd`` is that script as a module: ``DOCS``, ``FORMATS``, ``build``,
    ``load_questions``, ``validate`` and the span look-up; its manifest maps each
    document to its files, Markdown sections and PDF page starts.
    """
    docs: Path = bd.DOCS
    manifest_path = docs / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else None
    stale = getattr(bd, "stale", None)  # documents that depend on more than the Python
    if (
        rebuild
        or manifest is None
        or manifest["python"] != list(sys.version_info[:3])
        or (stale is not None and stale(manifest))
    ):
        manifest = bd.build(docs)
    documents = list(manifest["modules"])
    assignment = _module_formats(documents, formats, tuple(bd.FORMATS))
    raw = bd.load_questions()
    problems = {line.split(":", 1)[0] for line in bd.validate(raw, docs, documents=documents)}
    skipped: Counter[str] = Counter()
    questions = []
    for q in raw:
        if q["id"] in problems:
            # On another Python the span may be missing, the "absent" term present,
            # or (topics) the document not rendered at all.
            skipped[q["kind"]] += 1
            continue
        pages: frozenset[int] = frozenset()
        headings: frozenset[str] = frozenset()
        if q["kind"] == "answerable":
            pages, headings = _gold_locators(bd, manifest, docs, q["doc"], q["answer"])
        fmts = assignment[q["doc"]]
        questions.append(
            EvalQuestion(
                id=q["id"],
                question=q["question"],
                kind=q["kind"],
                answer=q.get("answer"),
                doc=q["doc"],
                format=fmts[0] if len(fmts) == 1 else "all",
                gold_pages=pages,
                gold_headings=headings,
                group=q["doc"],
            )
        )
    files = [docs / manifest["modules"][m]["files"][f] for m, fs in assignment.items() for f in fs]
    return AnswerSet(
        name=name,
        questions=_take(_split(questions, split), limit),
        refusal_kinds=("near_miss", "nonexistent"),
        files=files,
        root=docs,
        skipped=skipped,
        info={"python": manifest["python"], "formats": formats, "split": split},
    )


#: Every set by name; the rendered sets take formats, limit, rebuild and split.
SETS = {
    "squad": squad_set,
    "pydoc": pydoc_set,
    "topics": topics_set,
    "library": library_set,
    "cli": cli_set,
    "readmes": readmes_set,
    "records": records_set,
}

#: The sets whose documents are rendered in several formats (reported per format).
RENDERED_SETS = ("pydoc", "topics", "library", "cli", "readmes", "records")


def load_set(name: str, **options: Any) -> AnswerSet:
    """``squad`` (options: limit, split), or a rendered set (formats, limit, rebuild, split)."""
    if name not in SETS:
        raise ValueError(f"unknown answer set {name!r} ({', '.join(SETS)})")
    return SETS[name](**options)
