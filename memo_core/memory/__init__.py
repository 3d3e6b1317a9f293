"""memo_core.memory."""
