"""memo_core.search."""
