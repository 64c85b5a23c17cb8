// Interop: the official TypeScript SDK client (npm @modelcontextprotocol/sdk) drives every feature
// of `tinymcp --everything`.
//
//   node ts_client.mjs --transport stdio -- <server command and args>
//   node ts_client.mjs --transport http <url of /mcp>
//   node ts_client.mjs --transport sse <url of /sse>      (the legacy HTTP+SSE transport)
//
// The SDK comes from the pinned install under .cache/npm (TINYMCP_NPM overrides). Every check
// asserts on what the SDK parsed from the server's real answers. The last line is
// `ts-interop (<transport>): N passed, M failed`; the exit status is non-zero when anything failed.

import { expect, runChecks, sdk as require, textOf } from "./harness.mjs";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { SSEClientTransport } = require("@modelcontextprotocol/sdk/client/sse.js");
const types = require("@modelcontextprotocol/sdk/types.js");

const ROOT_URI = "file:///tmp/tinymcp-interop-root";

function parseArgs(argv) {
  const i = argv.indexOf("--transport");
  const transport = i >= 0 ? argv[i + 1] : "stdio";
  const rest = argv.filter((_, j) => j !== i && j !== i + 1);
  const dash = rest.indexOf("--");
  return { transport, target: dash >= 0 ? rest.slice(dash + 1) : rest };
}


async function expectError(promise, code) {
  try {
    await promise;
  } catch (e) {
    expect(e.code === code, `expected error ${code}, got ${e.code}: ${e.message}`);
    return e;
  }
  throw new Error(`expected error ${code}, got a result`);
}

async function listAll(fetch, field) {
  const items = [];
  let cursor;
  for (let i = 0; i < 1000; i++) {
    const page = await fetch(cursor ? { cursor } : undefined);
    items.push(...page[field]);
    cursor = page.nextCursor;
    if (!cursor) return items;
  }
  throw new Error("pagination never ended");
}

