#!/usr/bin/env bash
# Set up a fresh machine for Schmier Arena (safe to run again): the system packages the
# C++ sample bot, the Ruby starter (arena new --lang ruby) and --sandbox need, Go and jq for the
# stdio sample bots (sample_bots/go, sample_bots/shell), Node.js for the JavaScript bot, Chromium
# for the tests of the HTML pages, and a virtualenv (.venv) with the project and its test tools.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
          cmake g++ pkg-config bubblewrap chromium chromium-driver ruby-grpc golang-go jq)
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$package")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" -eq 0 ]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo); else
        echo "setup: please install: ${missing[*]} (needs root)" >&2; exit 1
    fi
    echo "setup: installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q -e '.[test]'
