"""JSON Schema from signatures and docstrings (pydantic only where needed)."""
