import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
});
afterAll(() => t.close());

const URL = '/v1/document-templates';
type Body = Record<string, unknown>;
interface Problem {
  part: string;
  code: string;
  message: string;
  line?: number;
  column?: number;
  placeholder?: string;
}

const compile = (payload: Body, who = user) =>
  t.request({ method: 'POST', url: `${URL}/compile`, token: who.token, payload });
const create = (payload: Body, who = user) =>
  t.request({ method: 'POST', url: URL, token: who.token, payload });
const put = (id: string, payload: Body, who = user) =>
  t.request({ method: 'PUT', url: `${URL}/${id}`, token: who.token, payload });
const templateCount = async (who: TestUser) =>
  Number(
    (
      await t.app.ctx.db
        .selectFrom('document_templates')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', who.accountId)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /v1/document-templates/compile', () => {
  it('renders with sample data, answers the HTML and no problems, and saves nothing', async () => {
    const templates = await templateCount(user);
    const events = await auditCount(t, user.accountId);
    const res = await compile({
      name: 'Vorschau',
      headerSource: '<b>{{ account.name }}</b>',
      contentSource:
        '<p>{{ partner.name }}, {{ partner.address.postalCode }} {{ partner.address.city }}</p>',
      systemKey: 'NOTICE', // allowed here: nothing is stored
      compiledContentHtml: 'ignored',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      compiledHeaderHtml: '<b>Test GmbH</b>',
      compiledContentHtml: '<p>Muster &amp; Partner GmbH, 50667 Köln</p>',
      compiledFooterHtml: null,
      problems: [],
    });
    expect(await templateCount(user)).toBe(templates);
    expect(await auditCount(t, user.accountId)).toBe(events);
  });

  it('reports an unknown placeholder with part, line, column and path', async () => {
    const res = await compile({
      name: 'X',
      contentSource: '<p>Hallo</p>\n<p>{{ partner.name }} {{ contract.nme }}</p>',
      footerSource: '{{ kunde.nummer }}',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().problems).toEqual([
      {
        part: 'content',
        code: 'unknown_placeholder',
        message: expect.stringContaining('contract.nme'),
        line: 2,
        column: 26,
        placeholder: 'contract.nme',
      },
      expect.objectContaining({
        part: 'footer',
        code: 'unknown_placeholder',
        placeholder: 'kunde',
        line: 1,
        column: 4,
      }),
    ]);
  });

  it('reports a missing required field when rendering with supplied data', async () => {
    const body = {
      name: 'Mit Feldern',
      contentSource: '<p>{{ fields.grund }} – {{ fields.betrag | money }}</p>',
      fields: [
        { key: 'grund', label: 'Kündigungsgrund', type: 'text', required: true },
        { key: 'betrag', label: 'Betrag', type: 'money', required: true, default: 10 },
      ],
    };
    // Sample data fills every field.
    expect((await compile(body)).json()).toMatchObject({
      compiledContentHtml: '<p>[Kündigungsgrund] – 10,00 €</p>',
      problems: [],
    });
    const missing = (await compile({ ...body, data: { fields: {} } })).json();
    expect(missing.compiledContentHtml).toBe('<p> – 10,00 €</p>');
    expect(missing.problems).toEqual([
      expect.objectContaining({
        part: 'content',
        code: 'missing_required_field',
        placeholder: 'fields.grund',
      }),
    ]);
    const supplied = (
      await compile({ ...body, data: { fields: { grund: 'Umzug', betrag: 12.5 } } })
    ).json();
    expect(supplied).toMatchObject({ compiledContentHtml: '<p>Umzug – 12,50 €</p>', problems: [] });
  });

  it('reports a syntax error with line and column', async () => {
    const res = await compile({
      name: 'Kaputt',
      contentSource: '<p>Zeile 1</p>\n<p>Zeile 2</p>\n   {% if contract.name %}offen',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      compiledContentHtml: '',
      problems: [
        {
          part: 'content',
          code: 'syntax_error',
          line: 3,
          column: 4,
          message: expect.stringContaining('not closed'),
        },
      ],
    });
  });

  it('renders supplied records in the account’s date and number formats', async () => {
    const owner = await createUser(t);
    const body = {
      name: 'Formate',
      contentSource:
        '{{ contract.startDate | date }} {{ contract.totalValue | money: contract.currency }} {{ today | date }} {{ fields.n | number: 1 }}',
      fields: [{ key: 'n', label: 'N', type: 'number' }],
      data: {
        today: '2026-11-21',
        contract: { name: 'Miete', startDate: '2026-01-31', totalValue: 12345.6, currency: 'EUR' },
        fields: { n: 1234.56 },
      },
    };
    expect((await compile(body, owner)).json().compiledContentHtml).toBe(
      '31.01.2026 12.345,60 € 21.11.2026 1.234,6',
    );
    const settings = await t.request({
      method: 'GET',
      url: '/v1/account/addresses',
      token: owner.token,
    });
    const patched = await t.request({
      method: 'PATCH',
      url: '/v1/account/addresses',
      token: owner.token,
      payload: {
        version: settings.json().version,
        dateFormat: 'DD/MM/YYYY',
        numberFormat: '1,234.56',
      },
    });
    expect(patched.statusCode).toBe(200);
    expect((await compile(body, owner)).json().compiledContentHtml).toBe(
      '31/01/2026 €12,345.60 21/11/2026 1,234.6',
    );
  });

  it('sandboxes: include and prototype tricks, huge loops and unsafe markup', async () => {
    const include = (
      await compile({ name: 'X', contentSource: 'a\n{% include "/etc/passwd" %}' })
    ).json();
    expect(include.problems).toEqual([expect.objectContaining({ code: 'syntax_error', line: 2 })]);
    const proto = (
      await compile({
        name: 'X',
        contentSource: '[{{ partner.constructor }}{{ partner.__proto__ }}]',
      })
    ).json();
    expect(proto.compiledContentHtml).toBe('[]');
    const loop = (
      await compile({ name: 'X', contentSource: '{% for i in (1..100000000) %}x{% endfor %}' })
    ).json();
    expect(loop.problems).toEqual([expect.objectContaining({ code: 'limit_exceeded' })]);
    const unsafe = (
      await compile({
        name: 'X',
        contentSource:
          '<p>ok</p><img src="https://evil.example/p.png" onerror="alert(1)"><style>@import url(https://evil.example/a.css);</style>',
      })
    ).json();
    expect(unsafe.compiledContentHtml).toBe('<p>ok</p><img /><style></style>');
    expect(unsafe.problems).toEqual([expect.objectContaining({ code: 'unsafe_markup_removed' })]);
  });

  it('400 on invalid data, naming the field', async () => {
    for (const [data, path, code] of [
      [
        { contract: { name: 'M', startDate: '31.12.2026' } },
        '/body/data/contract/startDate',
        'invalid_format',
      ],
      [{ partner: { name: 'P', colour: 'red' } }, '/body/data/partner/colour', 'unknown_field'],
      [{ somethingElse: 1 }, '/body/data/somethingElse', 'unknown_field'],
      [{ fields: { x: { nested: true } } }, '/body/data/fields/x', 'wrong_type'],
    ] as const) {
      const res = await compile({ name: 'X', contentSource: 'x', data });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    }
  });
});

describe('saving checks the compiled template', () => {
  it('422 template_invalid with the problems when a source does not parse, on create and PUT', async () => {
    const before = await templateCount(user);
    const res = await create({
      name: 'Kaputt',
      contentSource: 'ok',
      headerSource: 'x\n {{ partner.name ',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: 'template_invalid',
      problems: [
        expect.objectContaining({ part: 'header', code: 'syntax_error', line: 2, column: 2 }),
      ],
    });
    expect(await templateCount(user)).toBe(before);

    const tpl = (await create({ name: 'Gut', contentSource: 'ok' })).json();
    const bad = await put(tpl.id, { version: 1, contentSource: '{% render "x" %}' });
    expect(bad.statusCode).toBe(422);
    expect((bad.json().problems as Problem[])[0]).toMatchObject({
      code: 'syntax_error',
      message: expect.stringContaining('render'),
    });
    const still = await t.request({ method: 'GET', url: `${URL}/${tpl.id}`, token: user.token });
    expect(still.json()).toMatchObject({ version: 1, contentSource: 'ok' });
  });

  it('422 when a template runs into a limit', async () => {
    const res = await create({
      name: 'Endlos',
      contentSource: '{% for i in (1..100000000) %}x{% endfor %}',
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().problems).toEqual([expect.objectContaining({ code: 'limit_exceeded' })]);
  });

  it('PUBLISHED needs a template without problems; a DRAFT may keep warnings', async () => {
    const warning = { name: 'Tippfehler', contentSource: '<p>{{ contract.nme }}</p>' };
    const published = await create({ ...warning, status: 'PUBLISHED' });
    expect(published.statusCode).toBe(422);
    expect(published.json()).toMatchObject({
      code: 'template_invalid',
      problems: [
        expect.objectContaining({ code: 'unknown_placeholder', placeholder: 'contract.nme' }),
      ],
    });
    const draft = await create(warning);
    expect(draft.statusCode).toBe(201);
    const id = draft.json().id as string;
    const publish = await put(id, { version: 1, status: 'PUBLISHED' });
    expect(publish.statusCode).toBe(422);
    const unsafe = await put(id, {
      version: 1,
      status: 'PUBLISHED',
      contentSource: '<p onclick="x">{{ contract.name }}</p>',
    });
    expect(unsafe.statusCode).toBe(422);
    expect(unsafe.json().problems).toEqual([
      expect.objectContaining({ code: 'unsafe_markup_removed' }),
    ]);
    const fixed = await put(id, {
      version: 1,
      status: 'PUBLISHED',
      contentSource: '<p>{{ contract.name }}</p>',
    });
    expect(fixed.statusCode).toBe(200);
    expect(fixed.json()).toMatchObject({
      status: 'PUBLISHED',
      compiledContentHtml: '<p>Wartungsvertrag Heizungsanlage</p>',
    });
    // Editing a PUBLISHED template keeps the rule; back to DRAFT allows warnings again.
    expect((await put(id, { version: 2, contentSource: '{{ nope }}' })).statusCode).toBe(422);
    expect(
      (await put(id, { version: 2, contentSource: '{{ nope }}', status: 'DRAFT' })).statusCode,
    ).toBe(200);
  });
});
