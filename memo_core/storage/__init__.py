"""memo_core.storage."""
