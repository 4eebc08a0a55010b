#!/usr/bin/env node
// An `external` channel adapter in Node (no dependencies): channel_echo's toy line protocol over
// TCP on 127.0.0.1, spoken to Coffer as JSON lines over stdio. Coffer runs it as
//   coffer channel add NAME --adapter external --agent AGENT \
//     --config '{"command":"node","args":["/path/to/line_adapter.mjs","--port","0"]}'
// Platform side (a client connected to the port): writes `MSG <id> <chat> <sender> <text>`,
// reads `ACK <id>` once Coffer has the message, and `SEND <chat> <ref> <text>`,
// `EDIT <chat> <ref> <text>`, `TYPING <chat>` (text escaped: \n, \\).
// Coffer side: {"type":"inbound","message":{…}} and {"type":"health",…} out; ack/send/edit/typing in.
import net from "node:net";
import readline from "node:readline";

const portArg = process.argv.indexOf("--port");
const port = portArg > 0 ? Number(process.argv[portArg + 1]) : 0;
const clients = new Set();
const out = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
const escape = (t) => t.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const unescape = (t) => t.replace(/\\(n|\\)/g, (_, c) => (c === "n" ? "\n" : "\\"));
const broadcast = (line) => { for (const c of clients) c.write(line + "\n"); };

const server = net.createServer((socket) => {
  clients.add(socket);
  socket.on("close", () => clients.delete(socket));
  socket.on("error", () => clients.delete(socket));
  readline.createInterface({ input: socket }).on("line", (line) => {
    const m = /^MSG (\S+) (\S+) (\S+) (.*)$/.exec(line.replace(/\r$/, ""));
    if (!m) return socket.write("ERR expected: MSG <id> <chat> <sender> <text>\n");
    out({ type: "inbound", message: { id: m[1], chat: m[2], sender: m[3], text: unescape(m[4]), chat_type: "direct" } });
  });
});
server.listen(port, "127.0.0.1", () => out({ type: "health", health: "receiving", port: server.address().port }));

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.type === "ack") broadcast((m.ok ? "ACK " : "NACK ") + m.id);
  else if (m.type === "send") broadcast(`SEND ${m.chat} ${m.ref} ${escape(m.text)}`);
  else if (m.type === "edit") broadcast(`EDIT ${m.chat} ${m.ref} ${escape(m.text)}`);
  else if (m.type === "typing") broadcast(`TYPING ${m.chat}`);
});
// Coffer closing stdin (or SIGTERM) ends the adapter.
process.stdin.on("end", () => process.exit(0));
