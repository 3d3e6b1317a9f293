"""``memo recall "MESSAGE" --kb FILE --memory FILE --user U``: one context from both sources.

Runs :func:`memo_core.unified.recall_all`: the memory gate and recall (for
``--user``, the namespace; required with ``--memory``, memo fails closed), a
hybrid search of the knowledge base (for ``--owner``), Reciprocal Rank Fusion
with per-source weights, conflict flags and one token budget. Prints the fenced
context block, or with ``--json`` an object::

    {"message", "gate", "items": [{"ref", "source": "memory"|"kb", "kind", "rank",
     "source_rank", "score", "label", "text", ...dates/version or locator...}],
     "conflicts": [{"subject", "attribute", "kind", "sides": [{"ref", "value"}]}],
     "token_budget", "tokens", "dropped", "weights", "context"}

Either file may be left out (memory only, or documents only), not both.
"""

from __future__ import annotations

import argparse
import json
from contextlib import ExitStack
from typing import Any

from memo_core.cli.engines import add_engine_options, open_kb_from, open_memory_from
from memo_core.errors import InvalidInputError

__all__ = ["register"]


def cmd_recall(args: argparse.Namespace) -> int:
    from memo_core.memory.timeutil import parse_when
    from memo_core.unified import recall_all

    if not args.kb and not args.memory:
        raise InvalidInputError("give --kb FILE, --memory FILE or both")
    if args.memory and not args.user:
        raise InvalidInputError("--memory needs --user (whose memory to read)")
    with ExitStack() as stack:
        memory = stack.enter_context(open_memory_from(args, create=False)) if args.memory else None
        kb = stack.enter_context(open_kb_from(args, create=False)) if args.kb else None
        result = recall_all(
            args.message,
            memory=memory,
            kb=kb,
            namespace=(args.user,) if args.user else None,
            owner=args.owner,
            k=args.k,
            weights={"memory": args.memory_weight, "kb": args.kb_weight},
            token_budget=args.budget,
            at=parse_when(args.at) if args.at else None,
            use_gate=not args.no_gate,
            collection=args.collection,
        )
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2, default=str))
    elif result.items:
        print(result.render())
    else:
        gate = f"gate: {result.gate.action}; " if result.gate is not None else ""
        print(f"(nothing recalled; {gate}budget {result.token_budget} tokens)")
    return 0


def register(subparsers: Any) -> None:
    """Add ``memo recall`` to the CLI."""
    p = subparsers.add_parser(
        "recall", help="one ranked, conflict-aware context from memory and the knowledge base"
    )
    p.add_argument("message", help="the incoming user message")
    p.add_argument("--kb", help="the knowledge base: a file, sqlite:///... or postgresql://...")
    p.add_argument("--memory", help="the memory: a file, sqlite:///... or postgresql://...")
    p.add_argument("--user", help="whose memory (the namespace; required with --memory)")
    p.add_argument("--owner", default="default", help="owner of the documents (default: default)")
    p.add_argument("-k", type=int, default=8, help="items asked of each source and kept in all")
    p.add_argument("--budget", type=int, default=1500, help="token budget of the context")
    p.add_argument("--memory-weight", type=float, default=1.0, help="RRF weight of memory")
    p.add_argument("--kb-weight", type=float, default=1.0, help="RRF weight of the documents")
    p.add_argument("--collection", help="search only this knowledge-base collection")
    p.add_argument("--at", help="'now' for memory decay (ISO 8601; default: now)")
    p.add_argument("--no-gate", action="store_true", help="always recall memory")
    add_engine_options(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_recall)
