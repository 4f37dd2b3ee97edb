# Two entry points: `make run` serves the hub, `make test` runs every test. Both set themselves up.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
STAMP   = $(VENV)/.installed
WEBSTAMP = web/node_modules/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
TEST_WORKERS ?= 2

.PHONY: setup run test lint bench conformance clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -U pip
	$(PY) -m pip install -q -e '.[dev,fast]' --config-settings editable_mode=compat
	touch $(STAMP)

$(WEBSTAMP): web/package.json
	cd web && npm install --no-audit --no-fund --loglevel=error
	touch $(WEBSTAMP)

setup: $(STAMP) $(WEBSTAMP)

run: setup
	$(PY) -m hub serve --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(PY) -m ruff check $(wildcard hub rules tests bench)
	$(PY) -m mypy

# Independent tests run on one worker per core; the few that measure shares of wins over real delays
# or memory over time (marked `serial`) run after them, alone.
test: setup lint
	$(PY) -m pytest -q -p no:cacheprovider -n $(TEST_WORKERS) -m "not serial"
	$(PY) -m pytest -q -p no:cacheprovider -m serial

bench: setup
	$(PY) -m bench

clean:
	rm -rf $(VENV) web/node_modules
