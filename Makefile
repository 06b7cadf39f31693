# Partida — the two commands a newcomer needs are `make demo` and `make test`.
VENV     := .venv
PY       := $(VENV)/bin/python
STAMP    := $(VENV)/.installed
HOST     ?= 127.0.0.1
PORT     ?= 8000
# Links in the demo's e-mails point at the port it is served on.
SITE_URL ?= http://$(HOST):$(PORT)

.PHONY: help install demo test lint format bench load lock serve clean

help:
	@echo "make demo     set up, load the demo campaign and serve it on http://$(HOST):$(PORT)"
	@echo "make test     set up and run the whole suite (SQLite; PostgreSQL/Redis when DATABASE_URL/REDIS_URL are set;"
	@echo "              browser tests with Debian's /usr/bin/chromium, which .ci/run installs)"
	@echo "make install  only the virtual environment, from requirements-dev.lock (runtime + dev, hashed)"
	@echo "make bench    benchmarks (tests/bench) on a fresh PostgreSQL database (BENCH_DB, default partida_bench)"
	@echo "              when one answers, else SQLite;"
	@echo "              prints one table and writes bench-results.json"
	@echo "make load     load test: 50 players post with rolls and read a scene for 60 s (locust, gunicorn,"
	@echo "              a fresh PostgreSQL database); prints req/s, p50/p95/p99, errors; checks 0 lost"
	@echo "make lint     ruff, import-linter and mypy"
	@echo "make lock     recompile requirements.lock (runtime) and requirements-dev.lock from pyproject.toml"

install: $(STAMP)

$(STAMP): requirements-dev.lock pyproject.toml
	@PYTHON=$$(scripts/find-python) || exit 1; \
	echo "Using $$PYTHON ($$($$PYTHON --version))"; \
	test -x $(PY) || $$PYTHON -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements-dev.lock
	@touch $(STAMP)

# Quiet: the set-up, then the URL and the logins last (cargar_demo prints them); e-mails go to
# files under var/mail/ (EMAIL_BACKEND=console prints them instead); runserver's own banner is
# not printed, its request log and errors are (stderr).
demo: install
	@$(PY) manage.py migrate --noinput -v0
	@$(PY) manage.py collectstatic --noinput -v0
	@SITE_URL=$(SITE_URL) LOG_LEVEL=$${LOG_LEVEL:-WARNING} $(PY) manage.py cargar_demo --url $(SITE_URL)/
	@SITE_URL=$(SITE_URL) $(PY) manage.py runserver --noreload --skip-checks $(HOST):$(PORT) >/dev/null

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

load: install
	scripts/load

format: install
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# Two hashed locks: requirements.lock (runtime: the Docker image) and requirements-dev.lock (the
# same runtime pins plus the tools: the venv). Existing pins are kept unless pyproject.toml
# needs another version (uv prefers what the output file already pins).
UV_COMPILE := /tmp/partida-uv/bin/uv pip compile pyproject.toml --python-version 3.12 --generate-hashes --quiet
lock:
	@PYTHON=$$(scripts/find-python) || exit 1; \
	test -x /tmp/partida-uv/bin/uv || { $$PYTHON -m venv /tmp/partida-uv && /tmp/partida-uv/bin/pip install --quiet uv; }
	$(UV_COMPILE) -o requirements.lock
	$(UV_COMPILE) --extra dev -c requirements.lock -o requirements-dev.lock

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache db.sqlite3
