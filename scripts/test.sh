#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test: the Rust crates' tests,
# every js/test/*.ts suite through the real binary, and a check that the
# committed JS bundles are exactly what the lockfile builds.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh

printf '\n== committed bundles match js/package-lock.json\n' >&2
(cd js && node build.mjs)
if ! git diff --quiet --exit-code -- js/build; then
  git --no-pager diff --stat -- js/build >&2
  echo "error: js/build differs from what js/build.mjs produces; run (cd js && npm run bundle) and commit" >&2
  exit 1
fi

printf '\n== cargo test\n' >&2
# No doctests: the only ones are the ignored examples deno_core's extension! macro generates.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --release --locked --workspace --lib --bins --tests 2>&1 | tee "$log" || status=$?
# One closing line for the whole run (the JS suites count inside cli.rs's every_js_suite_passes).
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
