"""Language-model backends: OpenAI-compatible HTTP, an embedded llama.cpp server, structured output,
a response cache, retries, usage and budgets. Nothing heavy is imported here (openai and xllamacpp load
on first use).

- `request`: requests, results, cache keys       - `client`: the OpenAI-compatible backend
- `server`, `embedded`, `models`: the in-process llama.cpp server and model files
- `engine`: cache + budget + retries around a backend     - `cache`: the SQLite response cache
- `structured`: JSON schemas of decisions answers          - `prompts`: prompt templates kept as files
- `usage`: usage meter, prices and budgets                 - `serve`: `python -m heedful.llm.serve`
"""
