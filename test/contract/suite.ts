/**
 * The contract suite of every built-in transport: the one that `mcpwire/testing` exports
 * (`transportContract`, src/testing/transport-contract.ts), run by vitest.
 *
 * Each transport's test file calls `runContractSuite` with a factory of fresh transports to a
 * fresh contract server (the SDK-built test/fixtures/contract-server.ts, or the modern one).
 * A transport that is not in this suite is not done.
 */
import { describe, it } from "vitest";
import { transportContract, type TransportContractOptions } from "../../src/testing.js";

export type ContractTarget = Omit<TransportContractOptions, "describe" | "it">;

export function runContractSuite(target: ContractTarget): void {
  transportContract({ ...target, describe, it });
}
