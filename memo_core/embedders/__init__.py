"""memo_core.embedders."""
