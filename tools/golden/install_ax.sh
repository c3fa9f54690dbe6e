#!/usr/bin/env bash
# Install the published @ax-llm/ax package with npm into a cache folder (default build/ax-npm)
# for `make golden` and `make conformance`. Fails with a clear message when Node/npm is
# missing or the npm registry cannot be reached: the checks never pass silently.
set -euo pipefail
version="${AX_VERSION:-24.0.21}"
dir="${1:-build/ax-npm}"
for tool in node npm; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "error: $tool not found: the Ax oracle needs Node.js 20+ and npm (apt-get install nodejs npm)" >&2
        exit 1
    }
done
pkg="$dir/node_modules/@ax-llm/ax/package.json"
if [ -f "$pkg" ] && grep -q "\"version\": \"$version\"" "$pkg"; then
    exit 0
fi
mkdir -p "$dir"
[ -f "$dir/package.json" ] || echo '{"private": true, "description": "cache for make golden / make conformance"}' > "$dir/package.json"
# --ignore-scripts: the package's postinstall would write a Claude Code skill into $HOME.
if ! (cd "$dir" && npm install --ignore-scripts --no-package-lock --no-save --no-audit --no-fund \
        --loglevel=error "@ax-llm/ax@$version" >&2); then
    echo "error: npm could not install @ax-llm/ax@$version from $(npm config get registry)" \
        "(is the npm registry reachable from this machine?)" >&2
    exit 1
fi
grep -q "\"version\": \"$version\"" "$pkg" || { echo "error: npm installed another version than @ax-llm/ax@$version in $dir" >&2; exit 1; }
echo "installed @ax-llm/ax@$version in $dir" >&2
