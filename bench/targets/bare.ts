// Ceiling 1: bare node:http answering a small JSON — what one core does with no framework at all.
import http from 'node:http';

const body = JSON.stringify({ status: 'ok' });
http
  .createServer((_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  })
  .listen(Number(process.env.PORT ?? 0), '127.0.0.1');
