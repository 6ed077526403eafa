"""The book's benchmark harness, run by `scripts/bench`. One module per benchmark (its NAME
with `-` as `_`), sharing `common.py`; `__main__.py` finds them, so adding a benchmark is
adding a file."""
