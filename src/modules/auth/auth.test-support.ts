import { randomInt } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../../../test/helpers.js';

/** Shared by the auth test files: problem and token shapes, and a POST helper per file. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  errors?: { path: string; message: string; code: string }[];
}

export interface Tokens {
  accessToken: string;
  refreshToken: string;
  tokenType: string;
  expiresIn: number;
  refreshExpiresAt: string;
  user: { id: string; email: string; name: string; role: string; status: string };
  account: { id: string; name: string };
}

export type Body = Record<string, unknown>;

export interface Opts {
  app?: TestApp;
  ip?: string;
  token?: string;
  key?: string | null;
}

export const NEW_PASSWORD = 'a brand new passphrase 77';

/**
 * A made-up client address. Per-IP failure counters live in Redis across runs and files, and
 * inject answers from 127.0.0.1 by default: random addresses keep the auth tests apart.
 */
export const fakeIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

export const problem = (res: LightMyRequestResponse) => res.json<Problem>();
export const withoutRequestId = ({ requestId: _requestId, ...rest }: Problem) => rest;

/** `POST /v1/auth/<endpoint>` against the file's app, from the file's own fake IP. */
export function authPoster(app: () => TestApp, ip: string) {
  return (endpoint: string, payload?: Body, opts: Opts = {}) =>
    (opts.app ?? app()).request({
      method: 'POST',
      url: `/v1/auth/${endpoint}`,
      payload,
      remoteAddress: opts.ip ?? ip,
      token: opts.token,
      key: opts.key,
    });
}
