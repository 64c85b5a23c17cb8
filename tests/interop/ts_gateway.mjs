// Interop: the official TypeScript SDK client (npm @modelcontextprotocol/sdk, 2025-11-25) over
// Streamable HTTP through ONE `tinymcp gateway` in front of real servers nobody here wrote
// (scripts/gateway-interop.sh starts them): `everything` (server-everything), `memory`
// (server-memory), `files` (server-filesystem on --files DIR), `time` (mcp-server-time), `git`
// (mcp-server-git on --repo DIR) and, with --tls, `tls` (`tinymcp --everything` behind TLS).
//
//   node ts_gateway.mjs --files DIR --repo DIR [--tls] <url of /mcp>
//
// The same checks as python_gateway_all.py: every upstream's namespaced tools listed, one tool of
// each called and its answer checked, resources, a prompt, completion, a subscription, a long
// call cancelled, and server-everything's sampling and elicitation answered through the gateway.
// The last line is `ts-gateway (http): N passed, M failed`; non-zero exit when anything failed.

import { expect, runChecks, sdk as require, textOf } from "./harness.mjs";
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
const types = require("@modelcontextprotocol/sdk/types.js");

const ANSWER = "answered through the gateway";
const ELICITED = { name: "Ada Lovelace", check: true, email: "ada@example.com", integer: 7, number: 2.5 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
  const args = { tls: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--tls") args.tls = true;
    else if (argv[i] === "--files") args.files = argv[++i];
    else if (argv[i] === "--repo") args.repo = argv[++i];
    else args.url = argv[i];
  }
  if (!args.url || !args.files || !args.repo) throw new Error("usage: ts_gateway.mjs --files DIR --repo DIR [--tls] <url>");
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const upstreams = ["everything", "memory", "files", "time", "git", ...(args.tls ? ["tls"] : [])];
  const seen = { sampling: [], elicitations: [], updated: [] };
  const client = new Client(
    { name: "tinymcp-ts-gateway", version: "1.0.0" },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler(types.CreateMessageRequestSchema, async (request) => {
    seen.sampling.push(request.params);
    return { role: "assistant", content: { type: "text", text: ANSWER }, model: "interop", stopReason: "endTurn" };
  });
  client.setRequestHandler(types.ElicitRequestSchema, async (request) => {
    seen.elicitations.push(request.params);
    return { action: "accept", content: ELICITED };
  });
  client.setNotificationHandler(types.ResourceUpdatedNotificationSchema, (n) => {
    seen.updated.push(n.params);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(args.url)));
  const call = async (name, args) => client.callTool({ name, arguments: args });

  const checks = {
    "revision 2025-11-25": async () => {
      expect(client.transport.protocolVersion === "2025-11-25", `revision ${client.transport.protocolVersion}`);
    },
    "tools of every upstream": async () => {
      const names = [];
      let cursor;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        names.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor);
      for (const u of upstreams) expect(names.some((n) => n.startsWith(`${u}__`)), `no tool of ${u}: ${names}`);
      expect(names.every((n) => upstreams.includes(n.split("__")[0])), `a tool of no upstream: ${names}`);
    },
    everything: async () => {
      const result = await call("everything__echo", { message: "hi (ts)" });
      expect(textOf(result) === "Echo: hi (ts)", textOf(result));
    },
    memory: async () => {
      const created = await call("memory__create_entities", {
        entities: [{ name: "gateway-ts", entityType: "test", observations: ["through the gateway"] }],
      });
      expect(!created.isError, textOf(created));
      const graph = JSON.parse(textOf(await call("memory__read_graph", {})));
      expect(graph.entities.some((e) => e.name === "gateway-ts"), JSON.stringify(graph));
    },
    files: async () => {
      const path = `${args.files}/ts.txt`;
      const written = await call("files__write_file", { path, content: "written by the TypeScript SDK" });
      expect(!written.isError, textOf(written));
      const read = await call("files__read_text_file", { path });
      expect(textOf(read) === "written by the TypeScript SDK", textOf(read));
    },
    time: async () => {
      const result = await call("time__get_current_time", { timezone: "UTC" });
      expect(!result.isError && JSON.parse(textOf(result)).timezone === "UTC", textOf(result));
    },
    git: async () => {
      const text = textOf(await call("git__git_status", { repo_path: args.repo }));
      expect(text.includes("On branch main") && text.includes("untracked.txt"), text);
    },
    ...(args.tls
      ? {
          tls: async () => {
            const result = await call("tls__echo", { message: "over TLS" });
            expect(textOf(result) === "Echo: over TLS", textOf(result));
          },
        }
      : {}),
    resources: async () => {
      const listed = (await client.listResources()).resources.filter((r) => r.uri.startsWith("everything+"));
      expect(listed.length > 0, "no resource of everything");
      const read = await client.readResource({ uri: listed[0].uri });
      expect(read.contents.length === 1 && read.contents[0].uri === listed[0].uri, JSON.stringify(read.contents));
      const filled = await client.readResource({ uri: "everything+demo://resource/dynamic/text/7" });
      expect(filled.contents[0].text.startsWith("Resource 7: "), filled.contents[0].text);
    },
    prompts: async () => {
      const got = await client.getPrompt({ name: "everything__completable-prompt", arguments: { department: "Sales", name: "Eve" } });
      const text = got.messages[0].content.text;
      expect(text === "Please promote Eve to the head of the Sales team.", text);
    },
    completion: async () => {
      const ref = { type: "ref/prompt", name: "everything__completable-prompt" };
      let got = await client.complete({ ref, argument: { name: "department", value: "S" } });
      expect(JSON.stringify(got.completion.values) === '["Sales","Support"]', JSON.stringify(got.completion));
      got = await client.complete({
        ref: { type: "ref/resource", uri: "everything+demo://resource/dynamic/text/{resourceId}" },
        argument: { name: "resourceId", value: "12" },
      });
      expect(JSON.stringify(got.completion.values) === '["12"]', JSON.stringify(got.completion));
    },
    sampling: async () => {
      const result = await call("everything__trigger-sampling-request", { prompt: "hello", maxTokens: 20 });
      expect(seen.sampling.length === 1, `sampling requests: ${seen.sampling.length}`);
      expect(textOf(result).includes(ANSWER), `the tool saw ${textOf(result)}`);
    },
    elicitation: async () => {
      const result = await call("everything__trigger-elicitation-request", {});
      expect(seen.elicitations.length === 1, `elicitation requests: ${seen.elicitations.length}`);
      for (const line of ["- Name: Ada Lovelace", "- Email: ada@example.com", "- Favorite Integer: 7"]) {
        expect(textOf(result).includes(line), `${JSON.stringify(line)} not in ${JSON.stringify(textOf(result))}`);
      }
    },
    subscription: async () => {
      const uri = (await client.listResources()).resources.map((r) => r.uri).find((u) => u.startsWith("everything+"));
      expect(uri, "no resource of everything");
      await client.subscribeResource({ uri });
      const started = await call("everything__toggle-subscriber-updates", {});
      expect(textOf(started).startsWith("Started"), `toggle said ${textOf(started)}`);
      try {
        const end = Date.now() + 8000;
        while (!seen.updated.some((p) => p.uri === uri)) {
          if (Date.now() > end) throw new Error(`no notifications/resources/updated for ${uri} within 8 s`);
          await sleep(20);
        }
      } finally {
        const stopped = await call("everything__toggle-subscriber-updates", {});
        expect(textOf(stopped).startsWith("Stopped"), `toggle said ${textOf(stopped)}`);
      }
    },
    cancellation: async () => {
      // A 3 s call aborted at its first progress: the SDK sends notifications/cancelled; the
      // call gives no result and the session still answers (the script checks the audit line).
      const abort = new AbortController();
      let outcome;
      try {
        outcome = await client.callTool(
          { name: "everything__trigger-long-running-operation", arguments: { duration: 3, steps: 6 } },
          undefined,
          { signal: abort.signal, onprogress: () => abort.abort("interop test") },
        );
      } catch (e) {
        outcome = e;
      }
      expect(outcome instanceof Error, `the cancelled call got its result: ${JSON.stringify(outcome)}`);
      const result = await call("everything__echo", { message: "after cancel" });
      expect(textOf(result) === "Echo: after cancel", textOf(result));
    },
  };
  await runChecks("ts-gateway", "http", client, checks);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
