import type { LightMyRequestResponse } from 'fastify';
import type { TestApp, TestUser } from '../../../test/helpers.js';

/** Shared by the contract test files: request helpers and a valid body. */

export type Body = Record<string, unknown>;

/** "Today" in the contract tests: the derived dates are computed against it. */
export const TODAY = '2026-03-10';
export const START = new Date(`${TODAY}T09:00:00Z`);

export async function newPartner(
  t: TestApp,
  user: TestUser,
  payload: Body = {},
): Promise<{ id: string; name: string; type: string }> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/partners',
    token: user.token,
    payload: { name: 'Stadtwerke Köln', type: 'VENDOR', ...payload },
  });
  if (res.statusCode !== 201) throw new Error(`partner not created: ${res.body}`);
  return res.json<{ id: string; name: string; type: string }>();
}

/** A valid create body for `partnerId`, with `extra` merged in. */
export function contractBody(partnerId: string, extra: Body = {}): Body {
  return {
    name: 'Wartungsvertrag Heizung',
    partnerId,
    partnerName: 'sent by the client',
    startDate: '2026-01-01',
    totalValue: 1200.5,
    currency: 'EUR',
    ...extra,
  };
}

export function postContract(
  t: TestApp,
  user: TestUser,
  payload: Body,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.request({ method: 'POST', url: '/v1/contracts', token: user.token, payload, headers });
}

/** Creates a contract and answers its body; throws unless the API answered 201. */
export async function newContract(
  t: TestApp,
  user: TestUser,
  partnerId: string,
  extra: Body = {},
): Promise<{ id: string; version: number; status: string }> {
  const res = await postContract(t, user, contractBody(partnerId, extra));
  if (res.statusCode !== 201) throw new Error(`contract not created: ${res.body}`);
  return res.json<{ id: string; version: number; status: string }>();
}

export function putContract(
  t: TestApp,
  user: TestUser,
  id: string,
  payload: Body,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.request({
    method: 'PUT',
    url: `/v1/contracts/${id}`,
    token: user.token,
    payload,
    headers,
  });
}

export function getContract(
  t: TestApp,
  user: TestUser,
  id: string,
): Promise<LightMyRequestResponse> {
  return t.request({ method: 'GET', url: `/v1/contracts/${id}`, token: user.token });
}

export function deleteContract(
  t: TestApp,
  user: TestUser,
  id: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.request({ method: 'DELETE', url: `/v1/contracts/${id}`, token: user.token, headers });
}

/** The names of the contracts `GET /v1/contracts?<qs>` answers, in order. */
export async function listNames(t: TestApp, user: TestUser, qs: string): Promise<string[]> {
  const res = await t.request({ method: 'GET', url: `/v1/contracts?${qs}`, token: user.token });
  if (res.statusCode !== 200) throw new Error(`list failed: ${res.body}`);
  return res.json<{ data: { name: string }[] }>().data.map((c) => c.name);
}
