/**
 * The client the official conformance suite (@modelcontextprotocol/conformance) runs: it is
 * started with the scenario's server URL as its last argument and the scenario's name in
 * MCP_CONFORMANCE_SCENARIO, does what the scenario expects of a client, and exits 0 on success.
 *
 * Run by scripts/conformance.sh; everything goes through mcpwire's public API.
 */
import {
  McpClient,
  StreamableHttpTransport,
  clientCredentials,
  enterpriseManaged,
  oauth,
  workloadIdentity,
  type AuthProvider,
  type ClientOptions,
} from "../../src/index.js";

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

/** What the suite passes in MCP_CONFORMANCE_CONTEXT, by scenario. */
interface ScenarioContext {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  idp_client_id?: string;
  idp_id_token?: string;
  idp_token_endpoint?: string;
  valid_jwt?: string;
}

/**
 * The auth of the `auth/*` scenarios, from the public API only: the machine flows where the
 * scenario is one (its context mapped onto their options), else `oauth()` with the scenario's
 * pre-registered client if it has one, and DPoP for the DPoP scenarios.
 */
function scenarioAuth(name: string): AuthProvider {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as ScenarioContext;
  if (name === "auth/client-credentials-jwt") {
    return clientCredentials({ clientId: context.client_id!, privateKey: context.private_key_pem!, signingAlgorithm: context.signing_algorithm });
  }
  if (name === "auth/client-credentials-basic") return clientCredentials({ clientId: context.client_id!, clientSecret: context.client_secret! });
  if (name === "auth/cross-app-access-complete-flow" || name === "auth/enterprise-managed-authorization") {
    return enterpriseManaged({
      idToken: context.idp_id_token!,
      idpTokenEndpoint: context.idp_token_endpoint!,
      idpClientId: context.idp_client_id!,
      clientId: context.client_id!,
      clientSecret: context.client_secret,
    });
  }
  if (name === "auth/wif-jwt-bearer") return workloadIdentity({ clientId: context.client_id, assertion: context.valid_jwt! });
  return oauth({
    dpop: name.startsWith("auth/dpop"),
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
  const transport = new StreamableHttpTransport(url, name.startsWith("auth/") ? { auth: scenarioAuth(name) } : {});
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
