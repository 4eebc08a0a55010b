// Starts each MCP server of SERVERS over stdio with the official SDK client, asks initialize and
// tools/list (all pages), and writes ../servers/<name>.json with the package name and version.
// Credentials are dummies: these servers list their tools without calling their upstream.
// Usage: node capture.mjs [name…]   (default: every server below)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "coffer-capture-"));
const bin = (b) => join(here, "node_modules", ".bin", b);

// name → package, command, arguments, extra environment
const SERVERS = [
  ["everything", "@modelcontextprotocol/server-everything", bin("mcp-server-everything"), [], {}],
  ["filesystem", "@modelcontextprotocol/server-filesystem", bin("mcp-server-filesystem"), [scratch], {}],
  ["memory", "@modelcontextprotocol/server-memory", bin("mcp-server-memory"), [], { MEMORY_FILE_PATH: join(scratch, "memory.jsonl") }],
  ["sequentialthinking", "@modelcontextprotocol/server-sequential-thinking", bin("mcp-server-sequential-thinking"), [], {}],
  ["github", "@modelcontextprotocol/server-github", bin("mcp-server-github"), [], { GITHUB_PERSONAL_ACCESS_TOKEN: "dummy" }],
  ["gitlab", "@modelcontextprotocol/server-gitlab", bin("mcp-server-gitlab"), [], { GITLAB_PERSONAL_ACCESS_TOKEN: "dummy" }],
  ["puppeteer", "@modelcontextprotocol/server-puppeteer", bin("mcp-server-puppeteer"), [], {}],
  ["brave", "@modelcontextprotocol/server-brave-search", bin("mcp-server-brave-search"), [], { BRAVE_API_KEY: "dummy" }],
  ["slack", "@modelcontextprotocol/server-slack", bin("mcp-server-slack"), [], { SLACK_BOT_TOKEN: "xoxb-dummy", SLACK_TEAM_ID: "T000" }],
  ["postgres", "@modelcontextprotocol/server-postgres", bin("mcp-server-postgres"), ["postgresql://127.0.0.1:1/none"], {}],
  ["redis", "@modelcontextprotocol/server-redis", bin("mcp-server-redis"), ["redis://127.0.0.1:1"], {}],
  ["maps", "@modelcontextprotocol/server-google-maps", bin("mcp-server-google-maps"), [], { GOOGLE_MAPS_API_KEY: "dummy" }],
  ["awskb", "@modelcontextprotocol/server-aws-kb-retrieval", bin("mcp-server-aws-kb-retrieval"), [], { AWS_ACCESS_KEY_ID: "dummy", AWS_SECRET_ACCESS_KEY: "dummy", AWS_REGION: "us-east-1" }],
  ["playwright", "@playwright/mcp", bin("playwright-mcp"), [], {}],
  ["firecrawl", "firecrawl-mcp", bin("firecrawl-mcp"), [], { FIRECRAWL_API_KEY: "fc-dummy" }],
  ["notion", "@notionhq/notion-mcp-server", bin("notion-mcp-server"), [], { NOTION_TOKEN: "ntn_dummy" }],
  ["kubernetes", "mcp-server-kubernetes", bin("mcp-server-kubernetes"), [], {}],
  ["context7", "@upstash/context7-mcp", bin("context7-mcp"), [], {}],
  ["tavily", "tavily-mcp", bin("tavily-mcp"), [], { TAVILY_API_KEY: "tvly-dummy" }],
  ["exa", "exa-mcp-server", bin("exa-mcp-server"), [], { EXA_API_KEY: "dummy" }],
  ["mongodb", "mongodb-mcp-server", bin("mongodb-mcp-server"), [], { MDB_MCP_TELEMETRY: "disabled", DO_NOT_TRACK: "1" }],
  ["amap", "@amap/amap-maps-mcp-server", bin("mcp-amap"), [], { AMAP_MAPS_API_KEY: "dummy" }],
  ["baidumap", "@baidumap/mcp-server-baidu-map", bin("mcp-server-baidu-map"), [], { BAIDU_MAP_API_KEY: "dummy" }],
  ["chart", "@antv/mcp-server-chart", bin("mcp-server-chart"), [], {}],
  ["desktopcommander", "@wonderwhy-er/desktop-commander", bin("desktop-commander"), [], {}],
  ["git", "@cyanheads/git-mcp-server", bin("git-mcp-server"), [], { MCP_TRANSPORT_TYPE: "stdio", MCP_LOG_LEVEL: "error" }],
];

function version(pkg) {
  return JSON.parse(readFileSync(join(here, "node_modules", pkg, "package.json"), "utf8")).version;
}

async function capture([name, pkg, command, args, env]) {
  const transport = new StdioClientTransport({
    command, args, env: { ...process.env, ...env }, stderr: "ignore", cwd: scratch,
  });
  // Sampling and elicitation declared, as a capable client would: some servers list more tools then.
  const client = new Client({ name: "coffer-eval-capture", version: "0.0.0" },
                            { capabilities: { sampling: {}, elicitation: {} } });
  const timer = setTimeout(() => transport.close(), 60000);
  try {
    await client.connect(transport);
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    const out = {
      server: name,
      package: pkg,
      version: version(pkg),
      captured: "tools/list and initialize instructions over stdio by capture/capture.mjs",
      instructions: client.getInstructions() ?? "",
      tools,
    };
    writeFileSync(join(here, "..", "servers", `${name}.json`), JSON.stringify(out, null, 1) + "\n");
    console.log(`${name}: ${tools.length} tools (${pkg}@${out.version})`);
  } catch (e) {
    console.log(`${name}: FAILED ${e.message}`);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}

const only = process.argv.slice(2);
for (const s of SERVERS) if (!only.length || only.includes(s[0])) await capture(s);
process.exit(0);
