# Partida — the two commands a newcomer needs are `make demo` and `make test`.
VENV     := .venv
PY       := $(VENV)/bin/python
STAMP    := $(VENV)/.installed
HOST     ?= 127.0.0.1
PORT     ?= 8000

.PHONY: help install demo test lint format bench lock serve clean

help:
	@echo "make demo     set up, load the demo campaign and serve it on http://$(HOST):$(PORT)"
	@echo "make test     set up and run the whole suite (SQLite; PostgreSQL/Redis when DATABASE_URL/REDIS_URL are set;"
	@echo "              browser tests with Debian's /usr/bin/chromium, which .ci/run installs)"
	@echo "make install  only the virtual environment, from requirements.lock"
	@echo "make bench    benchmarks (tests/bench) on a fresh PostgreSQL database when one answers, else SQLite;"
	@echo "              prints one table and writes bench-results.json"
	@echo "make lint     ruff, import-linter and mypy"
	@echo "make lock     recompile requirements.lock from pyproject.toml"

install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	@PYTHON=$$(scripts/find-python) || exit 1; \
	echo "Using $$PYTHON ($$($$PYTHON --version))"; \
	test -x $(PY) || $$PYTHON -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.lock
	@touch $(STAMP)

demo: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput -v0
	$(PY) manage.py cargar_demo
	@echo
	@echo "Partida is served on http://$(HOST):$(PORT)/  (Ctrl-C stops it)"
	$(PY) manage.py runserver --noreload $(HOST):$(PORT)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

test: install lint
	@test -x /usr/bin/chromium || echo "Note: /usr/bin/chromium is missing, so the browser tests (tests/e2e) are skipped; .ci/run installs it (apt-get install -y chromium)."
	$(VENV)/bin/pytest $(PYTEST_ARGS)

bench: install
	scripts/bench $(PYTEST_ARGS)

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

lock:
	@PYTHON=$$(scripts/find-python) || exit 1; \
	$$PYTHON -m venv /tmp/partida-uv && /tmp/partida-uv/bin/pip install --quiet uv && \
	/tmp/partida-uv/bin/uv pip compile pyproject.toml --extra dev --python-version 3.12 -o requirements.lock

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache db.sqlite3
