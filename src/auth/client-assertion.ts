/**
 * `private_key_jwt` (RFC 7523 §2.2, OpenID Connect Core §9): the client authenticates at the token
 * endpoint with a JWT it signs. Claims: `iss` = `sub` = the client id, `aud` = the authorization
 * server's issuer, `iat`, `exp` one minute later (well within the five minutes servers allow),
 * and a unique `jti`. The algorithm is the one given, else the first the server lists in
 * `token_endpoint_auth_signing_alg_values_supported` that fits the key (its type, and for an
 * elliptic curve its curve), else the key's own.
 * The key is PKCS#8 PEM or a JWK, read once and kept as a non-extractable key.
 */
import { createPrivateKey } from "node:crypto";
import type * as JoseModule from "jose";
import { McpTransportError } from "../errors.js";
import { loadJose } from "./jose.js";
import { randomToken } from "./pkce.js";
import type { ClientAssertion } from "./token-endpoint.js";

/** How long an assertion is valid, in seconds. */
export const ASSERTION_LIFETIME_S = 60;

/** A private key: PKCS#8 PEM text, or a JWK object. */
export type PrivateKeyInput = string | Record<string, unknown>;

type SigningKey = Awaited<ReturnType<typeof JoseModule.importPKCS8>>;

/** The algorithms each key type can sign with, preferred first. */
const ALGORITHMS_BY_KEY: Record<string, readonly string[]> = {
  EC: ["ES256", "ES384", "ES512"],
  RSA: ["RS256", "PS256", "RS384", "PS384", "RS512", "PS512"],
  OKP: ["EdDSA"],
};

export function privateKeyAssertion(
  clientId: string,
  privateKey: PrivateKeyInput,
  options: { signingAlgorithm?: string; supported: () => readonly string[] | undefined },
): ClientAssertion {
  const keys = new Map<string, Promise<SigningKey>>();
  const fits = keyAlgorithms(privateKey);
  const keyFor = (algorithm: string) => {
    let key = keys.get(algorithm);
    if (key === undefined) {
      key = importKey(privateKey, algorithm);
      keys.set(algorithm, key);
    }
    return key;
  };
  return {
    clientId,
    sign: async (audience) => {
      const jose = await loadJose();
      const algorithm = options.signingAlgorithm ?? chooseFromFitting(fits, options.supported());
      const now = Math.floor(Date.now() / 1000);
      return new jose.SignJWT({ jti: randomToken() })
        .setProtectedHeader({ alg: algorithm, typ: "JWT" })
        .setIssuer(clientId)
        .setSubject(clientId)
        .setAudience(audience)
        .setIssuedAt(now)
        .setExpirationTime(now + ASSERTION_LIFETIME_S)
        .sign(await keyFor(algorithm));
    },
  };
}

/**
 * The algorithms a key can sign with, preferred first: by its type, and for an elliptic curve by
 * its curve (a P-384 key signs ES384 only). A PEM is read for its type; its text is not kept.
 */
export function keyAlgorithms(privateKey: PrivateKeyInput): readonly string[] {
  let type: string | undefined;
  let curve: string | undefined;
  if (typeof privateKey === "string") {
    try {
      const key = createPrivateKey(privateKey);
      const types: Record<string, string> = { ec: "EC", rsa: "RSA", "rsa-pss": "RSA", ed25519: "OKP", ed448: "OKP" };
      type = types[key.asymmetricKeyType ?? ""];
      curve = key.asymmetricKeyDetails?.namedCurve;
    } catch {
      type = undefined;
    }
  } else {
    type = typeof privateKey.kty === "string" ? privateKey.kty : undefined;
    curve = typeof privateKey.crv === "string" ? privateKey.crv : undefined;
  }
  if (type === "EC") {
    const byCurve: Record<string, string> = { "P-256": "ES256", prime256v1: "ES256", "P-384": "ES384", secp384r1: "ES384", "P-521": "ES512", secp521r1: "ES512" };
    const algorithm = curve === undefined ? undefined : byCurve[curve];
    return algorithm === undefined ? ALGORITHMS_BY_KEY.EC! : [algorithm];
  }
  if (type === undefined) return [...ALGORITHMS_BY_KEY.RSA!, ...ALGORITHMS_BY_KEY.EC!, ...ALGORITHMS_BY_KEY.OKP!];
  return ALGORITHMS_BY_KEY[type] ?? [];
}

/** For a key of this type (`EC`, `RSA`, `OKP`; undefined when unknown): the first the server lists that fits, else the type's own first. */
export function chooseSigningAlgorithm(type: string | undefined, supported: readonly string[] | undefined): string {
  const fits = type === undefined ? [...ALGORITHMS_BY_KEY.RSA!, ...ALGORITHMS_BY_KEY.EC!, ...ALGORITHMS_BY_KEY.OKP!] : (ALGORITHMS_BY_KEY[type] ?? []);
  return chooseFromFitting(fits, supported);
}

/** The first the server lists among the algorithms that fit the key, else the key's own first. */
export function chooseFromFitting(fits: readonly string[], supported: readonly string[] | undefined): string {
  if (supported !== undefined && supported.length > 0) {
    const chosen = supported.find((algorithm) => fits.includes(algorithm) || (algorithm === "Ed25519" && fits.includes("EdDSA")));
    if (chosen !== undefined) return chosen === "Ed25519" ? "EdDSA" : chosen;
    throw new McpTransportError(
      "PROTOCOL",
      `the authorization server takes client assertions signed with ${supported.join(", ")}; give "signingAlgorithm" for this key, or a key of a type it takes`,
      { authStep: "token" },
    );
  }
  return fits[0] ?? "RS256";
}

async function importKey(privateKey: PrivateKeyInput, algorithm: string): Promise<SigningKey> {
  const jose = await loadJose();
  try {
    if (typeof privateKey === "string") return await jose.importPKCS8(privateKey, algorithm);
    return (await jose.importJWK(privateKey as JoseModule.JWK, algorithm)) as SigningKey;
  } catch (cause) {
    // The key's text is never part of the message.
    throw new McpTransportError(
      "PROTOCOL",
      `the client's private key could not be read for ${algorithm}: give a PKCS#8 PEM ("-----BEGIN PRIVATE KEY-----") or a private JWK of a matching type`,
      { authStep: "token", cause: new Error((cause as Error).name) },
    );
  }
}
