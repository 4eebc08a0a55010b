// A header-adding forwarder for the conformance run: the official suite cannot send headers, and
// Coffer's /mcp requires `X-Coffer-Token` on every request. This loopback HTTP server passes each
// request through to the daemon unchanged (method, path, every header including Host and Origin,
// the body as a stream) and adds only the token, read from the vault's daemon.json at each request
// so a restart or rotation is picked up. Responses stream back as they arrive (event streams
// included); when either side hangs up, the other connection is closed too.
//
// The daemon's token check is untouched: without this forwarder, the suite's requests get 401.
//
//   import { startForwarder } from './forwarder.mjs';
//   const fwd = await startForwarder({ home: '/tmp/vault' });   // fwd.url = http://127.0.0.1:<port>/mcp
//   await fwd.close();
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

function daemonInfo(home) {
  const info = JSON.parse(fs.readFileSync(path.join(home, 'daemon.json'), 'utf8'));
  if (!info.port || !info.token) throw new Error(`daemon.json in ${home} has no port or token`);
  return info;
}

// Only /mcp is forwarded: the suite has no business with the rest of the daemon's API.
function forwardable(url) {
  const p = url.split('?')[0];
  return p === '/mcp' || p === '/mcp/';
}

export async function startForwarder({ home, host = '127.0.0.1', port = 0 }) {
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    if (!forwardable(req.url)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return res.end('the conformance forwarder passes only /mcp\n');
    }
    let info;
    try {
      info = daemonInfo(home);
    } catch (e) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      return res.end(`no daemon: ${e.message}\n`);
    }
    // rawHeaders keeps repeated headers and their case; drop any token the caller sent.
    const headers = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      if (req.rawHeaders[i].toLowerCase() === 'x-coffer-token') continue;
      headers.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
    }
    headers.push('X-Coffer-Token', info.token);
    const up = http.request({ host: '127.0.0.1', port: info.port, method: req.method, path: req.url, headers });
    up.on('response', (ur) => {
      const out = [];
      for (let i = 0; i < ur.rawHeaders.length; i += 2) out.push(ur.rawHeaders[i], ur.rawHeaders[i + 1]);
      res.writeHead(ur.statusCode, ur.statusMessage, out);
      res.flushHeaders();
      ur.on('data', (chunk) => res.write(chunk));
      ur.on('end', () => res.end());
      ur.on('error', () => res.destroy());
      ur.on('aborted', () => res.destroy());
    });
    up.on('error', (e) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`forwarding failed: ${e.message}\n`);
    });
    // The client went away (e.g. closed an event stream): so does our request to the daemon.
    res.on('close', () => {
      if (!res.writableFinished) up.destroy();
    });
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const addr = server.address();
  return {
    port: addr.port,
    url: `http://${host}:${addr.port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

// Run by hand: node forwarder.mjs <COFFER_HOME> [port]
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const home = process.argv[2] || process.env.COFFER_HOME;
  if (!home) {
    console.error('usage: node forwarder.mjs <COFFER_HOME> [port]');
    process.exit(2);
  }
  const fwd = await startForwarder({ home, port: Number(process.argv[3] || 0) });
  console.log(fwd.url);
}
