"""``memo backup``, ``memo restore`` and ``memo setup``: keeping a memo file safe, and configured.

``--json`` output is stable: ``backup`` prints ``{backup, kept: [paths, oldest first]}``,
``restore`` prints ``{restored, from, replaced}`` (``replaced`` is null when there was
no file to replace). Both work on a knowledge-base file and on a memory file.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["register"]


def _print(args: argparse.Namespace, payload: Any, human: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps(payload, ensure_ascii=False, indent=2, default=str))
    else:
        print(human)


@contextlib.contextmanager
def _terminate_cleanly() -> Iterator[None]:
    """SIGTERM (``kill``, a service stop) unwinds like an exception, so the temp file
    of a backup or restore is removed rather than left behind (by default Python
    dies at once). A SIGKILL cannot be caught: the next run removes its leftovers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def cmd_backup(args: argparse.Namespace) -> int:
    from memo_core.backup import backup_database, list_backups

    with _terminate_cleanly():
        made = backup_database(args.db, args.out, keep=args.keep)
    kept = list_backups(args.db, args.out)
    _print(
        args,
        {"backup": str(made), "kept": [str(p) for p in kept]},
        f"backup written and verified: {made} ({len(kept)} kept in {Path(args.out)})",
    )
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    from memo_core.backup import restore_database

    with _terminate_cleanly():
        replaced = restore_database(args.db, args.source)
    human = f"restored {args.db} from {args.source}"
    if replaced is not None:
        human += f"; the previous file is kept as {replaced}"
    _print(
        args,
        {
            "restored": str(args.db),
            "from": str(args.source),
            "replaced": None if replaced is None else str(replaced),
        },
        human,
    )
    return 0


def cmd_setup(args: argparse.Namespace) -> int:
    from memo_core.setup_wizard import Endpoints, SetupWizard

    defaults = Endpoints()
    endpoints = Endpoints(
        cloudflare=args.cloudflare_url or defaults.cloudflare,
        cohere=args.cohere_url or defaults.cohere,
        whisper=args.whisper_url,
        llm_default=args.llm_url or defaults.llm_default,
        local_llm_default=args.llm_url or defaults.local_llm_default,
    )
    if sys.stdin.isatty():
        wizard = SetupWizard(args.config_dir, endpoints=endpoints)
    elif args.stdin:  # a script pipes the answers, keys included, one a line
        wizard = SetupWizard(args.config_dir, endpoints=endpoints, ask=input, ask_secret=input)
    else:  # no terminal and no answers: only the options may answer, else refuse
        wizard = SetupWizard(
            args.config_dir, endpoints=endpoints, ask=_no_terminal, ask_secret=_no_terminal
        )
    wizard.run(args.mode, llm=not args.no_llm, embedding=args.embedding)
    return 0


def _no_terminal(prompt: str) -> str:
    """Without a terminal, a question no option answered is an error, not a default:
    ``memo setup < /dev/null`` must not write a configuration nobody chose."""
    from memo_core.errors import ConfigError

    question = prompt.strip().rstrip(":").strip()
    raise ConfigError(
        f"memo setup needs a terminal to ask {question!r}; answer with options "
        "(--mode local --embedding english --no-llm) or pipe the answers one a line with --stdin"
    )


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("backup", help="an online, verified copy of a memo file (rotated)")
    p.add_argument("--db", required=True, help="the knowledge-base or memory file")
    p.add_argument("--out", required=True, help="folder for the backups")
    p.add_argument("--keep", type=int, default=7, help="how many backups to keep (default 7)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_backup)

    p = subparsers.add_parser(
        "restore", help="replace a memo file with a verified backup (the old one is kept)"
    )
    p.add_argument("--db", required=True, help="the file to replace")
    p.add_argument("--from", dest="source", required=True, help="the backup to restore")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_restore)

    p = subparsers.add_parser("setup", help="interactive setup: local or cloud, keys checked live")
    p.add_argument(
        "--config-dir", help="where config.yaml and secrets.env go (default: ~/.config/memo)"
    )
    p.add_argument("--mode", choices=("local", "cloud"), help="skip the first question")
    p.add_argument("--cloudflare-url", help="Cloudflare API base (default: the public API)")
    p.add_argument("--cohere-url", help="Cohere API base (default: https://api.cohere.com)")
    p.add_argument("--whisper-url", help="transcription API base (default: ask)")
    p.add_argument("--llm-url", help="suggested LLM base URL")
    p.add_argument("--no-llm", action="store_true", help="no LLM: extractive answers")
    p.add_argument(
        "--embedding",
        choices=("english", "multilingual"),
        help="local mode: english (no download) or multilingual (one download, about 2.2 GB)",
    )
    p.add_argument(
        "--stdin",
        action="store_true",
        help="read the answers (keys too) from standard input, one a line, for scripts",
    )
    p.set_defaults(func=cmd_setup)
