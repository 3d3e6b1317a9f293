"""memo_core.answer."""
