import { MemoryTransport } from "../../src/index.js";
import { createContractServer } from "../fixtures/contract-server.js";
import { runContractSuite } from "./suite.js";

runContractSuite({
  name: "memory",
  transport: () => {
    const server = createContractServer({ crash: () => void server.close() });
    return new MemoryTransport(server, "contract server");
  },
  unavailable: () =>
    new MemoryTransport({
      connect: async () => {
        throw new Error("this server cannot start");
      },
    }),
  limitEndsConnection: true,
});
