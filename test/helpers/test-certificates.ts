/**
 * Certificates made by the test at run time, never checked in: a test CA, a server leaf it signs
 * for 127.0.0.1, ::1 and localhost, and a client certificate it signs for mutual TLS. EC keys:
 * quick to make. Made once per test file (`await testCertificates()` is cached).
 */
import { createPrivateKey } from "node:crypto";
import { generate } from "selfsigned";

export interface TestCertificates {
  /** The CA that signed both leaves, PEM. */
  caCert: string;
  /** The server's leaf and key, PEM. */
  serverCert: string;
  serverKey: string;
  /** A client certificate (extKeyUsage clientAuth) and key, PEM. */
  clientCert: string;
  clientKey: string;
  /** The same client key, encrypted with `clientKeyPassphrase`. */
  clientKeyEncrypted: string;
  clientKeyPassphrase: string;
  /** Another CA, which signed nothing here: trusting it is not enough. */
  otherCaCert: string;
}

let made: Promise<TestCertificates> | undefined;
const PASSPHRASE = "correct horse battery staple";

export function testCertificates(): Promise<TestCertificates> {
  made ??= make();
  return made;
}

async function make(): Promise<TestCertificates> {
  const caExtensions = [
    { name: "basicConstraints" as const, cA: true, critical: true },
    { name: "keyUsage" as const, keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
  ];
  const ca = await generate([{ name: "commonName", value: "mcpwire test CA" }], { keyType: "ec", algorithm: "sha256", extensions: caExtensions });
  const other = await generate([{ name: "commonName", value: "mcpwire other CA" }], { keyType: "ec", algorithm: "sha256", extensions: caExtensions });
  const signer = { ca: { key: ca.private, cert: ca.cert } };
  const server = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    ...signer,
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: [{ type: 2, value: "localhost" }, { type: 7, ip: "127.0.0.1" }, { type: 7, ip: "::1" }] },
    ],
  });
  const client = await generate([{ name: "commonName", value: "mcpwire test client" }], {
    keyType: "ec",
    algorithm: "sha256",
    ...signer,
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true },
      { name: "extKeyUsage", clientAuth: true },
    ],
  });
  return {
    caCert: ca.cert,
    serverCert: server.cert,
    serverKey: server.private,
    clientCert: client.cert,
    clientKey: client.private,
    clientKeyEncrypted: createPrivateKey(client.private)
      .export({ format: "pem", type: "pkcs8", cipher: "aes-256-cbc", passphrase: PASSPHRASE })
      .toString(),
    clientKeyPassphrase: PASSPHRASE,
    otherCaCert: other.cert,
  };
}
