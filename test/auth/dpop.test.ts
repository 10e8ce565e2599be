/**
 * DPoP keys and proofs (RFC 9449 §4): the header a server checks (typ, alg, the public key only),
 * the claims (htm, htu without query and fragment, iat, a fresh jti, ath with a token only,
 * nonce when asked), a proof that verifies with its own embedded key, and the algorithm chosen
 * from what the authorization server lists.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from "jose";
import { DPOP_ALGORITHMS, DpopKey, accessTokenHash, chooseDpopAlgorithm } from "../../src/auth/dpop.js";
import { McpTransportError } from "../../src/index.js";

const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

async function verified(proof: string) {
  const header = decodeProtectedHeader(proof);
  const key = await importJWK(header.jwk as JWK, header.alg);
  return jwtVerify(proof, key, { typ: "dpop+jwt", algorithms: [header.alg!] });
}

describe("DpopKey proofs", () => {
  it("header: typ dpop+jwt, the key's alg, the public jwk only, whose thumbprint is the key's", async () => {
    const key = await DpopKey.create(undefined);
    expect(key.algorithm).toBe("ES256");
    const proof = await key.proof({ htm: "POST", htu: "https://as.example.com/token" });
    const header = decodeProtectedHeader(proof);
    expect(header.typ).toBe("dpop+jwt");
    expect(header.alg).toBe("ES256");
    const jwk = header.jwk as JWK;
    expect(jwk.kty).toBe("EC");
    expect(jwk.crv).toBe("P-256");
    for (const member of PRIVATE_MEMBERS) expect(jwk).not.toHaveProperty(member);
    expect(key.thumbprint).toBe(await calculateJwkThumbprint(jwk));
  });

  it("claims: htm, htu without query and fragment, iat now, a jti; no ath and no nonce unless given", async () => {
    const key = await DpopKey.create(["ES256"]);
    const before = Date.now();
    const proof = await key.proof({ htm: "POST", htu: new URL("https://as.example.com/oauth/token?tenant=a&x=1#part") });
    const after = Date.now();
    const { payload } = await verified(proof);
    expect(payload.htm).toBe("POST");
    expect(payload.htu).toBe("https://as.example.com/oauth/token");
    expect(payload.iat).toBeGreaterThanOrEqual(Math.floor(before / 1000));
    expect(payload.iat).toBeLessThanOrEqual(Math.ceil(after / 1000));
    expect(typeof payload.jti).toBe("string");
    expect((payload.jti as string).length).toBeGreaterThanOrEqual(16);
    expect(payload).not.toHaveProperty("ath");
    expect(payload).not.toHaveProperty("nonce");
    expect(Object.keys(payload).sort()).toEqual(["htm", "htu", "iat", "jti"]);
  });

  it("a string htu loses its query and fragment too", async () => {
    const key = await DpopKey.create(undefined);
    const proof = await key.proof({ htm: "GET", htu: "https://mcp.example.com/mcp?session=s1#frag" });
    expect(decodeJwt(proof).htu).toBe("https://mcp.example.com/mcp");
    expect(decodeJwt(proof).htm).toBe("GET");
  });

  it("ath is base64url(SHA-256(token)) when an access token is given; nonce as given", async () => {
    const key = await DpopKey.create(undefined);
    const token = "at-42.with~chars_-";
    const expected = createHash("sha256").update(token).digest("base64url");
    const withToken = decodeJwt(await key.proof({ htm: "POST", htu: "https://mcp.example.com/mcp", accessToken: token }));
    expect(withToken.ath).toBe(expected);
    expect(withToken).not.toHaveProperty("nonce");
    const withNonce = decodeJwt(await key.proof({ htm: "POST", htu: "https://mcp.example.com/mcp", accessToken: token, nonce: "n-123" }));
    expect(withNonce.ath).toBe(expected);
    expect(withNonce.nonce).toBe("n-123");
    const nonceOnly = decodeJwt(await key.proof({ htm: "POST", htu: "https://as.example.com/token", nonce: "n-456" }));
    expect(nonceOnly.nonce).toBe("n-456");
    expect(nonceOnly).not.toHaveProperty("ath");
  });

  it("accessTokenHash matches RFC 9449's example", () => {
    // RFC 9449 §7.1, the access token and the ath of the proof that goes with it.
    expect(accessTokenHash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")).toBe("fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo");
  });

  it("a fresh jti for every proof, all with the same key", async () => {
    const key = await DpopKey.create(undefined);
    const proofs = await Promise.all(Array.from({ length: 5 }, () => key.proof({ htm: "POST", htu: "https://mcp.example.com/mcp", accessToken: "t" })));
    const jtis = proofs.map((proof) => decodeJwt(proof).jti);
    expect(new Set(jtis).size).toBe(5);
    const thumbprints = await Promise.all(proofs.map((proof) => calculateJwkThumbprint(decodeProtectedHeader(proof).jwk as JWK)));
    expect(new Set(thumbprints)).toEqual(new Set([key.thumbprint]));
  });

  it("two keys are two key pairs", async () => {
    const [one, two] = await Promise.all([DpopKey.create(undefined), DpopKey.create(undefined)]);
    expect(one.thumbprint).not.toBe(two.thumbprint);
  });

  it.each([
    [["ES384"], "ES384"],
    [["EdDSA"], "EdDSA"],
    [["PS256"], "PS256"],
    [["RS256"], "RS256"],
  ])("a key for a server that lists %j signs proofs that verify with their embedded %s key", async (supported, algorithm) => {
    const key = await DpopKey.create(supported);
    expect(key.algorithm).toBe(algorithm);
    const proof = await key.proof({ htm: "POST", htu: "https://as.example.com/token" });
    const { protectedHeader } = await verified(proof);
    expect(protectedHeader.alg).toBe(algorithm);
    for (const member of PRIVATE_MEMBERS) expect(protectedHeader.jwk).not.toHaveProperty(member);
    expect(key.thumbprint).toBe(await calculateJwkThumbprint(protectedHeader.jwk as JWK));
  });
});

describe("chooseDpopAlgorithm", () => {
  it("ES256 when the server lists nothing, an empty list, or ES256 anywhere in its list", () => {
    expect(chooseDpopAlgorithm(undefined)).toBe("ES256");
    expect(chooseDpopAlgorithm([])).toBe("ES256");
    expect(chooseDpopAlgorithm(["RS256", "ES512", "ES256"])).toBe("ES256");
  });

  it("otherwise the first of mcpwire's order that the server lists, whatever the server's order", () => {
    expect(DPOP_ALGORITHMS).toEqual(["ES256", "ES384", "ES512", "EdDSA", "PS256", "RS256"]);
    expect(chooseDpopAlgorithm(["RS256", "PS256", "ES384"])).toBe("ES384");
    expect(chooseDpopAlgorithm(["RS256", "EdDSA", "ES512"])).toBe("ES512");
    expect(chooseDpopAlgorithm(["RS256", "PS256"])).toBe("PS256");
    expect(chooseDpopAlgorithm(["HS256", "RS256"])).toBe("RS256");
  });

  it.each([[["HS256"]], [["RS384", "PS512"]], [["none"]]])("none that mcpwire makes (%j): PROTOCOL at the token step", async (supported) => {
    let thrown: unknown;
    try {
      chooseDpopAlgorithm(supported);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(McpTransportError);
    expect((thrown as McpTransportError).reason).toBe("PROTOCOL");
    expect((thrown as McpTransportError).authStep).toBe("token");
    await expect(DpopKey.create(supported)).rejects.toMatchObject({ reason: "PROTOCOL", authStep: "token" });
  });
});
