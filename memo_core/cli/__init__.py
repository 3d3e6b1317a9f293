"""The ``memo`` command line (``memo = memo_core.cli:main``); the parser lives in ``app``.

Each command group lives in its own module exposing ``register(subparsers)``.
"""

from memo_core.cli.app import EXIT_ERROR, EXIT_PIPE, PrintableFormatter, build_parser, main

__all__ = ["EXIT_ERROR", "EXIT_PIPE", "PrintableFormatter", "build_parser", "main"]
