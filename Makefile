# Convenience targets; the README's two commands need only Python and pip.
PY := .venv/bin/python

.venv/bin/python:
	python3 -m venv .venv
	.venv/bin/pip install -q -e ".[all,dev]"

demo: .venv/bin/python
	.venv/bin/memo demo

test: .venv/bin/python
	$(PY) -m pytest -q

lint: .venv/bin/python
	$(PY) -m ruff format --check memo_core memo_integrations tests bench
	$(PY) -m ruff check .
	$(PY) -m mypy memo_core memo_integrations

bench: .venv/bin/python
	$(PY) -m pip install -q -e ".[bench]"
	$(PY) bench/retrieval.py && $(PY) bench/calibrate_gate.py && $(PY) bench/verifier.py
	$(PY) bench/ingest.py && $(PY) bench/answer_eval.py && $(PY) bench/memory_eval.py

.PHONY: demo test lint bench
