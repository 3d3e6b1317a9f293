"""Framework adapters for memo: LangChain and LlamaIndex (each an optional extra)."""

__all__: list[str] = []  # the adapters are imported from their own packages
