# The commands a learner types. `make book` and `make test` set everything up on first use.
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
TORCH   ?= torch==2.13.0

.PHONY: setup book test export lab clean

setup: $(STAMP)

# The virtual environment: torch first (pinned to the CPU build this course is tested with;
# override TORCH=... for a CUDA build), then the package itself in editable mode with its
# development extras.
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q "$(TORCH)"
	$(BIN)/pip install -q -e ".[dev]"
	touch $(STAMP)

export: $(STAMP)
	$(BIN)/nbdev-export

test: $(STAMP)
	$(BIN)/python -m pytest

lab: $(STAMP)
	$(BIN)/jupyter lab chapters/

clean:
	rm -rf _build
