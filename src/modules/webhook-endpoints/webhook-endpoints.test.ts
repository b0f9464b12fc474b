import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeResourceContract } from '../../../test/contract.js';
import {
  auditCount,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';

/** Webhook endpoints: the resource, its secret and the target rules (issue 14). */

let t: TestApp;
/** The same service as an operator leaves it: private targets refused. */
let strict: TestApp;
let admin: TestUser;
let member: TestUser;
let other: TestUser;

beforeAll(async () => {
  t = await buildTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  strict = await buildTestApp();
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  other = await createUser(t);
});
afterAll(async () => {
  await t.close();
  await strict.close();
});

type Json = Record<string, unknown>;
type Endpoint = {
  id: string;
  version: number;
  url: string;
  eventTypes: string[];
  enabled: boolean;
  secret?: string;
} & Json;

const PUBLIC_URL = 'https://8.8.8.8/hooks/kontor';

describeResourceContract(() => t, {
  name: 'webhook endpoint',
  path: '/v1/webhook-endpoints',
  create: () => ({ url: PUBLIC_URL, eventTypes: ['partner.created'] }),
  update: { method: 'PUT', body: { url: 'https://1.1.1.1/other' } },
  changedField: 'url',
  shownOnce: ['secret'],
});

const create = (payload: Json, as = admin, app = t) =>
  app.request({ method: 'POST', url: '/v1/webhook-endpoints', token: as.token, payload });
const get = (id: string, as = admin) =>
  t.request({ method: 'GET', url: `/v1/webhook-endpoints/${id}`, token: as.token });
const put = (id: string, payload: Json, as = admin, app = t) =>
  app.request({ method: 'PUT', url: `/v1/webhook-endpoints/${id}`, token: as.token, payload });
const rotate = (id: string, as = admin, headers: Record<string, string> = {}) =>
  t.request({
    method: 'POST',
    url: `/v1/webhook-endpoints/${id}/rotate-secret`,
    token: as.token,
    headers,
  });
const list = async (query = '', as = admin) =>
  (
    await t.request({ method: 'GET', url: `/v1/webhook-endpoints?${query}`, token: as.token })
  ).json<{ data: Endpoint[]; nextCursor: string | null }>();

describe('webhook endpoints: the resource', () => {
  it('creates an endpoint with defaults and answers the secret in the create answer only', async () => {
    const res = await create({
      url: PUBLIC_URL,
      eventTypes: ['partner.created', 'payment.created'],
      description: 'ERP sync',
    });
    expect(res.statusCode).toBe(201);
    const body = res.json<Endpoint>();
    expect(body).toMatchObject({
      version: 1,
      url: PUBLIC_URL,
      eventTypes: ['partner.created', 'payment.created'],
      enabled: true,
      description: 'ERP sync',
      disabledReason: null,
      failureCount: 0,
      failingSince: null,
    });
    expect(body.id).toMatch(/^whe_/);
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`/v1/webhook-endpoints/${body.id}`);
    // Standard Webhooks: whsec_ + base64 of 32 random bytes.
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(body.secret!.slice(6), 'base64')).toHaveLength(32);

    const { secret, ...withoutSecret } = body;
    const read = await get(body.id);
    expect(read.json()).toEqual(withoutSecret);
    expect(read.body).not.toContain(secret!);
    expect(JSON.stringify(await list('limit=100'))).not.toContain(secret!);
    const changed = await put(body.id, { version: 1, description: null });
    expect(changed.json()).toMatchObject({ description: null, version: 2 });
    expect(changed.json()).not.toHaveProperty('secret');

    // Stored sealed, never as it was shown; the audit trail holds no trace of it either.
    const row = await t.app.ctx.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret!.slice(6, 30));
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'changes'])
      .where('resource_id', '=', body.id)
      .orderBy('seq')
      .execute();
    expect(events.map((e) => e.action)).toEqual([
      'webhook_endpoint.created',
      'webhook_endpoint.updated',
    ]);
    expect(JSON.stringify(events)).not.toContain(secret!.slice(6, 30));
    expect(JSON.stringify(events)).not.toMatch(/secret/i);
  });

  it('creates a disabled endpoint when asked, filters by enabled and pages by cursor', async () => {
    const owner = await createUser(t);
    const made: string[] = [];
    for (let i = 0; i < 3; i++)
      made.push(
        (
          await create(
            { url: `https://8.8.4.4/h${i}`, eventTypes: ['partner.updated'], enabled: i !== 1 },
            owner,
          )
        ).json<Endpoint>().id,
      );
    const disabled = await list('enabled=false', owner);
    expect(disabled.data.map((e) => e.id)).toEqual([made[1]]);
    const first = await list('limit=2', owner);
    expect(first.data.map((e) => e.id)).toEqual([made[2], made[1]]);
    const second = await list(`limit=2&cursor=${first.nextCursor}`, owner);
    expect(second.data.map((e) => e.id)).toEqual([made[0]]);
    expect(second.nextCursor).toBeNull();
  });

  it('rotates the secret: a new one, answered once, a version bump and an audit event', async () => {
    const made = (
      await create({ url: PUBLIC_URL, eventTypes: ['partner.created'] })
    ).json<Endpoint>();
    const stale = await rotate(made.id, admin, { 'if-match': '"7"' });
    expect(stale.statusCode).toBe(412);
    const res = await rotate(made.id, admin, { 'if-match': '"1"' });
    expect(res.statusCode).toBe(200);
    const rotated = res.json<Endpoint>();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(made.secret);
    expect(rotated.version).toBe(2);
    expect(res.headers.etag).toBe('"2"');
    expect((await get(made.id)).json()).not.toHaveProperty('secret');
    expect(await auditCount(t, admin.accountId, made.id)).toBe(2);
    expect((await rotate('whe_01jd8x0000000000000000000', admin)).statusCode).toBe(404);
  });

  it('re-enabling clears the service’s verdict; disabling by hand leaves no reason', async () => {
    const made = (
      await create({ url: PUBLIC_URL, eventTypes: ['partner.created'] })
    ).json<Endpoint>();
    const off = await put(made.id, { version: 1, enabled: false });
    expect(off.json()).toMatchObject({ enabled: false, disabledReason: null, version: 2 });
    const on = await put(made.id, { version: 2, enabled: true, eventTypes: ['payment.updated'] });
    expect(on.json()).toMatchObject({
      enabled: true,
      failureCount: 0,
      eventTypes: ['payment.updated'],
      version: 3,
    });
  });

  it('takes the version read as body `version` or as If-Match, and needs one of them', async () => {
    const made = (
      await create({ url: PUBLIC_URL, eventTypes: ['partner.created'] })
    ).json<Endpoint>();
    const putWith = (payload: Json, headers: Record<string, string>) =>
      t.request({
        method: 'PUT',
        url: `/v1/webhook-endpoints/${made.id}`,
        token: admin.token,
        payload,
        headers,
      });
    const byHeader = await putWith({ description: 'by If-Match' }, { 'if-match': '"1"' });
    expect(byHeader.statusCode).toBe(200);
    expect(byHeader.json()).toMatchObject({ description: 'by If-Match', version: 2 });
    expect(byHeader.headers.etag).toBe('"2"');
    const stale = await putWith({ description: 'stale' }, { 'if-match': '"1"' });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject({ code: 'precondition_failed', currentVersion: 2 });
    const any = await putWith({ description: 'any' }, { 'if-match': '*' });
    expect(any.json()).toMatchObject({ description: 'any', version: 3 });
    const neither = await putWith({ description: 'neither' }, {});
    expect(neither.statusCode).toBe(428);
    expect(neither.json()).toMatchObject({ code: 'precondition_required' });
    expect(neither.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/version', code: 'required' }),
    );
    expect((await get(made.id)).json()).toMatchObject({ description: 'any', version: 3 });
    expect(await auditCount(t, admin.accountId, made.id)).toBe(3);
  });

  it('deletes an endpoint (204, then 404)', async () => {
    const made = (
      await create({ url: PUBLIC_URL, eventTypes: ['partner.created'] })
    ).json<Endpoint>();
    const res = await t.request({
      method: 'DELETE',
      url: `/v1/webhook-endpoints/${made.id}`,
      token: admin.token,
    });
    expect(res.statusCode).toBe(204);
    expect((await get(made.id)).statusCode).toBe(404);
  });
});

