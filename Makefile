# The whole setup is `make demo` and `make test`; both create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu

.PHONY: demo test install bench leaderboard serve clean

$(STAMP): setup.cfg pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first and pinned: an unpinned torch pulls a CUDA build of several GB; PyPI's 2.13.0 is one too,
	# so pip is shown PyTorch's CPU index, whose 2.13.0+cpu it prefers (`make test TORCH_INDEX=` skips it)
	$(PY) -m pip install --quiet --no-compile --retries 1 $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) \
		torch==2.13.0
	$(PY) -m pip install --quiet --no-compile -e '.[all]'
	# PyPI's unrelated `envs` package, for the test that installs our wheel beside it
	$(PY) -m pip download --quiet --no-deps --only-binary=:all: -d $(VENV)/wheels envs==1.4
	touch $(STAMP)

install: $(STAMP)

# Bytecode: pip installs without compiling (it compiles one file at a time, 49 s of a 74 s install here),
# and Python writes the bytecode of each module the first time a process imports it, so only what runs is
# compiled, once; without it every process of the suite (test workers, scripts, Ray workers) compiles torch
# and octagames again on import (2.8-3.2 s for `import torch` against 1.7-2.0 s). Where the environment
# sets PYTHONDONTWRITEBYTECODE Python writes none, so the recipes run without it.
unexport PYTHONDONTWRITEBYTECODE

# warmup: the one-time compile of every game's kernels (seconds once cached; it prints how long it took)
demo: $(STAMP)
	$(PY) -m octagames.experiments.warmup
	$(PY) -m octagames.experiments.demo

# the suite runs on every core (pytest-xdist), one test file per worker at a time; it prints its wall time
test: $(STAMP)
	$(PY) -m octagames.experiments.warmup
	$(PY) -m pytest -q -n auto --dist loadfile --durations=15

bench: $(STAMP)
	$(PY) -m octagames.experiments.bench

# every game's round robin on every core (Ray tasks; 28 min on two cores on 2026-11-24, about 45 min estimated since the Octa zoo models search by rollouts); docs/leaderboard.md and docs/img/leaderboard_*.png
leaderboard: $(STAMP)
	$(PY) -m octagames.experiments.leaderboard --ray

# the web app on http://127.0.0.1:8088/ (play against the bots, open replays); PORT=9000 make serve
PORT ?= 8088
serve: $(STAMP)
	$(PY) -m octagames.experiments.serve --port $(PORT)

clean:
	rm -rf $(VENV) runs/*.json runs/*.png octagames/_cache
