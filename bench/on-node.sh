#!/usr/bin/env bash
# `npm run bench:node22` / `bench:node24`: the main benchmark on another Node, from the tools
# folder's own package (never on root's PATH). Arguments after the major go to bench/run.mjs.
set -euo pipefail
cd "$(dirname "$0")/.."
major="$1"
shift
npm ci --prefix "tools/node$major" --no-audit --no-fund >/dev/null
npm run build >/dev/null
exec "tools/node$major/node_modules/.bin/node" bench/run.mjs "$@"
