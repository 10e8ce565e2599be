#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against mcpwire's conformance client
# (test/conformance/client.ts). The suite needs Node 22, which tools/node22 provides; it is kept
# out of the root devDependencies so that npm scripts keep the machine's node on their PATH.
#
# Two pinned versions of the suite: 0.1.16 (the `latest` tag) and 0.2.0-alpha.12 (installed as
# `conformance-next`, with the scenarios of revision 2026-07-28). Each run names its scenario and
# the spec version it is run under. A run passes only when the suite printed "OVERALL: PASSED"
# with no failed check, no warning, and at least one check that passed: the suite exits 0 for a
# scenario it skipped as not applicable, and a scenario whose checks were all skipped proves
# nothing. There is no expected-failure baseline.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools="$root/tools/node22"
node22="$tools/node_modules/.bin/node"
declare -A suites=(
  [0.1.16]="$tools/node_modules/@modelcontextprotocol/conformance/dist/index.js"
  [0.2.0-alpha.12]="$tools/node_modules/conformance-next/dist/index.js"
)

# suite version, scenario, spec version
runs=(
  "0.1.16 initialize 2025-06-18"
  "0.1.16 initialize 2025-11-25"
  "0.1.16 tools_call 2025-06-18"
  "0.1.16 tools_call 2025-11-25"
  "0.1.16 elicitation-sep1034-client-defaults 2025-11-25"
  "0.1.16 sse-retry 2025-11-25"
  "0.2.0-alpha.12 initialize 2025-06-18"
  "0.2.0-alpha.12 initialize 2025-11-25"
  "0.2.0-alpha.12 tools_call 2025-06-18"
  "0.2.0-alpha.12 tools_call 2025-11-25"
  "0.2.0-alpha.12 tools_call 2026-07-28"
  "0.2.0-alpha.12 elicitation-sep1034-client-defaults 2025-11-25"
  "0.2.0-alpha.12 sse-retry 2025-11-25"
  "0.2.0-alpha.12 request-metadata 2026-07-28"
  "0.2.0-alpha.12 sep-2322-client-request-state 2026-07-28"
  "0.2.0-alpha.12 http-standard-headers 2026-07-28"
  "0.2.0-alpha.12 http-custom-headers 2026-07-28"
  "0.2.0-alpha.12 http-invalid-tool-headers 2026-07-28"
  "0.2.0-alpha.12 json-schema-ref-no-deref 2026-07-28"
  "0.2.0-alpha.12 json-schema-2020-12-preservation 2025-11-25"
  "0.2.0-alpha.12 json-schema-2020-12-preservation 2026-07-28"
  # Authorization: every core auth/* scenario under each spec version it applies to (the
  # extension ones, client credentials, enterprise-managed, DPoP and workload identity, are not
  # among them).
  "0.1.16 auth/metadata-default 2025-11-25"
  "0.1.16 auth/metadata-var1 2025-11-25"
  "0.1.16 auth/metadata-var2 2025-11-25"
  "0.1.16 auth/metadata-var3 2025-11-25"
  "0.1.16 auth/basic-cimd 2025-11-25"
  "0.1.16 auth/scope-from-www-authenticate 2025-11-25"
  "0.1.16 auth/scope-from-scopes-supported 2025-11-25"
  "0.1.16 auth/scope-omitted-when-undefined 2025-11-25"
  "0.1.16 auth/scope-step-up 2025-11-25"
  "0.1.16 auth/scope-retry-limit 2025-11-25"
  "0.1.16 auth/token-endpoint-auth-basic 2025-06-18"
  "0.1.16 auth/token-endpoint-auth-basic 2025-11-25"
  "0.1.16 auth/token-endpoint-auth-post 2025-06-18"
  "0.1.16 auth/token-endpoint-auth-post 2025-11-25"
  "0.1.16 auth/token-endpoint-auth-none 2025-06-18"
  "0.1.16 auth/token-endpoint-auth-none 2025-11-25"
  "0.1.16 auth/pre-registration 2025-11-25"
  "0.1.16 auth/2025-03-26-oauth-metadata-backcompat 2025-03-26"
  "0.1.16 auth/2025-03-26-oauth-endpoint-fallback 2025-03-26"
  "0.1.16 auth/resource-mismatch draft"
  "0.1.16 auth/offline-access-scope draft"
  "0.1.16 auth/offline-access-not-supported draft"
  "0.2.0-alpha.12 auth/metadata-default 2025-11-25"
  "0.2.0-alpha.12 auth/metadata-default 2026-07-28"
  "0.2.0-alpha.12 auth/metadata-var1 2025-11-25"
  "0.2.0-alpha.12 auth/metadata-var1 2026-07-28"
  "0.2.0-alpha.12 auth/metadata-var2 2025-11-25"
  "0.2.0-alpha.12 auth/metadata-var2 2026-07-28"
  "0.2.0-alpha.12 auth/metadata-var3 2025-11-25"
  "0.2.0-alpha.12 auth/metadata-var3 2026-07-28"
  "0.2.0-alpha.12 auth/basic-cimd 2025-11-25"
  "0.2.0-alpha.12 auth/basic-cimd 2026-07-28"
  "0.2.0-alpha.12 auth/scope-from-www-authenticate 2025-11-25"
  "0.2.0-alpha.12 auth/scope-from-www-authenticate 2026-07-28"
  "0.2.0-alpha.12 auth/scope-from-scopes-supported 2025-11-25"
  "0.2.0-alpha.12 auth/scope-from-scopes-supported 2026-07-28"
  "0.2.0-alpha.12 auth/scope-omitted-when-undefined 2025-11-25"
  "0.2.0-alpha.12 auth/scope-omitted-when-undefined 2026-07-28"
  "0.2.0-alpha.12 auth/scope-step-up 2025-11-25"
  "0.2.0-alpha.12 auth/scope-step-up 2026-07-28"
  "0.2.0-alpha.12 auth/scope-retry-limit 2025-11-25"
  "0.2.0-alpha.12 auth/scope-retry-limit 2026-07-28"
  "0.2.0-alpha.12 auth/pre-registration 2025-11-25"
  "0.2.0-alpha.12 auth/pre-registration 2026-07-28"
  "0.2.0-alpha.12 auth/token-endpoint-auth-basic 2025-06-18"
  "0.2.0-alpha.12 auth/token-endpoint-auth-basic 2025-11-25"
  "0.2.0-alpha.12 auth/token-endpoint-auth-basic 2026-07-28"
  "0.2.0-alpha.12 auth/token-endpoint-auth-post 2025-06-18"
  "0.2.0-alpha.12 auth/token-endpoint-auth-post 2025-11-25"
  "0.2.0-alpha.12 auth/token-endpoint-auth-post 2026-07-28"
  "0.2.0-alpha.12 auth/token-endpoint-auth-none 2025-06-18"
  "0.2.0-alpha.12 auth/token-endpoint-auth-none 2025-11-25"
  "0.2.0-alpha.12 auth/token-endpoint-auth-none 2026-07-28"
  "0.2.0-alpha.12 auth/2025-03-26-oauth-metadata-backcompat 2025-03-26"
  "0.2.0-alpha.12 auth/2025-03-26-oauth-endpoint-fallback 2025-03-26"
  "0.2.0-alpha.12 auth/resource-mismatch 2026-07-28"
  "0.2.0-alpha.12 auth/offline-access-scope 2026-07-28"
  "0.2.0-alpha.12 auth/offline-access-not-supported 2026-07-28"
  "0.2.0-alpha.12 auth/authorization-server-migration 2026-07-28"
  "0.2.0-alpha.12 auth/iss-supported 2026-07-28"
  "0.2.0-alpha.12 auth/iss-not-advertised 2026-07-28"
  "0.2.0-alpha.12 auth/iss-supported-missing 2026-07-28"
  "0.2.0-alpha.12 auth/iss-wrong-issuer 2026-07-28"
  "0.2.0-alpha.12 auth/iss-unexpected 2026-07-28"
  "0.2.0-alpha.12 auth/iss-normalized 2026-07-28"
  "0.2.0-alpha.12 auth/metadata-issuer-mismatch 2026-07-28"
  # The authorization extensions (machine flows, DPoP). 0.1.16 runs them as spec "extension";
  # 0.2.0-alpha.12 has them off the spec timeline: on its default wire (2025-11-25) and, forced,
  # on the 2026-07-28 one.
  "0.1.16 auth/client-credentials-jwt extension"
  "0.1.16 auth/client-credentials-basic extension"
  "0.1.16 auth/cross-app-access-complete-flow extension"
  "0.2.0-alpha.12 auth/client-credentials-jwt default"
  "0.2.0-alpha.12 auth/client-credentials-jwt 2026-07-28+force"
  "0.2.0-alpha.12 auth/client-credentials-basic default"
  "0.2.0-alpha.12 auth/client-credentials-basic 2026-07-28+force"
  "0.2.0-alpha.12 auth/enterprise-managed-authorization default"
  "0.2.0-alpha.12 auth/enterprise-managed-authorization 2026-07-28+force"
  "0.2.0-alpha.12 auth/wif-jwt-bearer default"
  "0.2.0-alpha.12 auth/wif-jwt-bearer 2026-07-28+force"
  "0.2.0-alpha.12 auth/dpop default"
  "0.2.0-alpha.12 auth/dpop 2026-07-28+force"
  "0.2.0-alpha.12 auth/dpop-nonce default"
  "0.2.0-alpha.12 auth/dpop-nonce 2026-07-28+force"
)

