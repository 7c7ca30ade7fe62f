# The whole setup is `make demo` and `make test`; both create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test install bench clean

$(STAMP): setup.cfg pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first and pinned: an unpinned torch pulls a CUDA build of several GB
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[all]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(PY) -m experiments.demo

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) -m experiments.bench

clean:
	rm -rf $(VENV) runs/*.json runs/*.png
