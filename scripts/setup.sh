#!/usr/bin/env bash
# Sets up a fresh x86_64 Linux machine for Limina and builds the `limina`
# binary (release). Idempotent: a warm machine skips what it already has.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\n== %s\n' "$*" >&2; }

# System packages the build and the tests need, installed only when missing:
# a C toolchain for -sys crates, Node.js/npm for the JS tooling.
missing=()
need() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need cc build-essential
need node nodejs
need npm npm
need sha256sum coreutils
need python3 python3
python3 -m venv --help >/dev/null 2>&1 || missing+=(python3-venv)
# Software Vulkan (lavapipe): WebGPU renders real pixels on the CPU with no GPU.
ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 || missing+=(mesa-vulkan-drivers)
ldconfig -p 2>/dev/null | grep -q libvulkan.so.1 || missing+=(libvulkan1)
# The native window (--window) loads the X11 client libraries at run time;
# Xvfb gives the windowed tests a real X server with no screen attached.
for lib in libX11.so.6:libx11-6 libXcursor.so.1:libxcursor1 libXi.so.6:libxi6 libXrandr.so.2:libxrandr2 libxkbcommon-x11.so.0:libxkbcommon-x11-0; do
  ldconfig -p 2>/dev/null | grep -q "${lib%%:*}" || missing+=("${lib##*:}")
done
need Xvfb xvfb
# Audio: ALSA's headers for cpal (limina-audio), espeak-ng for speech, sox to
# measure what the mixer captured.
[ -e /usr/include/alsa/asoundlib.h ] || missing+=(libasound2-dev)
need espeak-ng espeak-ng
need sox sox
# NATS JetStream (2.9 on Debian) for the world log streamed with --log-sink (js/test/nats_log.ts).
[ -x /usr/sbin/nats-server ] || missing+=(nats-server)
# Chromium for the spectator page's browser tests (headless: WebGL2 through SwiftShader, no display).
[ -x /usr/bin/chromium ] || missing+=(chromium)
if ((${#missing[@]})); then
  log "apt-get install ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

command -v cargo >/dev/null || { echo "error: cargo not found: install Rust (rustup) first" >&2; exit 1; }

log "verify the vendored V8 (third_party/rusty_v8)"
(cd third_party/rusty_v8 && sha256sum --quiet -c SHA256SUMS)

log "npm ci (js/: three, bitecs, zod and esbuild; the MCP SDK and ws for the wire tests)"
# A stamp of the lockfile it installed keeps warm runs from reinstalling the same packages.
(cd js && { cmp -s package-lock.json node_modules/.installed-lock 2>/dev/null || { npm ci --no-audit --no-fund --loglevel=error && cp package-lock.json node_modules/.installed-lock; }; })

log "python venv .venv: the official MCP SDK (wire tests, Python example) and python-xlib (windowed tests)"
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -c "import mcp, Xlib" 2>/dev/null || .venv/bin/pip install --quiet --disable-pip-version-check "mcp==2.3.0" "python-xlib==0.33"

log "cargo build --release"
cargo build --release --locked --bin limina
