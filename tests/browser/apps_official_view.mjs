// A view built on the extension's own app side (App from @modelcontextprotocol/ext-apps), bundled
// with esbuild into the HTML that tests/fixtures/python/official_view_server.py serves as a UI resource:
// it connects to the host, shows the tool result the host hands over, and calls the app-only tool
// shout through the host.
import { App } from "@modelcontextprotocol/ext-apps";

const show = (id, text) => { document.getElementById(id).textContent = text; };
const textOf = (result) => (result.content ?? []).map((c) => c.text ?? "").join("");

const app = new App({ name: "official-view", version: "1.0.0" }, {}, { autoResize: false });
app.ontoolresult = (result) => show("result", "tool result: " + textOf(result));
app.connect().then(async () => {
  show("state", "connected to " + (app.getHostVersion()?.name ?? "?"));
  const shouted = await app.callServerTool({ name: "shout", arguments: { text: "hello from the view" } });
  show("called", shouted.isError ? "error: " + textOf(shouted) : textOf(shouted));
}).catch((error) => show("state", "failed: " + error));
