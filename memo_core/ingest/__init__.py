"""memo_core.ingest."""
