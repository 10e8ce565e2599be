/** A 2026-07-28 request as a client sends it over Streamable HTTP: its `_meta`, and the headers mirrored from it. */
export function modernCall(id: number, method: string, params: Record<string, unknown> = {}): { headers: Record<string, string>; body: string } {
  const name = method === "resources/read" ? params.uri : params.name;
  return {
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof name === "string" ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  };
}
