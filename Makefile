# The commands a learner types. `make book` and `make test` set everything up on first use.
#
#   make book      create .venv, install everything, export the package, build the book
#                  into _build/html/index.html (executing the chapters whose code or inputs
#                  changed since the last build: every chapter, the first time)
#   make test      create .venv if needed, then run the whole test suite (pytest): it
#                  builds the book the same way (right after `make book`: nothing to do)
#                  and checks it in a headless browser
#   make quicktest the suite without its slow end-to-end group (pytest -m "not e2e": no
#                  book build, no real training runs), for a quick check while editing
#   make lab       open the chapters in JupyterLab
#   make lint      ruff: lint the package, the course toolkit, the tools and the tests; check
#                  the format of all but the generated package (settings in pyproject.toml)
#   make nbtest    run every chapter with nbdev-test
#   make grade EX=exercises/01_attention.ipynb     grade one exercise
#   make grades    one table of all exercises graded so far (points and misses)
#   make exercises regenerate exercises/ from solutions/
#
# Using an environment of your own (e.g. conda, see environment.yml) instead of .venv:
#   make book BIN=$CONDA_PREFIX/bin
PY       ?= python3
VENV     ?= .venv
BIN      ?= $(VENV)/bin
# torch is installed first, pinned to the CPU build the course is tested with. For a GPU,
# pass a CUDA build on a fresh checkout, e.g. `make setup TORCH=torch` (extra pip
# arguments are allowed: TORCH="torch --index-url URL").
TORCH    ?= torch==2.13.0
# MathJax 3 from npm, served by the book itself so math renders offline.
MATHJAX  ?= mathjax@3.2.2
MJ_DIR   := .cache/mathjax
MJ_STAMP := $(MJ_DIR)/installed-$(MATHJAX)
# Chapter 10's in-page translator runs on onnxruntime-web (WebAssembly) and Hugging Face's
# JavaScript tokenizers, both from npm; tools/book/book_translator.py copies them into the site.
ORT_WEB  ?= onnxruntime-web@1.30.0
TOK_JS   ?= @huggingface/tokenizers@0.2.0
JS_DIR   := .cache/translator-js
JS_STAMP := $(JS_DIR)/installed-$(ORT_WEB)-$(subst /,-,$(TOK_JS))
# -W: any warning (a failing cell included) fails the build; -n: nitpicky references;
# --keep-going: report every problem, not just the first.
BOOK_FLAGS ?= -W -n --keep-going
# The chapters are executed before the build, into the jupyter-cache the build reads, one per
# core (jupyter-cache's `local-parallel` executor; tools/book/build.py).
# The tests run on every core (pytest-xdist), a test file per worker at a time (--dist loadfile):
# the book's tests stay together, so the book is built once. PYTEST_ARGS="-n 0" runs them one by one.
PYTEST_ARGS ?= -n auto --dist loadfile
# Multi30k: the package reads $$MULTI30K_DIR, else its download cache (filled on first use). A copy
# next to the repository (machines without internet keep one there) is used when the variable is unset.
MULTI30K_DIR ?= $(wildcard $(abspath ../shared/data/multi30k))
ifneq ($(MULTI30K_DIR),)
export MULTI30K_DIR
endif

# The .venv is ours to create and fill; an environment passed as BIN is used as it is.
ifeq ($(abspath $(BIN)),$(abspath $(VENV)/bin))
STAMP := $(VENV)/.installed
else
STAMP :=
endif

.PHONY: setup export book site mathjax translator-js test quicktest lint nbtest lab exercises grade grades clean distclean

setup: $(STAMP)

ifneq ($(STAMP),)
# The virtual environment: torch first, then the package itself in editable mode with
# its development extras (Jupyter Book, JupyterLab, nbdev, pytest, ...).
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(TORCH)
	$(BIN)/pip install -q -e ".[dev]"
	touch $(STAMP)
endif

# transformer/ is generated from chapters/*.ipynb.
export: $(STAMP)
	$(BIN)/nbdev-export

# The book, from the chapters as they are on disk.
book: export
	@$(MAKE) --no-print-directory site

