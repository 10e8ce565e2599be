/** The help text, and the error for a command line that cannot be run as written. */

/** The command line is wrong; exits with the usage code and a pointer to `--help`. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const HELP = `mcpwire: talk to an MCP server from the command line

Usage: mcpwire <command> <target> [arguments] [options]

Commands:
  tools                          list the server's tools
  call <tool> [json | k=v ...]   call a tool with one JSON object or key=value pairs
  resources                      list resources and resource templates
  read <uri>                     read a resource
  prompts                        list prompts
  prompt <name> [k=v ...]        get a prompt, with its arguments as key=value pairs
  ping                           check that the server answers
  info                           server name and version, capabilities, protocol, transport
  login                          log in to a server reached by URL (OAuth, in the browser)
  logout                         forget the tokens and registrations stored for that server

Target:
  a URL                          http(s)://... (Streamable HTTP), ws(s)://... (WebSocket)
  a server name                  declared in a config file (--config, or found; see below)
  a command line, quoted         "npx -y @modelcontextprotocol/server-everything" (run without a shell)

Options:
  --json                         print results as JSON, for scripts
  --config <file>                the mcpServers config file to read server names from
  --header "Name: value"         an HTTP header for URL targets (repeatable)
  --proxy <url>                  the proxy for URL targets, http://[user:password@]host:port (default: HTTPS_PROXY, HTTP_PROXY, NO_PROXY)
  --no-proxy                     reach the server directly, whatever the proxy variables say
  --ca <file>                    a PEM file of CAs to trust for https:// and wss://, beside the default ones (repeatable)
  --cert <file> --key <file>     a client certificate and its key (PEM files) for mutual TLS
  --timeout <duration>           deadline for connecting and for each request: 5000, 500ms, 30s, 2m (default 60s)
  --env-allow <NAME,...>         let a server run as a command inherit these variables too (repeatable)
  --protocol <choice>            auto, legacy, modern, or a revision such as 2025-06-18 (default auto)
  --no-browser                   for a login, or a URL a server asks you to open: print it, do not open the browser
  --no-validate-output           print a tool's structured content even if it does not match its output schema
  -v, --verbose                  on failure, show the details and the server's stderr
  -h, --help                     show this help
  -V, --version                  show the version

Config files, when --config is not given (first found wins): $MCPWIRE_CONFIG, then in the
working directory mcp.json, .mcp.json, .vscode/mcp.json, .cursor/mcp.json, then ~/.cursor/mcp.json
and the desktop host's claude_desktop_config.json.

A tool that runs as a task is waited for: its state is on the progress line (on a terminal),
--timeout bounds the whole task, and Ctrl-C cancels it on the server.

A server reached by URL that asks for a login (OAuth) gets one in the browser when mcpwire runs
on a terminal; elsewhere, run \`mcpwire login <target>\` first. Tokens are kept, readable by you
alone, in $XDG_CONFIG_HOME/mcpwire/auth (%APPDATA%\\mcpwire\\auth on Windows).

On a terminal, a server may ask you questions (elicitation): the fields of a form, one by one,
or a URL to open in your browser (shown in full with its domain, opened only on your Enter).

Exit codes: 0 ok, 1 the tool reported an error, 2 usage, 3 config, 4 unavailable, 5 timeout,
6 disconnected, 7 protocol, 8 limit, 9 internal error, 130 interrupted.
`;
