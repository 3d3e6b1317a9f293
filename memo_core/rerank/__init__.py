"""memo_core.rerank."""
