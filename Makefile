# One-command set-up: `make run` starts the server, `make test` runs every check.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint bench install clean i18n tables

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

run: install
	$(BIN)/perudo serve --host $(HOST) --port $(PORT)  # migrates the database as it starts

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict app

test: lint
	$(BIN)/pytest --cov --cov-report=term

i18n: install  # after changing a page's or script's text; then translate the new empty msgstr lines
	$(BIN)/pybabel extract -F babel.cfg -k t -k n:1,2 -k tNodes --no-wrap --sort-by-file -o locale/messages.pot .
	$(BIN)/pybabel update -i locale/messages.pot -d locale -w 100 --ignore-obsolete
	rm locale/messages.pot

bench: install
	$(BIN)/python bench/engine.py

tables: install  # remake the expert's heads-up tables (app/engine/tables/headsup.bin), ~12 min CPU
	$(BIN)/python bench/solver.py build

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
