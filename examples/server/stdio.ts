/** The handbook server over stdio: `node --import tsx examples/server/stdio.ts`. */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createHandbookServer } from "./handbook-server.js";

await createHandbookServer().connect(new StdioServerTransport());
