# perflab: `make book` builds the HTML book (reference runs; no Docker needed);
# `make test` sets up everything on a fresh machine and runs the tests (labs live, book build).
PY      ?= python3
VENV    := .venv
VPY     := $(VENV)/bin/python
PERFLAB := scripts/perflab

.PHONY: setup system venv images book test test-fast clean check-clean bench lab-image
setup: system venv images

system:
	bash scripts/setup-system.sh

venv: $(VENV)/.installed
$(VENV)/.installed: requirements.lock pyproject.toml setup.py perflab/fio/_scan.c
	$(VPY) -m pip --version >/dev/null 2>&1 || $(PY) -m venv --clear $(VENV)   # none, or half made
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q -r requirements.lock
	$(VPY) -m pip install -q --no-deps -e .
	touch $@

images: system venv
	$(PERFLAB) images

book: venv
	$(PERFLAB) book

test: setup
	$(VENV)/bin/pytest -v -rs --durations=40

# The tests outside the default run (marked long): more labs through paths the default run takes
# with one (interruptions, runs inside the lab-host image, a live ht mystery, ...). About 15 minutes.
test-long: setup
	$(VENV)/bin/pytest -v -rs -m long

test-fast: venv
	$(VENV)/bin/pytest -v -rs -m "not docker and not slow"

clean:
	$(PERFLAB) clean

check-clean:
	$(PERFLAB) clean --check

bench: setup
	$(VPY) benchmarks/bench_pipeline.py --container perflab/fio:1

# The lab-host image (Docker-in-Docker: perflab, its environment, the host tools, an engine of its
# own) on Debian 13, or on Debian 12 with `make lab-image SUITE=bookworm`. Run it with scripts/lab-host.
SUITE ?= trixie
lab-image: system
	bash scripts/build-lab-image.sh $(SUITE)
