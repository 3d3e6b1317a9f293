"""LangChain adapters for memo (pip install "memo[langchain]")."""
