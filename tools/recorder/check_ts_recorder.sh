#!/usr/bin/env bash
# `make recorder-test`: the TypeScript recorder's checks (recorders/ax-ts).
# 1. npm installs its dev dependencies (@ax-llm/ax 24.0.21, typescript, @types/node) into
#    recorders/ax-ts/node_modules; 2. its Node tests run the example agent on the real Ax
#    against a scripted server on 127.0.0.1 (no other network); 3. tsc checks its types and
#    the README's TypeScript example; 4. the package is installed with `npm install <path>`
#    into a scratch project, as a user would, and records and replays a run from there.
set -euo pipefail
recorder="$(cd "${1:-recorders/ax-ts}" && pwd)"
scratch="${2:-build/recorder-install}"
for tool in node npm; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "error: $tool not found: the recorder's tests need Node.js 20+ and npm (apt-get install nodejs npm)" >&2
        exit 1
    }
done
npm_install() {
    # --ignore-scripts: @ax-llm/ax's postinstall would write a Claude Code skill into $HOME.
    npm install --ignore-scripts --no-package-lock --no-audit --no-fund --loglevel=error "$@" >&2 || {
        echo "error: npm could not install $* from $(npm config get registry) (is the npm registry reachable?)" >&2
        exit 1
    }
}
(cd "$recorder" && npm_install)
export LC_ALL=C.UTF-8
# AxJSRuntime's worker permissions print an ExperimentalWarning per runtime.
export NODE_OPTIONS="--disable-warning=ExperimentalWarning"
(cd "$recorder" && node --test test/*.test.mjs)
(cd "$recorder" && node_modules/.bin/tsc --noEmit -p tsconfig.json)
rm -rf "$scratch" && mkdir -p "$scratch"
scratch="$(cd "$scratch" && pwd)"
echo '{"private": true, "type": "module", "description": "make recorder-test: the recorder installed as a user installs it"}' > "$scratch/package.json"
(cd "$scratch" && npm_install "$recorder" "@ax-llm/ax@24.0.21")
cp "$recorder/test/install-check.mjs" "$scratch/"
(cd "$scratch" && node install-check.mjs)
