// The floor of the messages benchmark: the least a Node.js proxy does for a streaming request.
// It reads the body, sends it to one upstream over a kept-alive undici pool and copies the
// answer's bytes back as they come: no authentication, no translation, no Express. What the
// API adds beyond what this adds is the API's own cost.
// Usage: node --import tsx floor-proxy.ts <port> <upstream base URL> (tsx compiles it once at
// start; what runs per request is plain JavaScript).
import { createServer } from 'node:http';
import { Pool } from 'undici';

const [, , port, upstream] = process.argv;
const target = new URL(upstream ?? '');
const base = target.pathname.replace(/\/+$/, '');
const pool = new Pool(target.origin, { connections: 8 });

createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    pool
      .request({
        method: 'POST',
        path: `${base}${req.url}`,
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      })
      .then(async (answer) => {
        res.writeHead(answer.statusCode, {
          'content-type': String(answer.headers['content-type']),
        });
        for await (const piece of answer.body) res.write(piece);
        res.end();
      })
      .catch((err: unknown) => {
        res.writeHead(502).end(String(err));
      });
  });
}).listen(Number(port), '127.0.0.1');
