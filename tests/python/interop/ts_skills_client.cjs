// The official TypeScript SDK's Skills client (@modelcontextprotocol/client 2.4, ext/skills: its
// SkillsClient lists, gets and reads skills and verifies every file against the entry: listed,
// size, sha256 digest, and for SKILL.md the frontmatter field by field with its own YAML parser)
// against a fixture server serving tests/fixtures/skills. Usage:
//   node ts_skills_client.cjs modern|legacy COMMAND [ARGS...]   (NODE_PATH holding
//   @modelcontextprotocol/client; modern pins 2026-07-28, legacy lets the client initialize)
// Prints one JSON report line (tests/python/test_skills_interop.py reads it).
"use strict";
const { Client } = require("@modelcontextprotocol/client");
const { StdioClientTransport } = require("@modelcontextprotocol/client/stdio");
const { SkillsClient } = require("@modelcontextprotocol/client/ext/skills");

// {ok: value} or {error: {name, code, message}}.
async function attempt(fn) {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { error: { name: e.constructor.name, code: e.code, message: e.message } };
  }
}

async function readAll(skills, listing) {
  const reads = [];
  for (const skill of listing.skills) {
    for (const entry of skill.resources) {
      const file = await attempt(() => skills.read(skill, entry.uri));
      reads.push(
        file.ok
          ? { uri: file.ok.uri, verified: file.ok.verified, size: file.ok.bytes.length,
              frontmatter: file.ok.frontmatter ?? null }
          : { uri: entry.uri, error: file.error });
    }
  }
  return reads;
}

async function main() {
  const [era, command, ...args] = process.argv.slice(2);
  const options = era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {};
  const client = new Client({ name: "mcpcxx-skills-interop", version: "1.0.0" }, options);
  const transport = new StdioClientTransport({
    command, args, env: { ...process.env, MCPCXX_EXAMPLE_SKILLS: "1" }, stderr: "ignore" });
  await client.connect(transport);
  const skills = new SkillsClient(client);
  const report = {
    protocolVersion: client.getNegotiatedProtocolVersion() ?? null,
    supported: skills.supported,
    directoryRead: skills.directoryRead,
  };
  const listing = await skills.list();
  report.list = listing.skills.map((s) => s.uri);
  report.invalid = listing.invalid;
  report.ttlMs = listing.ttlMs ?? null;
  report.cacheScope = listing.cacheScope ?? null;
  report.reads = await readAll(skills, listing);
  const got = await attempt(() => skills.get("skill://git-workflow/SKILL.md"));
  report.get = got.ok ? got.ok.skill : got;
  const dir = await attempt(() => skills.readDirectory("skill://git-workflow"));
  report.directory = dir.ok ? dir.ok.resources.map((r) => [r.uri, r.mimeType]) : dir;
  report.unknown = await attempt(() => skills.get("skill://acme/billing/chargebacks/SKILL.md"));
  report.unlisted = await attempt(() => skills.read(listing.skills[0], "../../../README.md"));
  await client.close();
  return report;
}

main()
  .then((report) => process.stdout.write(JSON.stringify(report) + "\n"))
  .catch((e) => {
    process.stderr.write(`ts_skills_client: ${e.stack || e}\n`);
    process.exit(1);
  });
