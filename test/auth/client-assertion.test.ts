/**
 * `private_key_jwt` client assertions (RFC 7523 §2.2): signed with the key given (PKCS#8 PEM or a
 * JWK), verifiable with its public half, with the claims a token endpoint checks, and an
 * algorithm that fits both the key and what the server takes. A key that cannot be read fails
 * without a trace of the key in the error.
 */
import { describe, expect, it } from "vitest";
import { decodeJwt, decodeProtectedHeader, exportJWK, exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey, type JWK } from "jose";
import { ASSERTION_LIFETIME_S, chooseSigningAlgorithm, privateKeyAssertion, type PrivateKeyInput } from "../../src/auth/client-assertion.js";
import { McpTransportError } from "../../src/index.js";
import { failure } from "../helpers/failure.js";
import { everythingShown, keyPieces, leaksIn, PRIVATE_JWK_MEMBERS } from "../helpers/redaction.js";

const AUDIENCE = "https://as.example.com/tenant";
const CLIENT_ID = "machine-client-7";

interface KeyCase {
  name: string;
  /** What the caller passes. */
  key: PrivateKeyInput;
  publicKey: CryptoKey;
  /** What the server lists (undefined: nothing) and the algorithm expected then. */
  supported: string[] | undefined;
  expected: string;
}

async function keyCases(): Promise<KeyCase[]> {
  const ec = await generateKeyPair("ES256", { extractable: true });
  const rsa = await generateKeyPair("PS256", { extractable: true, modulusLength: 2048 });
  const ecJwk = await generateKeyPair("ES256", { extractable: true });
  const okp = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  return [
    { name: "an EC P-256 PKCS#8 PEM", key: await exportPKCS8(ec.privateKey), publicKey: ec.publicKey, supported: ["ES256"], expected: "ES256" },
    { name: "an RSA PKCS#8 PEM", key: await exportPKCS8(rsa.privateKey), publicKey: rsa.publicKey, supported: ["PS256", "RS256"], expected: "PS256" },
    { name: "an EC JWK", key: (await exportJWK(ecJwk.privateKey)) as Record<string, unknown>, publicKey: ecJwk.publicKey, supported: undefined, expected: "ES256" },
    { name: "an OKP (Ed25519) JWK", key: (await exportJWK(okp.privateKey)) as Record<string, unknown>, publicKey: okp.publicKey, supported: ["EdDSA"], expected: "EdDSA" },
  ];
}

/** The JWK members whose showing is a leak here: the private ones, and the public ones too, since no part of the key may show. */
const KEY_MEMBERS = [...PRIVATE_JWK_MEMBERS, "x", "y", "n"];