describe('webhook endpoints: access', () => {
  it('lets users read and only admins write (403, nothing written)', async () => {
    const made = (
      await create({ url: PUBLIC_URL, eventTypes: ['partner.created'] })
    ).json<Endpoint>();
    const before = await auditCount(t, admin.accountId);
    for (const res of [
      await create({ url: PUBLIC_URL, eventTypes: ['partner.created'] }, member),
      await put(made.id, { version: 1, enabled: false }, member),
      await rotate(made.id, member),
      await t.request({
        method: 'DELETE',
        url: `/v1/webhook-endpoints/${made.id}`,
        token: member.token,
      }),
      await t.request({
        method: 'POST',
        url: `/v1/webhook-endpoints/${made.id}/deliveries/msg_01jd8x0000000000000000000/replay`,
        token: member.token,
      }),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('forbidden');
    }
    expect(await auditCount(t, admin.accountId)).toBe(before);
    expect((await get(made.id, member)).statusCode).toBe(200);
    expect((await list('limit=100', member)).data.map((e) => e.id)).toContain(made.id);
    const deliveries = await t.request({
      method: 'GET',
      url: `/v1/webhook-endpoints/${made.id}/deliveries`,
      token: member.token,
    });
    expect(deliveries.statusCode).toBe(200);
    expect(deliveries.json()).toEqual({ data: [], nextCursor: null });
  });

  it('answers 404 for another account’s endpoint, its deliveries and its secret', async () => {
    const foreign = (
      await create({ url: PUBLIC_URL, eventTypes: ['partner.created'] }, other)
    ).json<Endpoint>();
    for (const res of [
      await rotate(foreign.id),
      await t.request({
        method: 'GET',
        url: `/v1/webhook-endpoints/${foreign.id}/deliveries`,
        token: admin.token,
      }),
    ])
      expect(res.statusCode).toBe(404);
  });
});

describe('webhook endpoints: bad input', () => {
  it.each([
    ['no event types', { url: PUBLIC_URL, eventTypes: [] }, '/body/eventTypes', 'too_few'],
    [
      'an event type twice',
      { url: PUBLIC_URL, eventTypes: ['partner.created', 'partner.created'] },
      '/body/eventTypes',
      'duplicate_items',
    ],
    [
      'an unknown event type',
      { url: PUBLIC_URL, eventTypes: ['partner.deleted'] },
      '/body/eventTypes/0',
      'not_in_enum',
    ],
    ['a missing url', { eventTypes: ['partner.created'] }, '/body/url', 'required'],
    [
      'a url that is none',
      { url: 'not a url', eventTypes: ['partner.created'] },
      '/body/url',
      'invalid_format',
    ],
    [
      'a url over 2048 characters',
      { url: `https://8.8.8.8/${'a'.repeat(2040)}`, eventTypes: ['partner.created'] },
      '/body/url',
      'too_long',
    ],
    [
      'enabled as a string',
      { url: PUBLIC_URL, eventTypes: ['partner.created'], enabled: 'yes' },
      '/body/enabled',
      'wrong_type',
    ],
  ])('400 on %s', async (_label, payload, path, code) => {
    const res = await create(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
  });

  it('400 on a bad list or deliveries query', async () => {
    const made = (
      await create({ url: PUBLIC_URL, eventTypes: ['partner.created'] })
    ).json<Endpoint>();
    for (const url of [
      '/v1/webhook-endpoints?cursor=garbage',
      '/v1/webhook-endpoints?enabled=maybe',
      `/v1/webhook-endpoints/${made.id}/deliveries?status=LOST`,
      `/v1/webhook-endpoints/${made.id}/deliveries?eventType=partner.deleted`,
      `/v1/webhook-endpoints/${made.id}/deliveries?limit=0`,
    ]) {
      const res = await t.request({ method: 'GET', url, token: admin.token });
      expect(res.statusCode, url).toBe(400);
    }
  });
});

describe('webhook endpoints: targets (SSRF)', () => {
  /** Creates on `app`; answers the status and the reason given for `/body/url`. */
  const attempt = async (url: string, app: TestApp, as?: TestUser) => {
    const user = as ?? (app === t ? admin : await createUser(app));
    const res = await create({ url, eventTypes: ['partner.created'] }, user, app);
    const error = (
      res.json().errors as { path: string; message: string; code: string }[] | undefined
    )?.find((e) => e.path === '/body/url');
    return { status: res.statusCode, code: res.json().code as string, reason: error?.message };
  };

  it.each([
    ['http://127.0.0.1:8080/hook', 'private or loopback'],
    ['https://127.0.0.1/hook', 'private or loopback'],
    ['https://localhost/hook', 'private or loopback address (127.0.0.1)'],
    ['https://[::1]/hook', 'private or loopback'],
    ['https://10.1.2.3/hook', 'private or loopback'],
    ['https://192.168.178.1/hook', 'private or loopback'],
    ['https://[fd12:3456::1]/hook', 'private or loopback'],
    ['https://[::ffff:127.0.0.1]/hook', 'private or loopback'],
    ['https://0x7f.1/hook', 'private or loopback'],
    // IPv4-compatible IPv6 (::/96): the address it embeds decides.
    ['https://[::127.0.0.1]/hook', 'private or loopback'],
    ['http://[::7f00:1]:8080/hook', 'private or loopback'],
    ['https://[::a01:203]/hook', 'private or loopback'],
  ])('refuses %s by default with 422 naming /body/url', async (url, why) => {
    // This account's endpoints: other test files create theirs in the same database meanwhile.
    const user = await createUser(strict);
    const endpoints = () =>
      strict.app.ctx.db
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', user.accountId)
        .executeTakeFirstOrThrow();
    const before = await endpoints();
    const { status, code, reason } = await attempt(url, strict, user);
    expect(status).toBe(422);
    expect(code).toBe('business_rule_violated');
    expect(reason).toContain(why);
    expect(reason).toContain('WEBHOOK_ALLOW_PRIVATE_TARGETS');
    expect(Number((await endpoints()).n)).toBe(Number(before.n));
  });

  it.each([
    ['http://127.0.0.1:8080/hook'],
    ['https://localhost/hook'],
    ['http://[::1]:9/hook'],
    ['http://10.0.0.7/hook'],
  ])('allows %s with WEBHOOK_ALLOW_PRIVATE_TARGETS=true', async (url) => {
    expect((await attempt(url, t)).status).toBe(201);
  });

  it.each([
    ['https://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['https://169.254.10.20/', 'link-local'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://[fd00:ec2::254]/', 'cloud metadata'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'cloud metadata host'],
    ['https://METADATA.GOOGLE.INTERNAL./x', 'cloud metadata host'],
    ['https://0.0.0.0/', 'special-purpose'],
    ['https://224.0.0.1/', 'special-purpose'],
    ['https://[::]/', 'special-purpose'],
    ['http://168.63.129.16/machine/?comp=goalstate', 'cloud metadata'],
    ['https://[fd20:ce::254]/', 'cloud metadata'],
    ['https://[::169.254.169.254]/latest/meta-data/', 'cloud metadata'],
    ['https://[::a9fe:a9fe]/latest/meta-data/', 'cloud metadata'],
    ['https://[::8.8.8.8]/', 'IPv4-compatible'],
  ])('always refuses %s, whatever the setting', async (url, why) => {
    for (const app of [strict, t]) {
      const { status, reason } = await attempt(url, app);
      expect(status).toBe(422);
      expect(reason).toContain(why);
    }
  });

  it.each([
    ['http://8.8.8.8/hook', 'must use https'],
    ['ftp://8.8.8.8/hook', 'must use https'],
    ['https://user:pass@8.8.8.8/hook', 'must not contain credentials'],
    ['https://does-not-exist.invalid/hook', 'does not resolve'],
  ])('refuses %s on any setting', async (url, why) => {
    for (const app of [strict, t]) {
      const { status, reason } = await attempt(url, app);
      expect(status).toBe(422);
      expect(reason).toContain(why);
    }
  });

  it('checks the url of an update too, and changes nothing when refused', async () => {
    const user = await createUser(strict);
    const made = (
      await create({ url: PUBLIC_URL, eventTypes: ['partner.created'] }, user, strict)
    ).json<Endpoint>();
    const res = await put(made.id, { version: 1, url: 'https://localhost:8443/x' }, user, strict);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([expect.objectContaining({ path: '/body/url' })]);
    const read = await strict.request({
      method: 'GET',
      url: `/v1/webhook-endpoints/${made.id}`,
      token: user.token,
    });
    expect(read.json()).toMatchObject({ url: PUBLIC_URL, version: 1 });
  });
});