# The book from the package as it is (no export): what the tests build and check.
# `python -m tools.book.build` (its docstring says more):
# - when the course's code (transformer/, transformer_course/), models/, results/,
#   pyproject.toml or the installed environment changed since the last build, by content, it
#   clears the jupyter-cache (_build/.jupyter_cache, kept between builds): every chapter runs;
# - jupyter-cache executes, side by side, the chapters whose outputs the cache does not hold
#   for their code cells (a failing chapter stops here, after all have run, with its traceback);
# - `jupyter-book build` reads the outputs from the cache (`execute_notebooks: cache` in
#   _config.yml), and Sphinx reads again only the pages that changed.
# Nothing changed since the last build: nothing is executed, nothing read again; it prints
# "book: built; executed 0 of the N chapters (all taken from the cache); Sphinx: 0 added,
# 0 changed, 0 removed". `make clean` starts afresh.
site: $(STAMP) $(MJ_STAMP) $(JS_STAMP)
	$(BIN)/python -m tools.book.build $(BOOK_FLAGS)
	@echo "The book: $(CURDIR)/_build/html/index.html"

mathjax: $(MJ_STAMP)

$(MJ_STAMP):
	rm -rf $(MJ_DIR)
	mkdir -p $(MJ_DIR)/static
	npm install --no-save --no-audit --no-fund --loglevel=error --prefix $(MJ_DIR) $(MATHJAX)
	cp -r $(MJ_DIR)/node_modules/mathjax/es5 $(MJ_DIR)/static/mathjax
	touch $@

translator-js: $(JS_STAMP)

# Only the files the page loads are kept (the package holds builds for WebGPU, WebGL, ...).
$(JS_STAMP):
	rm -rf $(JS_DIR)
	mkdir -p $(JS_DIR)/static
	npm install --no-save --no-audit --no-fund --loglevel=error --prefix $(JS_DIR) $(ORT_WEB) $(TOK_JS)
	cd $(JS_DIR)/node_modules/onnxruntime-web/dist && cp ort.wasm.min.mjs \
	  ort-wasm-simd-threaded.mjs ort-wasm-simd-threaded.wasm $(abspath $(JS_DIR))/static/
	cp $(JS_DIR)/node_modules/@huggingface/tokenizers/dist/tokenizers.min.mjs $(JS_DIR)/static/
	cp $(JS_DIR)/node_modules/@huggingface/tokenizers/LICENSE $(JS_DIR)/static/LICENSE-tokenizers.txt
	echo "$(ORT_WEB) (MIT license) and $(TOK_JS) (Apache-2.0), from npm" > $(JS_DIR)/static/VERSIONS.txt
	rm -rf $(JS_DIR)/node_modules $(JS_DIR)/package.json $(JS_DIR)/package-lock.json
	touch $@

# The whole test suite. tests/test_book.py runs `make site` itself and checks the result in
# headless Chromium: right after `make book` (nothing changed since) that build executes no
# chapter and reads no page; on a clean checkout (CI) it executes every chapter. The terminal
# summary says what it did.
# The tests keep every core busy already (a test file per worker, the book's chapters side by
# side), so each process gets one PyTorch thread: processes that each used every core would slow
# each other down. TEST_THREADS=N changes it.
TEST_THREADS ?= 1

test: $(STAMP)
	OMP_NUM_THREADS=$(TEST_THREADS) $(BIN)/python -m pytest $(PYTEST_ARGS)

quicktest: $(STAMP)
	OMP_NUM_THREADS=$(TEST_THREADS) $(BIN)/python -m pytest $(PYTEST_ARGS) -m "not e2e"

LINT_PATHS := transformer transformer_course tools tests results

lint: $(STAMP)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/ruff format --check $(LINT_PATHS)

nbtest: $(STAMP)
	$(BIN)/nbdev-test chapters

lab: $(STAMP)
	$(BIN)/jupyter lab

exercises: $(STAMP)
	$(BIN)/python -m transformer_course.grader build

grade: $(STAMP)
	@test -n "$(EX)" || { echo "usage: make grade EX=exercises/01_attention.ipynb"; exit 2; }
	$(BIN)/python -m transformer_course.grader grade $(EX)

# One table of every exercise's points and misses, from the results `make grade` wrote to grades/.
grades: $(STAMP)
	$(BIN)/python -m transformer_course.grader report

clean:
	rm -rf _build

distclean: clean
	rm -rf $(VENV) $(MJ_DIR)
