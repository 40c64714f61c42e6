// Drives headless Chromium (Debian's chromium, through playwright-core) for
// tests/python/test_apps_browser.py: opens the test host page, waits for the board view to
// render, clicks a card's buttons in the iframe (the view's tools/call of update_issue, then of
// get_issue, goes through the host to the server) and waits for each answer to show, then writes
// a screenshot. Prints a JSON report.
// With SCENARIO "official" the view is the one built on the extension's App class
// (apps_official_view.mjs): it waits for the tool result and the view's own call to show instead.
// Usage: node apps_browser.cjs HOST_URL SCREENSHOT_PATH [board|official]   (NODE_PATH: npm modules)
"use strict";
const { chromium } = require("playwright-core");

// The view built on the extension's App class: it shows the tool result and its own call's.
async function officialView(view, page, screenshot) {
  await view.locator("#called").filter({ hasText: /\S/ }).waitFor({ timeout: 15000 });
  await view.locator("#result").filter({ hasText: /\S/ }).waitFor({ timeout: 15000 });
  const out = {};
  for (const id of ["state", "result", "called"]) out[id] = await view.locator("#" + id).innerText();
  await page.screenshot({ path: screenshot, fullPage: true });
  return out;
}

async function run(url, screenshot, scenario) {
  const browser = await chromium.launch({
    executablePath: process.env.MCPCXX_CHROMIUM || "/usr/bin/chromium",
    args: ["--no-sandbox"],
  });
  const problems = [];
  try {
    const page = await browser.newPage({ viewport: { width: 900, height: 520 } });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
    });
    await page.goto(url);
    await page.waitForFunction(() => window.hostReport || window.hostError, null, { timeout: 30000 });
    const hostError = await page.evaluate(() => window.hostError ?? null);
    if (hostError) return { hostError, problems };
    const report = await page.evaluate(() => window.hostReport);
    const view = page.frameLocator("#app");
    if (scenario === "official") return { report, ...(await officialView(view, page, screenshot)), problems };
    const card = (state, key) => view.locator(`section[data-state="${state}"] li[data-key="${key}"]`);
    await card("open", "ENG-2").waitFor({ timeout: 15000 });
    const rendered = await view.locator("#columns").innerText();
    const statusBefore = await view.locator("#status").innerText();
    await card("open", "ENG-2").getByRole("button", { name: "Start" }).click();
    await card("in_progress", "ENG-2").waitFor({ timeout: 15000 });
    const statusAfter = await view.locator("#status").innerText();
    await card("in_progress", "ENG-42").getByRole("button", { name: "Refresh" }).click();
    await view.getByText("ENG-42 is in progress (from get_issue)").waitFor({ timeout: 15000 });
    await page.screenshot({ path: screenshot, fullPage: true });
    return { report, rendered, statusBefore, statusAfter, problems };
  } finally {
    await browser.close();
  }
}

run(process.argv[2], process.argv[3], process.argv[4] ?? "board").then(
  (out) => process.stdout.write(JSON.stringify(out)),
  (error) => {
    process.stderr.write(String(error?.stack ?? error) + "\n");
    process.exit(1);
  },
);
