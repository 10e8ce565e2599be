/**
 * The README's "Deploying on a cluster": it names every file of deploy/, and its figures are
 * those the manifests were sized from, so the prose cannot drift from the files.
 */
import { readFileSync, readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEPLOY, K8S, ROOT, measuredChildRss } from "./manifests.js";

const readme = readFileSync(`${ROOT}README.md`, "utf8");
const start = readme.indexOf("### Deploying on a cluster");
// Line breaks of the prose are spaces here.
const section = readme.slice(start, readme.indexOf("\n## ", start)).replace(/\s+/g, " ");

describe("the README's deployment subsection", () => {
  it("sits under \"## The gateway\"", () => {
    expect(start).toBeGreaterThan(readme.indexOf("## The gateway\n"));
    expect(readme.indexOf("## The gateway\n")).toBeGreaterThan(-1);
  });

  it("names every file of deploy/ and deploy/k8s/", () => {
    const files = [...readdirSync(DEPLOY).filter((name) => name !== "k8s"), ...readdirSync(K8S)];
    for (const file of files) expect(section, file).toContain(file.replace(/^Dockerfile\.dockerignore$/, "Dockerfile"));
  });

  it("gives the measured figures of deploy/child-rss.json", () => {
    const measured = measuredChildRss();
    expect(section).toContain(`On Node ${measured.node.replace(/^v/, "")}`);
    expect(section).toContain(`server-everything ${measured.serverVersion}`);
    expect(section).toContain(`${measured.childRssMiB.max} MiB at most per child`);
    expect(section).toContain(`driving ${measured.children} children ${measured.driverRssMiB} MiB`);
  });

  it("says what was not run", () => {
    expect(section).toContain("no image was built");
    expect(section).toContain("no cluster applied the manifests");
  });
});