describe("private_key_jwt assertions", async () => {
  const cases = await keyCases();

  it.each(cases)("with $name: verifies with the public key, alg as chosen, the claims a token endpoint checks", async ({ key, publicKey, supported, expected }) => {
    const assertion = privateKeyAssertion(CLIENT_ID, key, { supported: () => supported });
    const before = Date.now();
    const jwt = await assertion.sign(AUDIENCE);
    const after = Date.now();
    expect(assertion.clientId).toBe(CLIENT_ID);
    expect(decodeProtectedHeader(jwt).alg).toBe(expected);
    const { payload, protectedHeader } = await jwtVerify(jwt, publicKey, { issuer: CLIENT_ID, subject: CLIENT_ID, audience: AUDIENCE, algorithms: [expected] });
    expect(protectedHeader.alg).toBe(expected);
    expect(payload.iss).toBe(CLIENT_ID);
    expect(payload.sub).toBe(CLIENT_ID);
    expect(payload.aud).toBe(AUDIENCE);
    expect(payload.iat).toBeGreaterThanOrEqual(Math.floor(before / 1000));
    expect(payload.iat).toBeLessThanOrEqual(Math.ceil(after / 1000));
    expect(payload.exp! - payload.iat!).toBe(ASSERTION_LIFETIME_S);
    expect(ASSERTION_LIFETIME_S).toBeGreaterThan(0);
    expect(payload.exp! - payload.iat!).toBeLessThanOrEqual(300);
    expect(typeof payload.jti).toBe("string");
    expect(payload.jti!.length).toBeGreaterThanOrEqual(16);
  });

  it.each(cases)("with $name: a new jti for every assertion", async ({ key, supported }) => {
    const assertion = privateKeyAssertion(CLIENT_ID, key, { supported: () => supported });
    const [one, two] = [await assertion.sign(AUDIENCE), await assertion.sign(AUDIENCE)];
    expect(decodeJwt(one).jti).not.toBe(decodeJwt(two).jti);
  });

  it("signs with the algorithm given, over what the server lists", async () => {
    // The PEM names no algorithm; the public key is made for PS384 only to verify with it.
    const rsa = await generateKeyPair("PS384", { extractable: true, modulusLength: 2048 });
    const assertion = privateKeyAssertion(CLIENT_ID, await exportPKCS8(rsa.privateKey), { signingAlgorithm: "PS384", supported: () => ["RS256"] });
    const jwt = await assertion.sign(AUDIENCE);
    expect(decodeProtectedHeader(jwt).alg).toBe("PS384");
    await jwtVerify(jwt, rsa.publicKey, { algorithms: ["PS384"], audience: AUDIENCE });
  });

  it("asks what the server lists at each signature, so metadata read later counts", async () => {
    const ec = await generateKeyPair("ES384", { extractable: true });
    const metadata: { listed?: string[] } = {};
    const assertion = privateKeyAssertion(CLIENT_ID, (await exportJWK(ec.privateKey)) as Record<string, unknown>, { supported: () => metadata.listed });
    metadata.listed = ["RS256", "ES384"];
    const jwt = await assertion.sign(AUDIENCE);
    expect(decodeProtectedHeader(jwt).alg).toBe("ES384");
    await jwtVerify(jwt, ec.publicKey, { audience: AUDIENCE });
  });

  // The module says: "else the first the server lists ... that fits the key, else the key's own".
  it("an EC PEM with no list from the server signs with the key's own algorithm (ES256)", async () => {
    const ec = await generateKeyPair("ES256", { extractable: true });
    const jwt = await privateKeyAssertion(CLIENT_ID, await exportPKCS8(ec.privateKey), { supported: () => undefined }).sign(AUDIENCE);
    expect(decodeProtectedHeader(jwt).alg).toBe("ES256");
    await jwtVerify(jwt, ec.publicKey, { audience: AUDIENCE });
  });

  it("an EC PEM with a server that lists RS256 before ES256 signs with ES256, the first that fits the key", async () => {
    const ec = await generateKeyPair("ES256", { extractable: true });
    const jwt = await privateKeyAssertion(CLIENT_ID, await exportPKCS8(ec.privateKey), { supported: () => ["RS256", "ES256"] }).sign(AUDIENCE);
    expect(decodeProtectedHeader(jwt).alg).toBe("ES256");
    await jwtVerify(jwt, ec.publicKey, { audience: AUDIENCE });
  });

  it("an EC P-384 JWK with no list from the server signs with ES384, the algorithm of its curve", async () => {
    const ec = await generateKeyPair("ES384", { extractable: true });
    const jwt = await privateKeyAssertion(CLIENT_ID, (await exportJWK(ec.privateKey)) as Record<string, unknown>, { supported: () => undefined }).sign(AUDIENCE);
    expect(decodeProtectedHeader(jwt).alg).toBe("ES384");
    await jwtVerify(jwt, ec.publicKey, { audience: AUDIENCE });
  });
});