# `scripts/conformance.sh <pattern>` runs only the runs whose line matches the pattern (grep -E).
if (( $# > 0 )); then
  selected=()
  for run in "${runs[@]}"; do
    if grep -qE -- "$1" <<<"$run"; then selected+=("$run"); fi
  done
  runs=("${selected[@]}")
fi

if [[ ! -x "$node22" || ! -f "${suites[0.1.16]}" || ! -f "${suites[0.2.0-alpha.12]}" ]]; then
  (cd "$tools" && npm ci --no-audit --no-fund)
fi

cd "$root"
client="$root/node_modules/.bin/tsx $root/test/conformance/client.ts"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
failed=()
for run in "${runs[@]}"; do
  read -r version scenario spec <<<"$run"
  echo "== conformance $version: $scenario (spec $spec)"
  status=0
  # "default": the suite's own choice of spec version; "<version>+force": a scenario off the spec
  # timeline run under that version anyway.
  case "$spec" in
    default) spec_args=() ;;
    *+force) spec_args=(--spec-version "${spec%+force}" --force) ;;
    *) spec_args=(--spec-version "$spec") ;;
  esac
  "$node22" "${suites[$version]}" client --command "$client" --scenario "$scenario" "${spec_args[@]}" --timeout 60000 \
    >"$log" 2>&1 || status=$?
  cat "$log"
  summary="$(grep -E '^Passed: [0-9]+/[0-9]+, [0-9]+ failed, [0-9]+ warnings' "$log" | tail -n 1 || true)"
  if (( status != 0 )) || ! grep -q 'OVERALL: PASSED' "$log" || [[ ! "$summary" =~ ^Passed:\ ([1-9][0-9]*)/[0-9]+,\ 0\ failed,\ 0\ warnings ]]; then
    echo "conformance $version: $scenario (spec $spec) did not pass: exit $status, ${summary:-no summary (skipped as not applicable?)}" >&2
    failed+=("$version:$scenario@$spec")
  fi
done

if (( ${#failed[@]} > 0 )); then
  echo "conformance: ${#failed[@]} of ${#runs[@]} runs failed: ${failed[*]}" >&2
  exit 1
fi
echo "conformance: all ${#runs[@]} runs passed"
