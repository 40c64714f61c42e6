// The part every interop client shares: the official TypeScript SDK Client (NODE_PATH must hold
// @modelcontextprotocol/sdk), capturing each step's outcome, and printing the one-line JSON report
// the Python test reads (tests/python/test_interop.py ts_report).
"use strict";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");

// A Client of the official SDK that names itself `name` (version 1.0.0).
function newClient(name) {
  return new Client({ name, version: "1.0.0" });
}

// Runs fn: {ok: its value} or {error: {name, code, message}} of what it threw.
async function attempt(fn) {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { error: { name: e.constructor.name, code: e.code, message: e.message } };
  }
}

// Runs main() and prints the report object it returns as one JSON line on stdout; anything it
// throws goes to stderr as "<program>: <stack>" with exit status 1.
function runReport(program, main) {
  main()
    .then((report) => process.stdout.write(JSON.stringify(report) + "\n"))
    .catch((e) => {
      process.stderr.write(`${program}: ${e.stack || e}\n`);
      process.exit(1);
    });
}

module.exports = { attempt, newClient, runReport };
