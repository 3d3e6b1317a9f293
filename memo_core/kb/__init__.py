"""memo_core.kb."""
