// A small MCP Apps host: the pinned SDK client talks to tinymcp over Streamable HTTP, the official
// app bridge (@modelcontextprotocol/ext-apps) talks to the view in a sandboxed iframe. Bundled for
// the browser by scripts/apps-browser.sh.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AppBridge, PostMessageTransport, getToolUiResourceUri, RESOURCE_MIME_TYPE } from "@modelcontextprotocol/ext-apps/app-bridge";

const status = (text) => (document.getElementById("status").textContent = text);
const log = (text) => (document.getElementById("log").textContent += text + "\n");

async function main() {
  const mcp = new URL(new URLSearchParams(location.search).get("mcp"));
  const client = new Client(
    { name: "apps-browser-host", version: "1.0.0" },
    { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } } },
  );
  await client.connect(new StreamableHTTPClientTransport(mcp));
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === "report");
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri) throw new Error("the report tool has no view: " + JSON.stringify(tool));
  const { contents } = await client.readResource({ uri });
  const [view] = contents;
  if (view.mimeType !== RESOURCE_MIME_TYPE) throw new Error("unexpected view type " + view.mimeType);
  log("view " + uri + " (" + view.mimeType + ")");

  // Sandboxed without allow-same-origin: the view runs in an opaque origin, apart from the host.
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.srcdoc = view.text;
  document.getElementById("frame").append(iframe);

  const bridge = new AppBridge(null, { name: "apps-browser-host", version: "1.0.0" }, { serverTools: {}, logging: {} });
  bridge.oncalltool = async (params) => {
    const result = await client.callTool(params);
    log("view called " + params.name + ": " + JSON.stringify(result.structuredContent));
    return result;
  };
  const args = { who: "ann" };
  bridge.oninitialized = async () => {
    status("view initialized");
    await bridge.sendToolInput({ arguments: args });
    const result = await client.callTool({ name: "report", arguments: args });
    await bridge.sendToolResult(result);
    status("result sent");
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  status("bridge connected");
}

main().catch((e) => {
  status("failed");
  log(String(e && e.stack || e));
});
