#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against mcpwire's conformance client
# (test/conformance/client.ts). The suite needs Node 22, which tools/node22 provides; it is kept
# out of the root devDependencies so that npm scripts keep the machine's node on their PATH.
# Fails on any failed check: there is no expected-failure baseline.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/tools/node22"
node22="$tools/node_modules/.bin/node"
suite="$tools/node_modules/@modelcontextprotocol/conformance/dist/index.js"
scenarios=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)

if [[ ! -x "$node22" || ! -f "$suite" ]]; then
  (cd "$tools" && npm ci --no-audit --no-fund)
fi

cd "$root"
client="$root/node_modules/.bin/tsx $root/test/conformance/client.ts"
failed=()
for scenario in "${scenarios[@]}"; do
  echo "== conformance: $scenario"
  if ! "$node22" "$suite" client --command "$client" --scenario "$scenario" --timeout 60000; then
    failed+=("$scenario")
  fi
done

if (( ${#failed[@]} > 0 )); then
  echo "conformance: ${#failed[@]} of ${#scenarios[@]} scenarios failed: ${failed[*]}" >&2
  exit 1
fi
echo "conformance: all ${#scenarios[@]} scenarios passed"
