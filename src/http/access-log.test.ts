import { Writable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AccessLog } from './access-log.js';

/** A pino logger as the app configures it, writing its lines into `lines`. */
function capture(level: string) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = pino(
    { level, redact: { paths: ['req.headers.authorization'], censor: '[redacted]' } },
    stream,
  );
  return { lines, logger };
}

const tricky = '/v1/partners/ptr_"quoted"\\back\u2028ü😀';

function complete(direct: boolean, level: string, request: Partial<FastifyRequest>) {
  const { lines, logger } = capture(level);
  const req = { log: logger.child({ reqId: 'req_1' }), ...request } as unknown as FastifyRequest;
  const reply = { statusCode: 200, elapsedTime: 3.14159 } as FastifyReply;
  new AccessLog(direct).requestCompleted(null, req, reply);
  return lines;
}

describe('the access log', () => {
  it('writes exactly the text pino writes, but for the time', () => {
    const requests: Partial<FastifyRequest>[] = [
      {
        method: 'GET',
        url: `${tricky}?token=secret`,
        ip: '127.0.0.1',
        principal: { accountId: 'acc_1' } as FastifyRequest['principal'],
      },
      { method: 'POST', url: '/health', ip: undefined },
    ];
    for (const request of requests) {
      const [direct] = complete(true, 'info', request);
      const [general] = complete(false, 'info', request);
      const withoutTime = (line: string) => line.replace(/"time":\d+/, '"time":0');
      expect(withoutTime(direct!)).toBe(withoutTime(general!));
      const parsed = JSON.parse(direct!) as Record<string, unknown>;
      expect(parsed).toMatchObject({ level: 30, reqId: 'req_1', msg: 'request', ms: 3.1 });
      expect(parsed.url).not.toContain('secret');
      expect(Math.abs(Number(parsed.time) - Date.now())).toBeLessThan(60_000);
    }
    const [first] = complete(true, 'info', requests[0]!);
    expect(JSON.parse(first!)).toMatchObject({ url: tricky, account: 'acc_1', ip: '127.0.0.1' });
  });

  it('writes nothing when the level is above info', () => {
    expect(complete(true, 'warn', { method: 'GET', url: '/', ip: '::1' })).toEqual([]);
    expect(complete(false, 'warn', { method: 'GET', url: '/', ip: '::1' })).toEqual([]);
  });
});
