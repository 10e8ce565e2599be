#!/usr/bin/env node
// Run once at image build time, after `npm install` of the wrapped stdio server: links the
// package's command to one fixed path, <prefix>/bin/mcp-server, which the entrypoint runs when
// MCPWIRE_GATEWAY_TARGET is not set. A fixed path keeps the entrypoint ignorant of which package
// was installed, and the link is checked here, when the image is built, rather than at the
// first spawn in the cluster.
//
//   node link-server-bin.mjs <prefix> <package> [bin]
//
// <bin> picks one command when the package declares several; with one it may be left out.
import { chmodSync, mkdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const LINK_NAME = "bin/mcp-server";

/** The path, inside the package, of the command `wanted` (or of its only one). Throws a message saying what to give. */
function packageBin(manifest, packageName, wanted) {
  const bins =
    typeof manifest.bin === "string"
      ? { [packageName.replace(/^@[^/]+\//, "")]: manifest.bin }
      : manifest.bin && typeof manifest.bin === "object"
        ? manifest.bin
        : {};
  const names = Object.keys(bins);
  if (names.length === 0) throw new Error(`${packageName} declares no command ("bin" in its package.json): it cannot be run as a stdio server`);
  if (wanted) {
    if (!names.includes(wanted)) throw new Error(`${packageName} has no command ${JSON.stringify(wanted)}; it has ${names.map((n) => JSON.stringify(n)).join(", ")}`);
    return bins[wanted];
  }
  if (names.length > 1) throw new Error(`${packageName} declares ${names.length} commands (${names.join(", ")}): name one with the MCP_SERVER_BIN build argument`);
  return bins[names[0]];
}

/** Links <prefix>/bin/mcp-server to the package's command; returns the link's path. */
function linkServerBin(prefix, packageName, wanted) {
  const packageDir = join(prefix, "node_modules", packageName);
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const binFile = join(packageDir, packageBin(manifest, packageName, wanted));
  if (!statSync(binFile).isFile()) throw new Error(`${binFile} is not a file`);
  // npm marks a bin executable when it installs it; say so again, the link is worthless without it.
  chmodSync(binFile, statSync(binFile).mode | 0o555);
  const link = join(prefix, LINK_NAME);
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(relative(dirname(link), binFile), link);
  return link;
}

const [prefix, packageName, wanted] = process.argv.slice(2);
if (!prefix || !packageName) {
  process.stderr.write("usage: node link-server-bin.mjs <prefix> <package> [bin]\n");
  process.exit(2);
}
try {
  process.stdout.write(`${linkServerBin(prefix, packageName, wanted || undefined)}\n`);
} catch (error) {
  process.stderr.write(`link-server-bin: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
