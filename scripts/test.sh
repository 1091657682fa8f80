#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test: the Rust crates' tests,
# every js/test/*.ts suite through the real binary, checks that the
# committed JS bundles and typings are exactly what the lockfile and the
# engine's sources build, and a type-check of a user module and examples/
# against `limina types`.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
limina="${CARGO_TARGET_DIR:-target}/release/limina"

stale() {
  if [ -n "$(git status --porcelain -- "$1")" ]; then
    git --no-pager status --short -- "$1" >&2
    echo "error: $1 differs from what $2 produces; run (cd js && npm run $3) and commit" >&2
    exit 1
  fi
}

printf '\n== committed bundles match js/package-lock.json\n' >&2
(cd js && node build.mjs)
stale js/build js/build.mjs bundle

printf '\n== the engine type-checks and the committed typings are current\n' >&2
(cd js && node types.mjs)
stale js/build/limina.d.ts js/types.mjs types

printf '\n== a user module and examples/ type-check against `limina types`\n' >&2
# As the README sets a project up: limina.d.ts, a tsconfig, the libraries' type packages. The project
# stays in the target directory, so tsc's incremental record lets a warm run skip what is unchanged.
project="${CARGO_TARGET_DIR:-target}/user-module"
mkdir -p "$project"
rm -f "$project"/*.ts "$project"/tsconfig.json
ln -sfn "$PWD/js/node_modules" "$project/node_modules"
cp tests/types/tsconfig.json tests/types/user_module.ts examples/*.ts "$project/"
"$limina" types > "$project/limina.d.ts"
js/node_modules/.bin/tsc -p "$project" --incremental
echo "ok: $(ls "$project"/*.ts | wc -l) files type-check" >&2

printf '\n== the official MCP conformance suite and the Node 22 it needs (js/conformance)\n' >&2
# Installed only for the tests; a stamp of its lockfile keeps warm runs quick.
(cd js/conformance && { cmp -s package-lock.json node_modules/.installed-lock 2>/dev/null || { npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.installed-lock; }; })

printf '\n== cargo test\n' >&2
# No doctests: the only ones are the ignored examples deno_core's extension! macro generates.
log=$(mktemp)
status=0
cargo test --release --locked --workspace --bins --tests 2>&1 | tee "$log" || status=$?
# One closing line for the whole run (the JS suites count inside cli.rs's every_js_suite_passes).
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
rm -f "$log"
exit "$status"
