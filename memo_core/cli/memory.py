"""``memo memory ...``: capture, recall, history, forget, consolidate, export/import, back-fill
and the scenario replay used by the benchmark and independent checks
(:mod:`memo_core.memory.replay`; ``--as-of DATE`` answers every probe as of that date).

Every command takes ``--db FILE`` (or a ``sqlite:///`` / ``postgresql://`` URL) and ``--user USER`` (the namespace; required,
memo fails closed) and ``--json`` for machine-readable output. The embedder is
chosen with ``--embedder auto|local|hash|none``: ``auto`` reuses what the file was
built with, else the offline MiniLM model when installed, else keyword-only
(with a logged note).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memo_core.cli.bases import require_existing
from memo_core.config import EmbedderSpec, build_embedder, load_settings
from memo_core.embedders.base import Embedder, EmbedderFingerprint
from memo_core.errors import ConfigError, InvalidInputError, MemoError, SchemaError
from memo_core.storage import open_database
from memo_core.storage.url import file_of_url

# MemoHood is imported by the commands that open one, not with this module: the
# parser registers every command group, and ``memo kb ...`` must not pay for the
# memory's capture models and patterns.
if TYPE_CHECKING:
    from memo_core.memory import MemoHood

__all__ = ["make_embedder", "register"]

log = logging.getLogger(__name__)


# -- providers ----------------------------------------------------------------------------


def _stored_fingerprint(target: str) -> EmbedderFingerprint | None:
    """The embedder a memory base was built with; None for a new base (any backend)."""
    path = file_of_url(target)
    if path is not None and (path == ":memory:" or not Path(path).exists()):
        return None  # never create a file just to look inside it
    with contextlib.closing(open_database(target, load_vec=False)) as db:
        try:
            row = db.query_one("SELECT value FROM mem_meta WHERE key = 'embedder'")
        except SchemaError:  # a base without memory tables yet
            return None
    return EmbedderFingerprint.from_json(row[0]) if row else None


def _local() -> Embedder | None:
    try:
        from memo_core.embedders import default_local_embedder

        embedder = default_local_embedder()
        _ = embedder.dimensions  # loads the model now, so failures surface here
        return embedder
    except (ImportError, MemoError) as exc:
        log.warning("the default local embedder is unavailable (%s); recall is keyword-only", exc)
        return None


def make_embedder(
    choice: str, db_path: str, configured: EmbedderSpec | None = None
) -> Embedder | None:
    """The embedder for ``--embedder``; ``auto`` matches what the file already holds,
    else what ``config.yaml`` names (``memohood: embedder:``, which may be ``same`` as
    memobase's), else the offline default."""
    from memo_core.embedders.hash import HashEmbedder

    if choice == "none":
        return None
    if choice == "hash":
        return HashEmbedder()
    if choice == "local":
        embedder = _local()
        if embedder is None:
            raise ConfigError("--embedder local needs: pip install 'memo[local]'")
        return embedder
    stored = _stored_fingerprint(db_path)
    if stored is not None and stored.provider == "hash":
        return HashEmbedder(stored.dimensions, trigrams=stored.model.endswith("-tri"))
    if stored is None and configured is not None and configured != EmbedderSpec():
        return build_embedder(configured)
    return _local()


def _open(args: argparse.Namespace) -> MemoHood:
    """The memory ``--db`` names; only a command that writes (``may_create``) may create it."""
    from memo_core.memory import MemoHood, MemoryConfig, RecallGate

    if not getattr(args, "may_create", False):
        require_existing(args.db, "memory base")
    settings = load_settings(getattr(args, "config", None))
    gate_model = getattr(args, "gate_model", None) or settings.memory.get("gate_model")
    gate = RecallGate.default(gate_model) if gate_model else None
    return MemoHood(
        args.db,
        embedder=make_embedder(args.embedder, args.db, settings.memory_embedder),
        gate=gate,
        config=MemoryConfig.from_dict(settings.memory),
    )


def _when(text: str | None) -> datetime | None:
    from memo_core.memory.timeutil import parse_when

    return parse_when(text) if text else None


def _emit(args: argparse.Namespace, payload: Any, human: str) -> None:
    if args.json:
        print(json.dumps(payload, ensure_ascii=False))
    else:
        print(human)


# -- replay -------------------------------------------------------------------------------


def _cmd_replay(args: argparse.Namespace) -> int:
    from memo_core.memory.replay import load_scenarios, replay

    scenarios = load_scenarios(args.scenarios)
    as_of = _when(args.as_of)
    with _open(args) as memory:
        for run in replay(memory, scenarios, as_of=as_of):
            # The schema independent checks read; "as_of" only for a probe answered as of a date.
            row = {k: run[k] for k in ("id", "probe", "gate", "facts", "history")}
            if run["as_of"] is not None:
                row["as_of"] = run["as_of"]
            if args.json:
                print(json.dumps(row, ensure_ascii=False), flush=True)
            else:
                view = f" as of {run['as_of']}" if run["as_of"] else ""
                print(f"{row['id']}#{row['probe']} [{row['gate']}]{view}")
                for fact in row["facts"]:
                    print(f"    now: {fact}")
                for old in row["history"]:
                    print(f"    was: {old}")
    return 0


# -- everyday commands --------------------------------------------------------------------


def _cmd_capture(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        result = memory.capture(
            args.text,
            namespace=(args.user,),
            role=args.role,
            at=_when(args.at),
            session_id=args.session,
        )
    lines = [f"{result.decision} (score {result.score})"]
    lines += [
        f"  + {f.id} [{f.category}{', pinned' if f.pinned else ''}] {f.statement}"
        for f in result.added
    ]
    lines += [f"  ~ superseded {f.id}: {f.statement}" for f in result.superseded]
    lines += [f"  = reinforced {f.id}: {f.statement}" for f in result.reinforced]
    _emit(args, result.to_dict(), "\n".join(lines))
    return 0


def _cmd_recall(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        result = memory.recall(
            args.message,
            namespace=(args.user,),
            k=args.k,
            as_of=_when(args.as_of),
            at=_when(args.at),
            use_gate=not args.no_gate,
        )
    human = result.block or f"(gate: {result.gate.action}, score {result.gate.score})"
    _emit(args, result.to_dict(), human)
    return 0


def _cmd_history(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        versions = memory.history(args.fact_id, namespace=(args.user,))
    lines = []
    for fact in versions:
        until = fact.valid_to.isoformat() if fact.valid_to else "current"
        lines.append(f"v{fact.version} {fact.valid_from.isoformat()} -> {until}: {fact.statement}")
    _emit(args, [f.to_dict() for f in versions], "\n".join(lines))
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        facts = memory.list_facts(
            (args.user,), include_superseded=args.all, include_archived=args.all, prefix=True
        )
    lines = [
        f"{f.id} [{f.category}{', pinned' if f.pinned else ''}"
        f"{', superseded' if f.valid_to else ''}] {f.statement}"
        for f in facts
    ]
    _emit(args, [f.to_dict() for f in facts], "\n".join(lines) or "(no facts)")
    return 0


def _cmd_pin(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        change = memory.pin if args.memory_command == "pin" else memory.unpin
        fact = change(args.fact_id, namespace=(args.user,), at=_when(args.at))
    state = "pinned" if fact.pinned else "unpinned"
    _emit(args, fact.to_dict(), f"{state} {fact.id}: {fact.statement}")
    return 0


def _cmd_forget(args: argparse.Namespace) -> int:
    if not args.fact_id and not args.query:
        raise InvalidInputError("give a FACT_ID or --query")
    with _open(args) as memory:
        deleted = memory.forget(args.fact_id, namespace=(args.user,), query=args.query)
    _emit(args, {"deleted": deleted}, f"deleted {deleted} fact version(s)")
    return 0


def _cmd_consolidate(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        report = memory.consolidate(_when(args.now), namespace=(args.user,))
    payload = {
        "now": report.now.isoformat(),
        "examined": report.examined,
        "archived": list(report.archived),
        "pinned": report.pinned,
    }
    _emit(
        args,
        payload,
        f"examined {report.examined}, archived {len(report.archived)}, pinned {report.pinned}",
    )
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        if args.out:
            count = memory.export_jsonl(args.out, namespace=(args.user,))
        else:
            count = memory.export_jsonl(sys.stdout, namespace=(args.user,))
    if args.out:
        _emit(args, {"records": count, "out": args.out}, f"wrote {count} records to {args.out}")
    return 0


def _cmd_import(args: argparse.Namespace) -> int:
    user = args.user
    with open(args.file, encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    mine = [
        r
        for r in records
        if r.get("type") not in ("fact", "turn", "message")
        or (r.get("namespace") or [None])[0] == user
    ]
    skipped = len(records) - len(mine)
    with _open(args) as memory:
        report = memory.import_jsonl(mine)
    payload = {**report.to_dict(), "other_users_skipped": skipped}
    _emit(
        args,
        payload,
        f"imported {report.facts} facts, {report.turns} turns, "
        f"{report.messages} messages ({report.skipped} already present, "
        f"{skipped} of other users skipped)",
    )
    return 0


def _cmd_backfill(args: argparse.Namespace) -> int:
    with _open(args) as memory:
        report = memory.backfill(args.file, namespace=(args.user,))
    _emit(
        args,
        report.to_dict(),
        f"{report.turns} turns: {report.facts_added} facts added, "
        f"{report.superseded} superseded, "
        f"{report.reinforced} reinforced",
    )
    return 0


# -- parser -------------------------------------------------------------------------------


def _common(parser: argparse.ArgumentParser, *, user: bool = True) -> None:
    parser.add_argument(
        "--db",
        required=True,
        help="the memory base: a SQLite file, sqlite:///path.db or postgresql://...?schema=name",
    )
    if user:
        parser.add_argument("--user", required=True, help="whose memory (the namespace)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--embedder",
        choices=("auto", "local", "hash", "none"),
        default="auto",
        help="vectors for recall (default: auto)",
    )
    parser.add_argument("--gate-model", help="Model2Vec folder or name for the recall gate")
    parser.add_argument("--config", help="config.yaml (default: ./config.yaml, ~/.config/memo/)")


def register(subparsers: Any) -> None:
    """Add ``memo memory ...`` to the CLI."""
    memory = subparsers.add_parser("memory", help="long-term conversation memory (MemoHood)")
    sub = memory.add_subparsers(dest="memory_command", metavar="ACTION")

    p = sub.add_parser("replay", help="replay eval scenarios and print what each probe recalls")
    p.add_argument("scenarios", help="scenarios JSON Lines (eval/memory schema)")
    p.add_argument(
        "--as-of",
        help="answer every probe from the versions current then (ISO 8601; default: each "
        "probe's own as_of, else now)",
    )
    _common(p, user=False)
    p.set_defaults(memory_func=_cmd_replay, may_create=True)

    p = sub.add_parser("capture", help="capture one conversation turn")
    p.add_argument("text")
    _common(p)
    p.add_argument("--role", default="user", choices=("user", "assistant", "system"))
    p.add_argument("--at", help="when it was said (ISO 8601; default now)")
    p.add_argument("--session", help="session id")
    p.set_defaults(memory_func=_cmd_capture, may_create=True)

    p = sub.add_parser("recall", help="what memory recalls for a message")
    p.add_argument("message")
    _common(p)
    p.add_argument("--k", type=int, default=None, help="searched facts to return")
    p.add_argument("--as-of", help="answer with what was current then (ISO 8601)")
    p.add_argument("--at", help="the current time (ISO 8601; default now)")
    p.add_argument("--no-gate", action="store_true", help="always recall")
    p.set_defaults(memory_func=_cmd_recall)

    p = sub.add_parser("history", help="every version of a fact")
    p.add_argument("fact_id")
    _common(p)
    p.set_defaults(memory_func=_cmd_history)

    p = sub.add_parser("list", help="the user's facts")
    _common(p)
    p.add_argument("--all", action="store_true", help="include superseded and archived")
    p.set_defaults(memory_func=_cmd_list)

    for action, what in (
        ("pin", "pin a fact: it never decays or archives"),
        ("unpin", "unpin a fact: it decays from full strength again"),
    ):
        p = sub.add_parser(action, help=what)
        p.add_argument("fact_id")
        _common(p)
        p.add_argument("--at", help="when (ISO 8601; default now)")
        p.set_defaults(memory_func=_cmd_pin)

    p = sub.add_parser("forget", help="delete a fact (all versions) or facts matching --query")
    p.add_argument("fact_id", nargs="?")
    _common(p)
    p.add_argument("--query", help="delete facts (and turns) matching this text")
    p.set_defaults(memory_func=_cmd_forget)

    p = sub.add_parser("consolidate", help="decay and archive weak facts (background job)")
    _common(p)
    p.add_argument("--now", help="the time to decay to (ISO 8601; default now)")
    p.set_defaults(memory_func=_cmd_consolidate)

    p = sub.add_parser("export", help="export every fact version, turn and message (JSONL)")
    _common(p)
    p.add_argument("--out", help="output file (default: stdout)")
    p.set_defaults(memory_func=_cmd_export)

    p = sub.add_parser("import", help="import an export (records of --user only)")
    p.add_argument("file")
    _common(p)
    p.set_defaults(memory_func=_cmd_import, may_create=True)

    p = sub.add_parser("backfill", help="capture an existing chat history (JSONL, timestamps)")
    p.add_argument("file")
    _common(p)
    p.set_defaults(memory_func=_cmd_backfill, may_create=True)

    def dispatch(args: argparse.Namespace) -> int:
        handler = getattr(args, "memory_func", None)
        if handler is None:
            memory.print_help()
            return 2
        return int(handler(args))

    memory.set_defaults(func=dispatch)
