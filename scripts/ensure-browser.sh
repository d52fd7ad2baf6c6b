#!/usr/bin/env bash
# The console's browser tests drive Debian's Chromium (a test tool never downloads a browser here).
# Installs it when it is missing and this user can; SKIP_BROWSER_TESTS=1 runs the suite without them.
set -euo pipefail
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$chromium" ] || [ "${SKIP_BROWSER_TESTS:-}" = 1 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
  echo "Installing Chromium for the browser tests (apt-get install chromium)…" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q chromium > /dev/null || { apt-get update -q > /dev/null && apt-get install -y -q chromium > /dev/null; }
else
  echo "Chromium is missing at $chromium: install it (sudo apt-get install -y chromium), point CHROMIUM_PATH at it," >&2
  echo "or set SKIP_BROWSER_TESTS=1 to run the suite without the browser tests." >&2
  exit 1
fi
