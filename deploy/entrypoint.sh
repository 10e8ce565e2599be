#!/bin/sh
# The image's entrypoint, started by tini (PID 1): runs `mcpwire gateway` for the stdio server
# installed when the image was built.
#
# Every setting is an MCPWIRE_GATEWAY_* variable, and the gateway reads those itself: their
# parsing, defaults and the refusal of an unknown name live in one place, the gateway's CLI. This
# script only supplies the target when none is given, then replaces itself with the gateway
# (exec), so the SIGTERM that tini forwards reaches the gateway, which drains and exits 0.
#
# Its own two variables are not MCPWIRE_GATEWAY_* ones, which the gateway would refuse as unknown:
#   MCPWIRE_IMAGE_APP_DIR     where mcpwire's dist/ and node_modules/ are (default /app)
#   MCPWIRE_IMAGE_SERVER_BIN  the installed server's command, the target when
#                             MCPWIRE_GATEWAY_TARGET is unset or empty
#                             (default /opt/mcp-server/bin/mcp-server, linked at build time)
set -eu

# The image is configured by variables only (a container's `args:` would bypass the ConfigMap);
# arguments are refused rather than ignored, so a setting never silently goes unread.
if [ "$#" -gt 0 ]; then
  echo "mcpwire-gateway-entrypoint: takes no arguments, got $#; set MCPWIRE_GATEWAY_* variables instead (see mcpwire gateway --help)" >&2
  exit 2
fi

app_dir="${MCPWIRE_IMAGE_APP_DIR:-/app}"
server_bin="${MCPWIRE_IMAGE_SERVER_BIN:-/opt/mcp-server/bin/mcp-server}"
target="${MCPWIRE_GATEWAY_TARGET:-$server_bin}"

# "$target" is passed as one word: a variable's value is never read again as shell, so its
# spaces, quotes, globs and $(...) reach the gateway as they are. The gateway splits it into an
# argv by the command-line rules of config/shell-words.ts and spawns that without a shell.
exec node "$app_dir/dist/cli/main.js" gateway "$target"