describe("chooseSigningAlgorithm", () => {
  it.each([
    ["EC", ["RS256", "ES384", "ES256"], "ES384"],
    ["EC", ["ES512", "ES256"], "ES512"],
    ["RSA", ["ES256", "PS256", "RS256"], "PS256"],
    ["RSA", ["HS256", "RS512"], "RS512"],
    ["OKP", ["ES256", "RS256", "EdDSA"], "EdDSA"],
  ] as const)("for a %s key and a server listing %j: %s, the server's first that fits", (type, supported, expected) => {
    expect(chooseSigningAlgorithm(type, supported)).toBe(expected);
  });

  it.each([
    ["EC", "ES256"],
    ["RSA", "RS256"],
    ["OKP", "EdDSA"],
  ] as const)("for a %s key and a server that lists nothing: %s", (type, expected) => {
    expect(chooseSigningAlgorithm(type, undefined)).toBe(expected);
    expect(chooseSigningAlgorithm(type, [])).toBe(expected);
  });

  it.each([
    ["EC", ["RS256", "PS256"]],
    ["RSA", ["ES256", "EdDSA"]],
    ["OKP", ["ES256"]],
    ["EC", ["HS256"]],
  ] as const)("for a %s key and a server listing only %j: PROTOCOL at the token step", (type, supported) => {
    let thrown: unknown;
    try {
      chooseSigningAlgorithm(type, supported);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(McpTransportError);
    expect((thrown as McpTransportError).reason).toBe("PROTOCOL");
    expect((thrown as McpTransportError).authStep).toBe("token");
    expect((thrown as McpTransportError).message).toContain("signingAlgorithm");
  });

  it("no fit surfaces from sign() too, before anything is signed", async () => {
    const ec = await generateKeyPair("ES256", { extractable: true });
    const key = (await exportJWK(ec.privateKey)) as Record<string, unknown>;
    const error = await failure(privateKeyAssertion(CLIENT_ID, key, { supported: () => ["RS256"] }).sign(AUDIENCE));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.authStep).toBe("token");
    expect(leaksIn(keyPieces(key, KEY_MEMBERS), [everythingShown(error)])).toEqual([]);
  });
});

describe("a key that cannot be read", () => {
  const garbagePem = [
    "-----BEGIN PRIVATE KEY-----",
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgZm9vYmFyYmF6cXV4",
    "c2VjcmV0a2V5bWF0ZXJpYWxub3RhcmVhbGtleXh5ejEyMzQ1Njc4OTBhYmNkZWZn",
    "-----END PRIVATE KEY-----",
  ].join("\n");

  it.each([
    ["a PEM of garbage", garbagePem, undefined],
    ["a JWK with a bad private part", { kty: "EC", crv: "P-256", x: "bm90LWFuLXgtY29vcmRpbmF0ZS1hdC1hbGwtMTIz", y: "bm90LWEteS1jb29yZGluYXRlLWVpdGhlci00NTY3", d: "c2VjcmV0LWQtdmFsdWUtdGhhdC1tdXN0LW5vdC1zaG93" }, undefined],
  ] as const)("%s: PROTOCOL at the token step, and no part of the key in the error", async (_name, key, signingAlgorithm) => {
    const input = key as PrivateKeyInput;
    const error = await failure(privateKeyAssertion(CLIENT_ID, input, { signingAlgorithm, supported: () => undefined }).sign(AUDIENCE));
    expect(error.reason).toBe("PROTOCOL");
    expect(error.authStep).toBe("token");
    expect(leaksIn(keyPieces(input, KEY_MEMBERS), [everythingShown(error)])).toEqual([]);
  });

  it("a real key for an algorithm of another type: PROTOCOL, and no part of the key in the error", async () => {
    const ec = await generateKeyPair("ES256", { extractable: true });
    for (const key of [await exportPKCS8(ec.privateKey), (await exportJWK(ec.privateKey)) as JWK as Record<string, unknown>]) {
      const error = await failure(privateKeyAssertion(CLIENT_ID, key, { signingAlgorithm: "RS256", supported: () => undefined }).sign(AUDIENCE));
      expect(error.reason).toBe("PROTOCOL");
      expect(error.authStep).toBe("token");
      const pieces = keyPieces(key, KEY_MEMBERS);
      expect(pieces.length).toBeGreaterThan(0);
      expect(leaksIn(pieces, [everythingShown(error)])).toEqual([]);
    }
  });
});
