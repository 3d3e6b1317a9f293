"""LlamaIndex adapters for memo (pip install "memo[llamaindex]")."""
