"""Framework adapters for memo: LangChain and LlamaIndex (each an optional extra)."""