async function main() {
  const { transport: kind, target } = parseArgs(process.argv.slice(2));
  const seen = { logs: [], notifications: [], sampling: [], elicitations: [] };
  const waitFor = async (method, ms = 5000) => {
    const end = Date.now() + ms;
    while (!seen.notifications.includes(method)) {
      if (Date.now() > end) throw new Error(`no ${method} within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  const client = new Client(
    { name: "tinymcp-ts-interop", version: "1.0.0" },
    {
      capabilities: {
        sampling: { tools: {} },
        elicitation: { form: {}, url: {} },
        roots: { listChanged: true },
      },
    },
  );
  client.setRequestHandler(types.CreateMessageRequestSchema, async (request) => {
    seen.sampling.push(request.params);
    if (request.params.tools) {
      return { role: "assistant", content: [{ type: "text", text: "It is sunny." }], model: "interop", stopReason: "endTurn" };
    }
    return { role: "assistant", content: { type: "text", text: "four" }, model: "interop", stopReason: "endTurn" };
  });
  client.setRequestHandler(types.ElicitRequestSchema, async (request) => {
    seen.elicitations.push(request.params);
    if (request.params.mode === "url") return { action: "accept" };
    return { action: "accept", content: { username: "ada", email: "ada@example.com" } };
  });
  client.setRequestHandler(types.ListRootsRequestSchema, async () => ({ roots: [{ uri: ROOT_URI, name: "interop" }] }));
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => {
    seen.logs.push(n.params);
    seen.notifications.push(n.method);
  });
  for (const schema of [
    types.ResourceUpdatedNotificationSchema,
    types.ToolListChangedNotificationSchema,
    types.PromptListChangedNotificationSchema,
    types.ResourceListChangedNotificationSchema,
    types.ElicitationCompleteNotificationSchema,
  ]) {
    if (schema) client.setNotificationHandler(schema, (n) => seen.notifications.push(n.method) && seen[n.method]?.push(n));
  }
  seen["notifications/resources/updated"] = [];

  let transport;
  if (kind === "stdio") {
    transport = new StdioClientTransport({ command: target[0], args: target.slice(1), stderr: "inherit" });
  } else if (kind === "http") {
    transport = new StreamableHTTPClientTransport(new URL(target[0]));
  } else if (kind === "sse") {
    transport = new SSEClientTransport(new URL(target[0]));
  } else {
    throw new Error(`unknown transport ${kind}`);
  }
  await client.connect(transport);

  const checks = {
    "lifecycle and ping": async () => {
      const info = client.getServerVersion();
      expect(info.name === "tinymcp", `serverInfo.name ${info.name}`);
      const caps = client.getServerCapabilities();
      for (const c of ["tools", "resources", "prompts", "logging", "completions"]) expect(caps[c], `capability ${c}`);
      await client.ping();
    },
    "tools/list": async () => {
      const tools = Object.fromEntries((await listAll((p) => client.listTools(p), "tools")).map((t) => [t.name, t]));
      for (const n of ["echo", "test_simple_text", "add", "test_sampling"]) expect(tools[n], `tool ${n} missing`);
      expect(tools.add.outputSchema, "add has no outputSchema");
      expect(tools.add.annotations?.readOnlyHint === true, "add readOnlyHint");
    },
    echo: async () => {
      const message = "hello; $(rm -rf) 'quotes' \u00e9";
      const result = await client.callTool({ name: "echo", arguments: { message } });
      expect(textOf(result) === `Echo: ${message}`, `echo said ${textOf(result)}`);
    },
    "content of every type": async () => {
      const image = await client.callTool({ name: "test_image_content", arguments: {} });
      expect(image.content[0].type === "image" && image.content[0].mimeType === "image/png", "image");
      const audio = await client.callTool({ name: "test_audio_content", arguments: {} });
      expect(audio.content[0].type === "audio", "audio");
      const embedded = await client.callTool({ name: "test_embedded_resource", arguments: {} });
      expect(embedded.content[0].resource.uri === "test://embedded-resource", "embedded resource");
      const link = await client.callTool({ name: "test_resource_link", arguments: {} });
      expect(link.content[1].type === "resource_link" && link.content[0].annotations.priority === 0.5, "resource_link");
    },
    "tool errors": async () => {
      const failed = await client.callTool({ name: "test_error_handling", arguments: {} });
      expect(failed.isError === true, "isError");
      const bad = await client.callTool({ name: "add", arguments: { a: "one", b: 2 } });
      expect(bad.isError === true && textOf(bad).includes("/a"), `bad arguments: ${textOf(bad)}`);
      await expectError(client.callTool({ name: "no_such_tool", arguments: {} }), -32602);
    },
    "structured output": async () => {
      const result = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
      expect(result.structuredContent?.sum === 42, `structuredContent ${JSON.stringify(result.structuredContent)}`);
    },
    "logging and setLevel": async () => {
      await client.setLoggingLevel("debug");
      let before = seen.logs.length;
      await client.callTool({ name: "test_tool_with_logging", arguments: {} });
      const got = seen.logs.slice(before).map((l) => l.data);
      expect(got.length === 3 && got[0] === "Tool execution started", `logs ${JSON.stringify(got)}`);
      await client.setLoggingLevel("error");
      before = seen.logs.length;
      await client.callTool({ name: "test_tool_with_logging", arguments: {} });
      expect(seen.logs.length === before, "info logs sent although the level is error");
      await client.setLoggingLevel("info");
    },
    progress: async () => {
      const steps = [];
      await client.callTool({ name: "test_tool_with_progress", arguments: {} }, undefined, {
        onprogress: (p) => steps.push(p.progress),
      });
      // The SDK runs notification handlers a microtask late but settles responses at once, so
      // the last progress, read in the same chunk as the result, can find its handler gone
      // (sdk 1.32.2, protocol.js _onnotification). The Python client checks all three strictly.
      const seenSteps = JSON.stringify(steps);
      expect(seenSteps === "[0,50,100]" || seenSteps === "[0,50]", `progress ${seenSteps}`);
    },
    sampling: async () => {
      const result = await client.callTool({ name: "test_sampling", arguments: { prompt: "2+2?" } });
      expect(textOf(result) === "LLM response: four", `sampling said ${textOf(result)}`);
      const withTools = await client.callTool({ name: "test_sampling_with_tools", arguments: {} });
      expect(!withTools.isError && textOf(withTools).includes("sunny"), textOf(withTools));
      expect(seen.sampling.at(-1).tools[0].name === "get_weather", "tools offered in sampling");
    },
    elicitation: async () => {
      const result = await client.callTool({ name: "test_elicitation", arguments: { message: "Who are you?" } });
      expect(textOf(result).includes("action=accept") && textOf(result).includes("ada@example.com"), textOf(result));
      const url = await client.callTool({ name: "test_url_elicitation", arguments: {} });
      expect(textOf(url).includes("action=accept"), textOf(url));
      expect(seen.elicitations.at(-1).url === "https://example.com/authorize", "url elicitation");
    },
    roots: async () => {
      const result = await client.callTool({ name: "test_roots", arguments: {} });
      expect(textOf(result) === `Roots: ${ROOT_URI}`, `roots said ${textOf(result)}`);
      await client.sendRootsListChanged();
      await client.ping();
    },
    resources: async () => {
      const listed = (await listAll((p) => client.listResources(p), "resources")).map((r) => r.uri);
      expect(listed.includes("test://static-text") && listed.includes("test://static-binary"), `resources ${listed}`);
      const text = await client.readResource({ uri: "test://static-text" });
      expect(text.contents[0].text === "This is the content of the static text resource.", "static text");
      const blob = await client.readResource({ uri: "test://static-binary" });
      expect(blob.contents[0].blob.length > 10, "static binary");
      const templates = await listAll((p) => client.listResourceTemplates(p), "resourceTemplates");
      expect(templates.some((t) => t.uriTemplate === "test://template/{id}/data"), "template listed");
      const filled = await client.readResource({ uri: "test://template/42/data" });
      expect(JSON.parse(filled.contents[0].text).id === "42", filled.contents[0].text);
      const error = await expectError(client.readResource({ uri: "test://nope" }), -32002);
      expect(JSON.stringify(error.data).includes("test://nope"), `-32002 data ${JSON.stringify(error.data)}`);
    },
    subscriptions: async () => {
      await client.subscribeResource({ uri: "test://watched-resource" });
      await client.callTool({ name: "test_trigger_resource_update", arguments: {} });
      await waitFor("notifications/resources/updated");
      const updates = seen["notifications/resources/updated"];
      expect(updates.at(-1).params.uri === "test://watched-resource", "updated uri");
      await client.unsubscribeResource({ uri: "test://watched-resource" });
      const count = updates.length;
      await client.callTool({ name: "test_trigger_resource_update", arguments: {} });
      await client.ping();
      await new Promise((r) => setTimeout(r, 100));
      expect(updates.length === count, "update sent after unsubscribe");
    },
    prompts: async () => {
      const names = (await listAll((p) => client.listPrompts(p), "prompts")).map((p) => p.name);
      expect(names.includes("test_prompt_with_arguments"), `prompts ${names}`);
      const args = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } });
      expect(args.messages[0].content.text === "Prompt with arguments: arg1='a', arg2='b'", "prompt arguments");
      const image = await client.getPrompt({ name: "test_prompt_with_image" });
      expect(image.messages[0].content.type === "image", "prompt image");
      await expectError(client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a" } }), -32602);
    },
    completion: async () => {
      const prompt = await client.complete({
        ref: { type: "ref/prompt", name: "test_prompt_with_arguments" },
        argument: { name: "arg1", value: "par" },
      });
      expect(JSON.stringify(prompt.completion.values) === '["paris","park"]', JSON.stringify(prompt.completion));
      const template = await client.complete({
        ref: { type: "ref/resource", uri: "test://template/{id}/data" },
        argument: { name: "id", value: "1" },
      });
      expect(JSON.stringify(template.completion.values) === '["1","123"]', JSON.stringify(template.completion));
    },
    list_changed: async () => {
      // The trigger toggles the tool, and the server may be shared with an earlier run.
      const listed = async () => (await listAll((p) => client.listTools(p), "tools")).some((t) => t.name === "test_dynamic_tool");
      const before = await listed();
      await client.callTool({ name: "test_trigger_tool_change", arguments: {} });
      await waitFor("notifications/tools/list_changed");
      expect((await listed()) !== before, "the tool list did not change after list_changed");
      await client.callTool({ name: "test_trigger_prompt_change", arguments: {} });
      await waitFor("notifications/prompts/list_changed");
    },
    cancellation: async () => {
      const abort = new AbortController();
      setTimeout(() => abort.abort("interop test"), 300);
      let cancelled = false;
      try {
        await client.callTool({ name: "test_slow", arguments: { ms: 10000 } }, undefined, { signal: abort.signal });
      } catch {
        cancelled = true;
      }
      expect(cancelled, "test_slow finished although it was cancelled");
      const result = await client.callTool({ name: "echo", arguments: { message: "after cancel" } });
      expect(textOf(result) === "Echo: after cancel", "echo after cancellation");
    },
    "stream closed early": async () => {
      // Over HTTP the server ends the POST stream before answering (SEP-1699); the client must
      // poll back with Last-Event-ID for the answer. Over stdio the call is plain.
      const result = await client.callTool({ name: "test_reconnection", arguments: {} });
      expect(textOf(result).startsWith("Reconnection test completed"), `test_reconnection said ${textOf(result)}`);
    },
    concurrency: async () => {
      const slow = client.callTool({ name: "test_slow", arguments: { ms: 300 } });
      const echoes = await Promise.all(
        Array.from({ length: 50 }, (_, i) => client.callTool({ name: "echo", arguments: { message: String(i) } })),
      );
      expect(echoes.every((r, i) => textOf(r) === `Echo: ${i}`), "concurrent echoes");
      await slow;
    },
  };

  await runChecks("ts-interop", kind, client, checks);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
