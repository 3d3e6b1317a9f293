"""``memo kb ...``: ingest, search, ask, list, delete, status and re-index a knowledge base.

``--json`` output is stable: ``search`` prints an array of hits
``{chunk_id, document_id, source, title, locator, score, text}``; ``ask`` prints
``{refused, reason, answer, citations: [{quote, chunk_id, source, page, start, end, ...}],
gate_score}`` (plus ``explain`` with ``--explain``).

Paid providers (Cloudflare embeddings, Cohere rerank, a keyed LLM, hosted
transcription) are given the user's spend ledger (``spend.db`` in the config
folder, see :mod:`memo_core.config`), which ``status`` reads back. Over a
ceiling, search falls back to keyword-only, ``ask`` to the extractive answer and
rerank to the fused order, each with a note on stderr; ingest reports the
sources it could not embed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from memo_core.cli.bases import require_existing
from memo_core.config import (
    EmbedderSpec,
    Settings,
    build_embedder,
    build_ledger,
    build_search_settings,
    load_settings,
)
from memo_core.display import printable
from memo_core.embedders.base import Embedder
from memo_core.errors import BudgetExceededError
from memo_core.kb.base import MemoBase
from memo_core.ledger import SpendLedger
from memo_core.search.hybrid import KEYWORD_INDEXES, VECTOR_INDEXES
from memo_core.storage.url import file_of_url

__all__ = ["open_kb", "register"]


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db",
        required=True,
        help="the knowledge base: a file, sqlite:///file.db or postgresql://...?schema=name",
    )
    parser.add_argument("--owner", default="default", help="namespace of the documents")
    parser.add_argument("--config", help="config.yaml (default: ./config.yaml, ~/.config/memo/)")
    parser.add_argument(
        "--embedder",
        choices=("local", "hash", "cloudflare", "none"),
        help="override the configured embedder",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")


#: Embedder providers that are paid for, so they are given the spend ledger.
_PAID_EMBEDDERS = frozenset({"cloudflare"})


def _build(spec: EmbedderSpec, settings: Settings) -> Embedder | None:
    paid = spec.provider.lower() in _PAID_EMBEDDERS
    return build_embedder(spec, settings, build_ledger(settings) if paid else None)


def _reranker(settings: Settings) -> Any:
    """Cohere rerank when configured and keyed (charged to the ledger), a local
    cross-encoder when one is configured (``{provider: local, model: ..., path: ...}``),
    else None."""
    provider = str(settings.rerank.get("provider", "")).lower()
    if provider == "local":
        from memo_core.rerank.providers import CrossEncoderReranker

        path = settings.rerank.get("path")
        model = settings.rerank.get("model") or (f"local/{Path(path).name}" if path else None)
        if not model:
            return None
        return CrossEncoderReranker(
            str(model), model_path=Path(path).expanduser() if path else None
        )
    if provider != "cohere":
        return None
    key = settings.secret("COHERE_API_KEY")
    if not key:
        return None  # no key: fused order, quietly
    from memo_core.rerank.providers import CohereReranker

    model = str(settings.rerank.get("model") or "rerank-v3.5")
    return CohereReranker(key, model=model, ledger=build_ledger(settings))


def _embedder_for(args: argparse.Namespace) -> Embedder | None:
    settings = load_settings(args.config)
    if args.embedder:
        return _build(EmbedderSpec(provider=args.embedder), settings)
    if _exists(args.db):  # an existing base: follow what it was indexed with
        with MemoBase(args.db, embedder=None, owner=args.owner) as probe:
            fp = probe.store.fingerprint
            keyword_only = fp is None and probe.store.counts()["chunks"] > 0
        if fp is not None and fp.provider == "hash":
            return build_embedder(EmbedderSpec("hash", dims=fp.dimensions), settings)
        if keyword_only:
            return None
    return _build(settings.kb_embedder, settings)


def _exists(target: str) -> bool:
    """Whether ``--db`` names an existing base (a PostgreSQL schema is probed by opening)."""
    file = file_of_url(target)
    return file is None or Path(file).exists()


def open_kb(args: argparse.Namespace, embedder: Embedder | str | None = "config") -> MemoBase:
    """The base ``--db`` names; only a command that writes (``may_create``) may create it."""
    if not getattr(args, "may_create", False):
        require_existing(args.db, "knowledge base")
    chosen = _embedder_for(args) if embedder == "config" else embedder
    settings = load_settings(args.config)
    reranker = _reranker(settings) if embedder == "config" else None
    return MemoBase(
        args.db,
        embedder=chosen,
        owner=args.owner,
        reranker=reranker,
        settings=build_search_settings(settings),
    )


def _budget_note(exc: BudgetExceededError, fallback: str) -> None:
    print(f"memo: {exc}; {fallback}", file=sys.stderr)


def _transcriber(settings: Settings) -> Any:
    """Hosted or local transcription from the keys in ``settings``, metered, built lazily."""
    from memo_core.kb.ingest import MeteredTranscriber

    def build() -> Any:
        from memo_core.ingest.transcribers import transcriber_from_env

        return transcriber_from_env(settings.env)

    def local() -> Any:
        import importlib.util

        from memo_core.ingest.transcribers import LocalWhisperTranscriber

        if importlib.util.find_spec("faster_whisper") is None:
            return None
        return LocalWhisperTranscriber(settings.env.get("MEMO_WHISPER_MODEL") or "base")

    return MeteredTranscriber(build, lambda: build_ledger(settings), fallback=local)


def _print(args: argparse.Namespace, payload: Any, human: str) -> None:
    if args.json:
        print(json.dumps(payload, ensure_ascii=False, indent=2, default=str))
    else:
        print(human)


def _progress(enabled: bool) -> Any:
    if not enabled or not sys.stderr.isatty():
        return None, None
    try:
        from rich.progress import Progress
    except ImportError:
        return None, None
    bar = Progress(transient=True)
    task = bar.add_task("ingesting", total=None)

    def update(done: int, total: int | None, source: str) -> None:
        bar.update(task, completed=done, total=total, description=Path(source).name[:40] or "done")

    return bar, update


def cmd_ingest(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    kb = open_kb(args)
    bar, update = _progress(not args.json)
    options: dict[str, Any] = {
        # The paths named here are the user's choice: allowed, and walks stay inside them.
        "roots": [*(args.root or []), *_named_paths(args.sources)] or [str(Path.cwd())],
        "secrets": args.secrets,
        "collection": args.collection,
        "transcriber": _transcriber(settings),
    }
    aids: dict[str, Any] = {}
    try:
        if bar is not None:
            with bar:
                report = kb.ingest(args.sources, progress=update, **options)
        else:
            report = kb.ingest(args.sources, **options)
        aids = _wait_for_aids(kb)
    finally:
        kb.close()
    human = (
        f"added {len(report.added)}, updated {len(report.updated)}, unchanged "
        f"{len(report.unchanged)}, failed {len(report.failed)}, skipped {len(report.skipped)}; "
        f"{report.chunks} chunks in {report.seconds:.1f} s"
    )
    if aids:
        human += f"\n  search aids built ({', '.join(aids['built'])}) in {aids['seconds']:.1f} s"
    for skip in report.skipped:
        human += f"\n  skipped {printable(skip['path'])}: {printable(skip['reason'])}"
    if report.secrets:
        human += f"\n  secrets found and {args.secrets}ed: {len(report.secrets)}"
    if report.repeated_chunks:  # boilerplate, ranked below the rest: memo_core/kb/repeats.py
        human += f"\n  chunks of text repeated across documents: {report.repeated_chunks}"
    for flagged in report.flagged:  # never quoted as an answer; see memo_core/kb/flags.py
        human += f"\n  flagged {flagged['chunk_id']} ({', '.join(flagged['flags'])}): {flagged['source']}"
    _print(args, {**report.to_dict(), **({"search_aids": aids} if aids else {})}, human)
    if not args.json:  # the failures, once each, where errors go (--json has them)
        for failure in report.failed:
            naming = _naming(failure["source"], failure["error"])
            print(f"memo: failed: {printable(naming)}", file=sys.stderr)
    return EXIT_PARTIAL if report.failed else 0


def _wait_for_aids(kb: MemoBase) -> dict[str, Any]:
    """Finish the search aids an ingest made due (the base grew past
    ``aids_from_chunks``) before the process ends, which would stop their build."""
    aids = kb.searcher.aids
    if not aids.started:  # (it may have finished already: a small base builds fast)
        return {}
    start = time.perf_counter()
    aids.wait()
    ready = [
        kind for kind, state in kb.searcher.describe_aids().items() if state["state"] == "ready"
    ]
    return {"built": ready, "seconds": round(time.perf_counter() - start, 3)}


#: Exit code of an ingest where some sources failed (the others went in).
EXIT_PARTIAL = 1


def _named_paths(sources: list[str]) -> list[str]:
    """The local paths among ``sources`` (not URLs or YouTube ids), as the user typed them."""
    from memo_core.ingest.youtube import youtube_video_id

    return [
        s
        for s in sources
        if "://" not in s[:16] and (os.path.lexists(s) or not youtube_video_id(s))
    ]


def _naming(source: str, reason: str) -> str:
    """``reason``, naming ``source`` once (most reasons name their file already)."""
    return reason if source in reason else f"{source}: {reason}"


def cmd_search(args: argparse.Namespace) -> int:
    with open_kb(args) as kb:
        try:
            hits = kb.search(args.query, k=args.k, mode=args.mode, collection=args.collection)
        except BudgetExceededError as exc:  # the query embedding is a paid call
            _budget_note(exc, "keyword search only")
            hits = kb.search(args.query, k=args.k, mode="keyword", collection=args.collection)
    payload = [
        {
            "chunk_id": h.chunk_id,
            "document_id": h.document_id,
            "source": h.source,
            "title": h.title,
            "locator": h.locator,
            "score": h.score,
            "text": h.text,
        }
        for h in hits
    ]
    human = (
        "\n\n".join(
            f"[{i}] {printable(h.title or h.source)} {_where(h.locator)} (score {h.score:.3f})\n    "
            + h.text[:300].replace("\n", " ")
            for i, h in enumerate(hits, start=1)
        )
        or "no results"
    )
    _print(args, payload, human)
    return 0


def _where(locator: dict[str, Any]) -> str:
    if "page" in locator:
        return f"p. {locator['page']}"
    if "heading" in locator:
        return f"§ {locator['heading']}"
    if "start_time" in locator:
        return f"@ {float(locator['start_time']):.0f}s"
    if "line_start" in locator:
        return f"lines {locator['line_start']}-{locator['line_end']}"
    return ""


def _llm(args: argparse.Namespace) -> Any:
    settings = load_settings(args.config)
    spec = dict(settings.llm)
    if args.llm_base_url:
        spec["base_url"] = args.llm_base_url
    if args.llm_model:
        spec["model"] = args.llm_model
    if args.llm_key_env:
        spec["api_key_env"] = args.llm_key_env
    if not spec.get("base_url"):
        return None  # extractive mode
    from memo_core.llm import OpenAICompatibleLLM

    key_env = spec.get("api_key_env")
    key = settings.secret(key_env) if key_env else None
    options: dict[str, Any] = {}
    if key:  # a keyed endpoint is a paid one: charge the ledger (priced by provider)
        options = {"ledger": build_ledger(settings), "provider": _llm_provider(spec)}
    return OpenAICompatibleLLM(
        base_url=spec["base_url"], model=spec.get("model", "default"), api_key=key, **options
    )


def _llm_provider(spec: dict[str, Any]) -> str:
    """The price-table name of an LLM endpoint: ``provider:`` in the config, else its host."""
    from memo_core.ledger import provider_for_url

    return str(spec.get("provider") or provider_for_url(str(spec.get("base_url", ""))))


def cmd_ask(args: argparse.Namespace) -> int:
    from memo_core.answer.engine import Explanation, GuardedAnswerer

    explanation = Explanation(args.question) if args.explain else None
    llm = _llm(args)
    with open_kb(args) as kb:
        try:
            result = GuardedAnswerer(kb, llm, k=args.k).ask(
                args.question, collection=args.collection, explanation=explanation
            )
        except BudgetExceededError as exc:
            if llm is None:
                raise  # the query embedding itself is over budget: a clear error
            _budget_note(exc, "answering extractively (no LLM)")
            explanation = Explanation(args.question) if args.explain else None
            result = GuardedAnswerer(kb, None, k=args.k).ask(
                args.question, collection=args.collection, explanation=explanation
            )
    payload = result.to_dict()
    if explanation is not None:
        payload["explain"] = explanation.to_dict()
    if result.refused:
        human = f"Refused: {payload['reason']}"
        if payload["related"]:
            human += "\nNearby, but not an answer:" + "".join(
                f"\n  - {r['title'] or r['source']} {_where(r['locator'])}: {r['text'][:120]}"
                for r in payload["related"]
            )
    else:
        human = (
            payload["answer"]
            + "\n"
            + "\n".join(
                f'  [{i}] "{c["quote"]}" — {printable(c["title"] or c["source"])} '
                f"{_where(c['locator'])}"
                for i, c in enumerate(payload["citations"], start=1)
            )
        )
    if explanation is not None and not args.json:
        human += "\n\n" + json.dumps(
            explanation.to_dict(), ensure_ascii=False, indent=2, default=str
        )
    _print(args, payload, human)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    with open_kb(args, embedder=None) as kb:
        docs = kb.list_documents(args.collection)
    _print(
        args,
        [d.to_dict() for d in docs],
        "\n".join(
            f"{d.id}  {d.kind:8} {d.chunk_count:4} chunks  {printable(d.title or d.source)}"
            for d in docs
        )
        or "no documents",
    )
    return 0


def cmd_delete(args: argparse.Namespace) -> int:
    with open_kb(args, embedder=None) as kb:
        n = kb.delete(args.ids)
    _print(args, {"deleted": n}, f"deleted {n} document(s)")
    return 0 if n else 1


def cmd_status(args: argparse.Namespace) -> int:
    settings = load_settings(args.config)
    with open_kb(args, embedder=None) as kb:
        status = kb.status()
    # The ledger the paid providers write to; not created just to be read.
    spend: dict[str, float] = {}
    if Path(settings.spend_db).is_file():
        ledger = SpendLedger(settings.spend_db, settings.ceilings)
        spend = ledger.by_provider()
        ledger.db.close()
    status["spend_usd_this_month"] = spend
    status["spend_ceilings_usd"] = dict(settings.ceilings)
    status["spend_ledger"] = settings.spend_db
    _print(args, status, "\n".join(f"{k}: {v}" for k, v in status.items()))
    return 0


def cmd_reindex(args: argparse.Namespace) -> int:
    if not args.embedder:
        print("memo: error: --embedder is required for reindex", file=sys.stderr)
        return 2
    require_existing(args.db, "knowledge base")
    target = build_embedder(EmbedderSpec(provider=args.embedder), load_settings(args.config))
    if target is None:
        print("memo: error: reindex needs an embedder (not none)", file=sys.stderr)
        return 2
    kb = MemoBase(args.db, embedder=None, owner=args.owner, check_embedder=False)
    with kb:
        n = kb.reindex(target)
    _print(
        args,
        {"reindexed_chunks": n, "embedder": target.fingerprint.describe()},
        f"re-indexed {n} chunks with {target.fingerprint.describe()}",
    )
    return 0


def cmd_prepare(args: argparse.Namespace) -> int:
    require_existing(args.db, "knowledge base")
    settings = load_settings(args.config)
    search = build_search_settings(settings)
    overrides = {"vector_index": args.vector_index, "keyword_index": args.keyword_index}
    search = replace(search, **{k: v for k, v in overrides.items() if v})
    with MemoBase(args.db, embedder=None, owner=args.owner, settings=search) as kb:
        prepared = kb.prepare_search()
    human = "\n".join(
        f"{name}: {info.get('path') or 'in RAM'}, ready in {info['seconds']:.1f} s"
        for name, info in prepared.items()
    )
    _print(args, prepared, human or "nothing to prepare: the settings use no search aid")
    return 0


def register(subparsers: Any) -> None:
    kb = subparsers.add_parser("kb", help="the knowledge base (MemoBase)")
    sub = kb.add_subparsers(dest="kb_command", metavar="COMMAND", required=True)

    p = sub.add_parser("ingest", help="add files, folders, vaults, URLs or YouTube ids")
    p.add_argument("sources", nargs="+")
    p.add_argument("--collection", default="default")
    p.add_argument(
        "--root",
        action="append",
        help="a folder allowed beyond the named paths (repeatable), e.g. for links out of them",
    )
    p.add_argument("--secrets", choices=("block", "redact", "allow"), default="redact")
    _common(p)
    p.set_defaults(func=cmd_ingest, may_create=True)

    p = sub.add_parser("search", help="hybrid search")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--mode", choices=("hybrid", "keyword", "vector"), default="hybrid")
    p.add_argument("--collection")
    _common(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("ask", help="a guarded answer: verified quotes, or a refusal")
    p.add_argument("question")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--collection")
    p.add_argument("--explain", action="store_true", help="show candidates, gate and checks")
    p.add_argument("--llm-base-url", help="OpenAI-compatible endpoint (default: extractive mode)")
    p.add_argument("--llm-model")
    p.add_argument("--llm-key-env", help="environment variable holding the API key")
    _common(p)
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("list", help="list documents")
    p.add_argument("--collection")
    _common(p)
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("delete", help="delete documents by id")
    p.add_argument("ids", nargs="+")
    _common(p)
    p.set_defaults(func=cmd_delete)

    p = sub.add_parser("status", help="counts, embedder, this month's spend")
    _common(p)
    p.set_defaults(func=cmd_status)

    p = sub.add_parser(
        "prepare", help="build or update the search aids (HNSW, in-RAM keyword index) now"
    )
    p.add_argument("--vector-index", choices=VECTOR_INDEXES, help="default: memobase.search")
    p.add_argument("--keyword-index", choices=KEYWORD_INDEXES, help="default: memobase.search")
    _common(p)
    p.set_defaults(func=cmd_prepare)

    p = sub.add_parser("reindex", help="re-embed every chunk with another embedder, then swap")
    _common(p)
    p.set_defaults(func=cmd_reindex)
