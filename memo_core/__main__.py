"""``python -m memo_core`` runs the ``memo`` command line."""

import sys

from memo_core.cli import main

sys.exit(main())
