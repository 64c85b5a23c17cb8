// Interop: the official TypeScript SDK client (npm @modelcontextprotocol/sdk) over Streamable HTTP
// or legacy SSE to `tinymcp proxy`, in front of a stdio server that is not tinymcp (the reference
// server-everything).
//
//   node ts_proxy.mjs --transport http <url of /mcp>
//   node ts_proxy.mjs --transport sse <url of /sse>      (the legacy HTTP+SSE transport)
//
// The same checks as python_proxy.py: the handshake, tools/list, a call, progress, a sampling
// request the client answers, resources, prompts, completion, an elicitation request the client
// accepts, a resource subscription's notifications/resources/updated, a long call the client
// cancels (no answer to it, the session still works), and a session of its own per client. The
// SDK comes from the pinned install under .cache/npm (TINYMCP_NPM overrides). Every check asserts
// on what the SDK parsed from the real answers. The last line is
// `ts-proxy (<transport>): N passed, M failed`; the exit status is non-zero when anything failed.

import { expect, runChecks, sdk as require, textOf } from "./harness.mjs";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { SSEClientTransport } = require("@modelcontextprotocol/sdk/client/sse.js");
const { AjvJsonSchemaValidator } = require("@modelcontextprotocol/sdk/validation/ajv");
const types = require("@modelcontextprotocol/sdk/types.js");

const BRIDGED_ANSWER = "bridged answer";
// What the elicitation handler answers: a value of the right type for some of the fields of
// server-everything's trigger-elicitation-request schema, `name` (the required one) among them.
const ELICITED = { name: "Ada Lovelace", check: true, email: "ada@example.com", integer: 7, number: 2.5 };

