#!/usr/bin/env bash
# Debian packages the test suite needs, installed only when missing:
#   blender (3.4.1) + python3-numpy/pytest/hypothesis  the real Blender program (pytest-blender, GUI)
#   python3-jsonschema                                 validates reports written inside Blender 3.4.1
#   xvfb                                               a screen for the GUI test
#   chromium                                           renders the HTML report for its screenshot test
#   nodejs                                             loads the Flamenco job type (tests/farm)
set -euo pipefail
packages=(blender python3-numpy python3-pytest python3-hypothesis python3-jsonschema xvfb xauth chromium nodejs)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "Installing Debian packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
