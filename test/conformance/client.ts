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
  LEGACY_REVISIONS,
  MODERN_REVISIONS,
  type ProtocolChoice,
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
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
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
function scenarioContext(): ScenarioContext {
  return JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as ScenarioContext;
}

function scenarioAuth(name: string): AuthProvider {
  const context = scenarioContext();
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
  "sep-2322-client-request-state": {
    options: { handlers: { elicitation: () => ({ action: "accept", content: { confirmed: true } }) } },
    run: async (client) => {
      await client.listTools();
      // Two multi-round calls (with and without requestState), a plain call between rounds' worth
      // of state, and a result without resultType, which is complete.
      await Promise.all([client.callTool("test_mrtr_echo_state"), client.callTool("test_mrtr_unrelated")]);
      await client.callTool("test_mrtr_no_state");
      await client.callTool("test_mrtr_no_result_type");
    },
  },
  "http-standard-headers": {
    run: async (client) => {
      for (const tool of await client.listTools()) await client.callTool(tool.name);
      for (const resource of await client.listResources()) await client.readResource(resource.uri);
      for (const prompt of await client.listPrompts()) await client.getPrompt(prompt.name);
    },
  },
  "http-custom-headers": {
    run: async (client) => {
      await client.listTools();
      for (const call of scenarioContext().toolCalls ?? []) await client.callTool(call.name, call.arguments);
    },
  },
  "http-invalid-tool-headers": {
    run: async (client) => {
      // The tools whose x-mcp-header annotations are invalid are not listed; every listed one is called.
      for (const tool of await client.listTools()) await client.callTool(tool.name, { region: "us-west1" });
    },
  },
  "json-schema-ref-no-deref": {
    run: async (client) => {
      await client.listTools();
    },
  },
  "json-schema-2020-12-preservation": {
    run: async (client) => {
      const tools = await client.listTools();
      const focal = tools.find((tool) => tool.name === "json_schema_2020_12_tool");
      if (!focal) throw new Error("the server did not list json_schema_2020_12_tool");
      await client.callTool("json_schema_echo", { schema: focal.inputSchema });
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

function pinnedRevision(version: string | undefined): ProtocolChoice {
  return version !== undefined && [...LEGACY_REVISIONS, ...MODERN_REVISIONS].includes(version as never) ? (version as ProtocolChoice) : "auto";
}

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
    // The spec version the suite runs the scenario under, when it is a revision mcpwire speaks.
    protocolVersion: pinnedRevision(process.env.MCP_CONFORMANCE_PROTOCOL_VERSION),
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