function parseArgs(argv) {
  const i = argv.indexOf("--transport");
  if (i < 0 || argv.length !== 3) throw new Error("usage: ts_proxy.mjs --transport http|sse <url>");
  return { kind: argv[i + 1], url: argv.find((_, j) => j !== i && j !== i + 1) };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function transportFor(kind, url) {
  if (kind === "http") return new StreamableHTTPClientTransport(new URL(url));
  if (kind === "sse") return new SSEClientTransport(new URL(url));
  throw new Error(`unknown transport ${kind}`);
}

async function main() {
  const { kind, url } = parseArgs(process.argv.slice(2));
  const seen = { sampling: [], elicitations: [], updated: [] };
  // Every JSON-RPC message the client receives, so a check can see an answer the SDK would only
  // report through onerror (one to a request it stopped waiting for).
  const wire = [];

  const client = new Client(
    { name: "tinymcp-ts-proxy", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler(types.CreateMessageRequestSchema, async (request) => {
    seen.sampling.push(request.params);
    return { role: "assistant", content: { type: "text", text: BRIDGED_ANSWER }, model: "interop", stopReason: "endTurn" };
  });
  client.setRequestHandler(types.ElicitRequestSchema, async (request) => {
    seen.elicitations.push(request.params);
    return { action: "accept", content: ELICITED };
  });
  client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, (n) => {
    seen.updated.push(n.params);
  });

  const transport = transportFor(kind, url);
  await client.connect(transport);
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    wire.push(message);
    deliver(message, extra);
  };

  const checks = {
    handshake: async () => {
      const info = client.getServerVersion();
      expect(info.name === "mcp-servers/everything", `serverInfo.name ${info.name}`);
      const caps = client.getServerCapabilities();
      for (const c of ["tools", "resources", "prompts", "completions"]) expect(caps[c], `capability ${c}`);
      expect(caps.resources.subscribe === true, "resources.subscribe");
      await client.ping();
    },
    "tools/list": async () => {
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const n of ["echo", "trigger-long-running-operation", "trigger-sampling-request", "toggle-subscriber-updates"]) {
        expect(names.includes(n), `tool ${n} missing from tools/list: ${names}`);
      }
    },
    echo: async () => {
      const result = await client.callTool({ name: "echo", arguments: { message: "over the bridge" } });
      expect(textOf(result) === "Echo: over the bridge", `echo said ${textOf(result)}`);
    },
    progress: async () => {
      const steps = [];
      const result = await client.callTool(
        { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 3 } },
        undefined,
        { onprogress: (p) => steps.push([p.progress, p.total]) },
      );
      expect(textOf(result).startsWith("Long running operation completed"), textOf(result));
      // The SDK runs notification handlers a microtask late but settles responses at once, so
      // the last progress, read in the same chunk as the result, can find its handler gone
      // (sdk 1.32.2, protocol.js _onnotification; see ts_client.mjs). Python checks all three.
      const got = JSON.stringify(steps);
      expect(got === "[[1,3],[2,3],[3,3]]" || got === "[[1,3],[2,3]]", `progress ${got}`);
    },
    sampling: async () => {
      const result = await client.callTool({ name: "trigger-sampling-request", arguments: { prompt: "hello", maxTokens: 20 } });
      expect(seen.sampling.length === 1, `sampling requests: ${seen.sampling.length}`);
      expect(seen.sampling[0].messages[0].content.text.includes("hello"), JSON.stringify(seen.sampling[0]));
      expect(textOf(result).includes(BRIDGED_ANSWER), `the tool saw ${textOf(result)}`);
    },
    resources: async () => {
      const listed = (await client.listResources()).resources;
      expect(listed.length > 0, "no resources listed");
      const read = await client.readResource({ uri: listed[0].uri });
      expect(read.contents.length === 1 && read.contents[0].uri === listed[0].uri, JSON.stringify(read.contents));
      const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
      expect(templates.includes("demo://resource/dynamic/text/{resourceId}"), `templates ${templates}`);
      const filled = await client.readResource({ uri: "demo://resource/dynamic/text/7" });
      expect(filled.contents[0].text.startsWith("Resource 7: "), filled.contents[0].text);
    },
    prompts: async () => {
      const names = (await client.listPrompts()).prompts.map((p) => p.name);
      expect(names.includes("completable-prompt"), `prompts ${names}`);
      const got = await client.getPrompt({ name: "completable-prompt", arguments: { department: "Sales", name: "Eve" } });
      const text = got.messages[0].content.text;
      expect(text === "Please promote Eve to the head of the Sales team.", text);
    },
    completion: async () => {
      const prompt = { type: "ref/prompt", name: "completable-prompt" };
      let got = await client.complete({ ref: prompt, argument: { name: "department", value: "S" } });
      expect(JSON.stringify(got.completion.values) === '["Sales","Support"]', JSON.stringify(got.completion));
      // The second argument's values depend on the first, sent as context.
      got = await client.complete({
        ref: prompt,
        argument: { name: "name", value: "" },
        context: { arguments: { department: "Engineering" } },
      });
      expect(JSON.stringify(got.completion.values) === '["Alice","Bob","Charlie"]', JSON.stringify(got.completion));
      got = await client.complete({
        ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" },
        argument: { name: "resourceId", value: "12" },
      });
      expect(JSON.stringify(got.completion.values) === '["12"]', JSON.stringify(got.completion));
    },
    elicitation: async () => {
      // Registered only for a client that declares elicitation.
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names.includes("trigger-elicitation-request"), `no trigger-elicitation-request: ${names}`);
      const result = await client.callTool({ name: "trigger-elicitation-request", arguments: {} });
      expect(seen.elicitations.length === 1, `elicitation requests: ${seen.elicitations.length}`);
      const schema = seen.elicitations[0].requestedSchema;
      expect(JSON.stringify(schema.required) === '["name"]', `schema ${JSON.stringify(schema)}`);
      // The answer fits what was asked (the SDK's own validator, formats included).
      const fits = new AjvJsonSchemaValidator().getValidator(schema)(ELICITED);
      expect(fits.valid, `the answer does not fit the schema: ${fits.errorMessage}`);
      const text = textOf(result);
      for (const line of ["- Name: Ada Lovelace", "- Email: ada@example.com", "- Favorite Integer: 7"]) {
        expect(text.includes(line), `${JSON.stringify(line)} not in ${JSON.stringify(text)}`);
      }
    },
    subscriptions: async () => {
      const uri = (await client.listResources()).resources[0].uri;
      await client.subscribeResource({ uri });
      // Starts updates of this session's subscriptions: one at once, then one every 5 s.
      const started = await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
      expect(textOf(started).startsWith("Started"), `toggle said ${textOf(started)}`);
      try {
        const end = Date.now() + 6000;
        while (!seen.updated.some((p) => p.uri === uri)) {
          if (Date.now() > end) throw new Error(`no notifications/resources/updated for ${uri} within 6 s`);
          await sleep(20);
        }
      } finally {
        const stopped = await client.callTool({ name: "toggle-subscriber-updates", arguments: {} });
        expect(textOf(stopped).startsWith("Stopped"), `toggle said ${textOf(stopped)}`);
        await client.unsubscribeResource({ uri });
      }
    },
    cancellation: async () => {
      // A 1.2 s call with a progress every 0.3 s, aborted at its first progress: the SDK sends
      // notifications/cancelled; no answer to it may arrive, even after the call would have
      // ended, and the session still answers.
      const mark = wire.length;
      const started = Date.now();
      const abort = new AbortController();
      let outcome;
      try {
        outcome = await client.callTool(
          { name: "trigger-long-running-operation", arguments: { duration: 1.2, steps: 4 } },
          undefined,
          { signal: abort.signal, onprogress: () => abort.abort("interop test") },
        );
      } catch (e) {
        outcome = e;
      }
      expect(outcome instanceof Error, `the cancelled call got its result: ${JSON.stringify(outcome)}`);
      // The SDK uses the request id as the progress token.
      const ids = new Set(
        wire.slice(mark).filter((m) => m.method === "notifications/progress").map((m) => m.params.progressToken),
      );
      expect(ids.size === 1, `progress tokens on the wire: ${[...ids]}`);
      await sleep(Math.max(0, started + 1800 - Date.now()));
      const result = await client.callTool({ name: "echo", arguments: { message: "after cancel" } });
      expect(textOf(result) === "Echo: after cancel", `echo said ${textOf(result)}`);
      const answers = wire.slice(mark).filter((m) => m.method === undefined && ids.has(m.id));
      expect(answers.length === 0, `an answer to the cancelled call: ${JSON.stringify(answers)}`);
    },
    "a second session": async () => {
      // A second client gets a process of its own: both answer at once.
      const other = new Client({ name: "tinymcp-ts-proxy-2", version: "1.0.0" });
      await other.connect(transportFor(kind, url));
      try {
        const result = await other.callTool({ name: "echo", arguments: { message: "second" } });
        expect(textOf(result) === "Echo: second", `echo said ${textOf(result)}`);
      } finally {
        await other.close();
      }
      await client.ping();
    },
  };

  await runChecks("ts-proxy", kind, client, checks);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
