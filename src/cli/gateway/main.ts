/**
 * `mcpwire gateway`: `<target> --listen host:port` serves a stdio server over HTTP
 * (gateway/gateway.ts); `<url> --stdio` serves a remote server on this process's stdin and
 * stdout (stdio-bridge-cli.ts).
 */

/**
 * Runs the gateway until it is told to stop; resolves with the exit code. Each mode is loaded
 * only when asked for: the bridge, started by a desktop host, does not load the HTTP front.
 */
export async function gatewayMain(argv: readonly string[]): Promise<number> {
  if (argv.includes("--stdio")) return (await import("./stdio-bridge-cli.js")).runStdioBridgeCli(argv);
  return (await import("./http-gateway-cli.js")).runHttpGatewayCli(argv);
}
