# teachgrad — course and package.  Start with `make lab` or `make test`.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
LOCK   := requirements-lock.txt
UV     := uv==0.13.8

# Notebook checks.  Each entry is a target that `make test` runs after the unit tests;
# append more with `NOTEBOOK_TESTS += your-target`.  The nbval runs are added only when
# their folders hold notebooks, so `make test` passes before any chapter exists.
NBVAL_STRICT_DIRS := $(sort $(dir $(wildcard notebooks/*.ipynb solutions/*.ipynb)))
NBVAL_LAX_DIRS    := $(sort $(dir $(wildcard exercises/*.ipynb)))
NOTEBOOK_TESTS    :=
ifneq ($(NBVAL_STRICT_DIRS),)
NOTEBOOK_TESTS += test-notebooks test-notebooks-without-avx512
endif
ifneq ($(NBVAL_LAX_DIRS),)
NOTEBOOK_TESTS += test-exercises
endif

.PHONY: lock setup dot chromium site test test-unit test-notebooks test-notebooks-without-avx512 test-exercises test-browser lab exercises notebooks bench clean

## Set-up: a virtualenv with teachgrad (editable) and the course/test tools, plus graphviz's dot.
setup: $(STAMP) dot

$(BIN)/python:
	@$(PYTHON) -m venv $(VENV) || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    rm -rf $(VENV); \
	    apt-get install -y python3-venv || { apt-get update && apt-get install -y python3-venv; }; \
	    $(PYTHON) -m venv $(VENV); \
	  else \
	    echo "Could not create $(VENV): install Python's venv module (Debian/Ubuntu: apt-get install python3-venv)"; \
	    exit 1; \
	  fi; }
	$(BIN)/python -m pip install --upgrade pip

# The exact versions the stored outputs were made with come from the lock; teachgrad itself is
# installed editable on top, without letting pip resolve anything again.  Reinstalled only when
# the lock or pyproject.toml changes (the editable install follows edits to teachgrad/).
$(STAMP): $(LOCK) pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -r $(LOCK)
	$(BIN)/python -m pip install --no-deps -e .
	@touch $@

## Instructors: refresh the lock from pyproject.toml's ranges (newest versions that fit, for
## every platform and Python >= 3.11), then re-run `make notebooks` and commit both.
lock: | $(BIN)/python
	$(BIN)/python -m pip install "$(UV)"
	$(BIN)/python -m uv pip compile pyproject.toml --universal --python-version 3.11 \
	  --extra course --extra test --extra site --upgrade -o $(LOCK)

dot:
	@command -v dot >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing graphviz (the dot program) with apt-get"; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y graphviz \
	    || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y graphviz; }; \
	  else \
	    echo "graphviz's dot program is missing: run one of  apt-get install graphviz  /  brew install graphviz  /  conda install -c conda-forge graphviz"; \
	    exit 1; \
	  fi; }

## Tests: unit tests, then the notebook checks (-k: all of them run, and any failure fails).
test: setup
	@$(MAKE) --no-print-directory -k test-unit $(NOTEBOOK_TESTS)

# pytest exits 5 when it collects nothing: accepted only while tests/ has no test files.
test-unit:
	@$(BIN)/python -m pytest -n 2 tests; rc=$$?; \
	if [ $$rc -eq 5 ] && [ -z "$$(find tests -name 'test_*.py' -o -name '*_test.py' 2>/dev/null)" ]; then \
	  echo "No unit tests yet."; rc=0; \
	fi; exit $$rc

# nbval compares every stored output with a fresh run, after the sanitize file's substitutions
# (addresses, ipykernel's cell paths).  SVG drawings are left out of the comparison (their bytes
# depend on graphviz's version); the text form of each drawing (text/plain) and the DOT source it
# was drawn from (text/vnd.graphviz) are compared, and tests/test_stored_drawings.py checks that
# each stored SVG is the picture of its stored DOT.
# --dist loadscope keeps each notebook's cells together, in one worker and one kernel.
# The plugin also starts a kernel again when it does not answer (two workers' kernels can pick
# the same port), up to three times.
NBVAL_OPTS := -p teachgrad.course.nbval_plugin --nbval-skip-mime image/svg+xml --nbval-skip-mime text/html \
  --nbval-current-env --nbval-sanitize-with .nbval_sanitize.cfg -n 2 --dist loadscope

# Importing matplotlib once first builds its font cache, whose one-time notice on stderr would
# otherwise differ from the stored outputs on a fresh machine.
test-notebooks:
	@$(BIN)/python -c "import matplotlib.pyplot"
	$(BIN)/python -m pytest --nbval $(NBVAL_OPTS) $(NBVAL_STRICT_DIRS)

# The same strict run as a CPU without AVX-512 computes: numpy's AVX-512 kernels turned off (its
# names for them, as of the locked numpy 2.4) and OpenBLAS on its AVX2 (Haswell) kernels.  Stored
# outputs must not depend on the CPU, and this pass proves it on a machine that has AVX-512; on one
# without, numpy ignores the names (an ImportWarning, hidden by default) and the pass repeats the first.
WITHOUT_AVX512 := NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL AVX512_SPR" OPENBLAS_CORETYPE=Haswell

test-notebooks-without-avx512:
	@$(BIN)/python -c "import matplotlib.pyplot"
	$(WITHOUT_AVX512) $(BIN)/python -m pytest --nbval $(NBVAL_OPTS) $(NBVAL_STRICT_DIRS)

# Exercises: every cell must run (a stub's cell carries raises-exception); outputs not compared.
test-exercises:
	$(BIN)/python -m pytest --nbval-lax $(NBVAL_OPTS) $(NBVAL_LAX_DIRS)

## The course in a real browser: JupyterLab headless on 127.0.0.1, driven by headless Chromium
## (Debian's chromium and chromium-driver with selenium; no browser is downloaded at install).
test-browser: setup chromium site
	TEACHGRAD_BROWSER_TEST=1 $(BIN)/python -m pytest -p no:cacheprovider tests/browser

chromium:
	@{ command -v chromium && command -v chromedriver; } >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing Chromium and its driver with apt-get"; \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver \
	    || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver; }; \
	  else \
	    echo "The browser test needs Chromium and chromedriver: apt-get install chromium chromium-driver (Debian/Ubuntu)"; \
	    exit 1; \
	  fi; }

## The course (as root, e.g. in a container, JupyterLab needs --allow-root). The whole project
## is served, so that exercises/ and solutions/ open from Lab's file browser too.
lab: setup
	$(BIN)/jupyter lab $$([ "$$(id -u)" = 0 ] && echo --allow-root) --ServerApp.root_dir=. \
	  notebooks/00_start_here.ipynb

## The course as a static website in build/site/html, from the stored notebooks (nothing is
## re-executed); the build fails on a broken internal link or anchor. Publish that folder as it is.
site: setup
	$(BIN)/python -m teachgrad.course.site build/site

## Instructors: regenerate exercises/ from solutions/, re-execute the notebooks.
exercises: setup
	$(BIN)/python -m teachgrad.course.make_exercises solutions exercises

notebooks: setup
	$(BIN)/python -m teachgrad.course.run_notebooks notebooks notebooks/deeper solutions

bench: setup
	$(BIN)/python -m benchmarks

clean:
	rm -rf $(VENV)
