/**
 * DPoP (RFC 9449): a key pair of this client's, and the proof JWTs that show it holds the key.
 *
 * One key per server and provider, made at the first token request, never written anywhere: the
 * tokens bound to it cannot be used by whoever copies them. Its algorithm is ES256 unless the
 * authorization server lists others in `dpop_signing_alg_values_supported`, then the first of
 * those mcpwire can make. Each proof is a JWT with header `typ: dpop+jwt`, `alg` and the public
 * `jwk`, and claims `jti` (unique), `htm`, `htu` (the URL without query and fragment), `iat`,
 * `ath` (the access token's SHA-256, base64url) on requests to the resource server, and `nonce`
 * when a server asked for one.
 */
import { createHash } from "node:crypto";
import type { generateKeyPair } from "jose";
import { McpTransportError } from "../errors.js";
import { loadJose } from "./jose.js";
import { randomToken } from "./pkce.js";

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];

/** The algorithms a DPoP key can be made for, in mcpwire's order of preference. */
export const DPOP_ALGORITHMS = ["ES256", "ES384", "ES512", "EdDSA", "PS256", "RS256"] as const;

export interface ProofInput {
  htm: string;
  htu: URL | string;
  /** The access token the proof goes with (a resource request): its hash becomes `ath`. */
  accessToken?: string;
  nonce?: string;
}

export class DpopKey {
  private constructor(
    readonly algorithm: string,
    /** The JWK thumbprint (RFC 7638) of the public key: `jkt`, what a bound token names. */
    readonly thumbprint: string,
    private readonly publicJwk: Record<string, unknown>,
    private readonly privateKey: SigningKey,
  ) {}

  /** A new key for an authorization server that lists `supported` (or nothing). */
  static async create(supported: readonly string[] | undefined): Promise<DpopKey> {
    const algorithm = chooseDpopAlgorithm(supported);
    const jose = await loadJose();
    const { publicKey, privateKey } = await jose.generateKeyPair(algorithm, { extractable: false });
    const publicJwk = (await jose.exportJWK(publicKey)) as Record<string, unknown>;
    const thumbprint = await jose.calculateJwkThumbprint(publicJwk);
    return new DpopKey(algorithm, thumbprint, publicJwk, privateKey);
  }

  async proof(input: ProofInput): Promise<string> {
    const jose = await loadJose();
    const htu = new URL(String(input.htu));
    htu.search = "";
    htu.hash = "";
    const claims: Record<string, unknown> = { jti: randomToken(), htm: input.htm, htu: htu.href, iat: Math.floor(Date.now() / 1000) };
    if (input.accessToken !== undefined) claims.ath = accessTokenHash(input.accessToken);
    if (input.nonce !== undefined) claims.nonce = input.nonce;
    return new jose.SignJWT(claims).setProtectedHeader({ typ: "dpop+jwt", alg: this.algorithm, jwk: this.publicJwk }).sign(this.privateKey);
  }
}

/** `ath`: base64url of the SHA-256 of the access token's ASCII bytes (RFC 9449 §4.2). */
export function accessTokenHash(accessToken: string): string {
  return createHash("sha256").update(accessToken, "ascii").digest("base64url");
}

export function chooseDpopAlgorithm(supported: readonly string[] | undefined): string {
  if (supported === undefined || supported.length === 0 || supported.includes("ES256")) return "ES256";
  const usable = DPOP_ALGORITHMS.find((algorithm) => supported.includes(algorithm));
  if (usable === undefined) {
    throw new McpTransportError(
      "PROTOCOL",
      `the authorization server takes DPoP proofs signed with ${supported.join(", ")} only, none of which mcpwire makes (${DPOP_ALGORITHMS.join(", ")})`,
      { authStep: "token" },
    );
  }
  return usable;
}
