/**
 * `mcpwire gateway`: `<target> --listen host:port` serves a stdio server over HTTP
 * (gateway/gateway.ts); `<url> --stdio` serves a remote server on this process's stdin and
 * stdout (stdio-bridge-cli.ts).
 */
import { runStdioBridgeCli } from "./stdio-bridge-cli.js";
import { runHttpGatewayCli } from "./http-gateway-cli.js";

/** Runs the gateway until it is told to stop; resolves with the exit code. */
export async function gatewayMain(argv: readonly string[]): Promise<number> {
  return argv.includes("--stdio") ? runStdioBridgeCli(argv) : runHttpGatewayCli(argv);
}
