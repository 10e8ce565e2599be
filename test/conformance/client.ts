/**
 * The client the official conformance suite (@modelcontextprotocol/conformance) runs: it is
 * started with the scenario's server URL as its last argument and the scenario's name in
 * MCP_CONFORMANCE_SCENARIO, does what the scenario expects of a client, and exits 0 on success.
 *
 * Run by scripts/conformance.sh; everything goes through mcpwire's public API.
 */
import { McpClient, StreamableHttpTransport, oauth, type AuthProvider, type ClientOptions } from "../../src/index.js";

type Scenario = (client: McpClient) => Promise<void>;

/** The client id metadata document URL the auth scenarios expect a CIMD client to present. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

/**
 * The user-agent step of a headless login: GET the authorization URL without following its
 * redirect, and hand back where it pointed (the redirect URI with the code). Nothing listens on
 * the redirect URI: the scenario's authorization server sends the browser there at once.
 */
async function followOneRedirect(authorizationUrl: URL, { signal }: { signal: AbortSignal }): Promise<string> {
  const response = await fetch(authorizationUrl, { redirect: "manual", signal });
  const location = response.headers.get("location");
  await response.body?.cancel();
  if (location === null) throw new Error(`the authorization endpoint answered HTTP ${response.status} without a redirect`);
  return new URL(location, authorizationUrl).href;
}

/** The auth of the `auth/*` scenarios: the public API's `oauth()`, with the scenario's pre-registered client if it has one. */
function scenarioAuth(): AuthProvider {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as { client_id?: string; client_secret?: string };
  return oauth({
    authorize: followOneRedirect,
    clientMetadataUrl: CLIENT_METADATA_URL,
    ...(context.client_id !== undefined && { clientId: context.client_id }),
    ...(context.client_secret !== undefined && { clientSecret: context.client_secret }),
  });
}

/** What every auth scenario's server expects once authorized: a listing and a call of its one tool. */
const AUTH_SCENARIO: { options?: ClientOptions; run: Scenario } = {
  run: async (client: McpClient) => {
    await client.listTools();
    await client.callTool("test-tool", {});
  },
};

const scenarios: Record<string, { options?: ClientOptions; run: Scenario }> = {
  initialize: {
    run: async (client) => {
      await client.listTools();
    },
  },
  tools_call: {
    run: async (client) => {
      await client.listTools();
      await client.callTool("add_numbers", { a: 5, b: 3 });
    },
  },
  "elicitation-sep1034-client-defaults": {
    options: {
      // Accepts with nothing filled in: the defaults of the requested schema must be applied.
      handlers: { elicitation: () => ({ action: "accept", content: {} }) },
    },
    run: async (client) => {
      await client.listTools();
      await client.callTool("test_client_elicitation_defaults");
    },
  },
  "request-metadata": {
    options: {
      // Every capability the scenario checks the shape of is declared, so none of its checks is skipped.
      handlers: {
        roots: [],
        sampling: () => ({ role: "assistant", content: { type: "text", text: "" }, model: "none" }),
        elicitation: () => ({ action: "decline" }),
      },
    },
    run: async (client) => {
      // The first request is refused with -32022 naming the revision that was sent; one retry follows.
      await client.listTools();
      await client.callTool("any", {});
    },
  },
  "sse-retry": {
    run: async (client) => {
      await client.listTools();
      // The server closes this call's stream early, with a `retry`; the answer comes on the resumed stream.
      await client.callTool("test_reconnection");
    },
  },
};

async function main(): Promise<void> {
  const url = process.argv.at(-1);
  const name = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  const scenario = name.startsWith("auth/") ? AUTH_SCENARIO : scenarios[name];
  if (!url || !/^https?:/.test(url)) throw new Error("usage: client.ts <server-url> (with MCP_CONFORMANCE_SCENARIO set)");
  if (!scenario) throw new Error(`no conformance client for scenario ${JSON.stringify(name)}; known: ${Object.keys(scenarios).join(", ")}`);
  const transport = new StreamableHttpTransport(url, name.startsWith("auth/") ? { auth: scenarioAuth() } : {});
  const client = await McpClient.connect(transport, {
    clientInfo: { name: "mcpwire-conformance-client", version: "1.0.0" },
    timeoutMs: 20_000,
    ...scenario.options,
  });
  try {
    await scenario.run(client);
  } finally {
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`conformance client failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
    process.exit(1);
  },
);
