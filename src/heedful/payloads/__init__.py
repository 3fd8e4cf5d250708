"""Typed record payloads: what a suite stores in `Record.prediction`, as models that the suite writes and the
metrics read (neither imports the other; this package imports only pydantic)."""
