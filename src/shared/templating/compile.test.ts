import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import {
  checkTemplateRenders,
  compileTemplate,
  renderTemplate,
  type TemplateSources,
} from './compile.js';
import { buildRenderContext, type AccountData } from './context.js';
import { OWN_SOURCES, type RenderLimit } from './engine.js';

const account: AccountData = {
  name: 'Kontor GmbH',
  currency: 'EUR',
  dateFormat: 'DD.MM.YYYY',
  numberFormat: '1.234,56',
  addresses: [{ type: 'OFFICE', street: 'Hauptstraße 1', postalCode: '10115', city: 'Berlin' }],
};
const today = '2026-03-05';

// Tests assert no timings: the time budget is generous, and the one test of the time limit
// gives a small one to a workload far past it.
const compile = (
  contentSource: string,
  extra: Partial<TemplateSources> = {},
  renderLimit: RenderLimit = 10_000,
) => compileTemplate({ contentSource, ...extra }, { account, today, renderLimit });

describe('compile: placeholders', () => {
  it('renders the context with sample data, escaping every value', () => {
    const result = compile(
      '<p>{{ account.name }}, {{ account.address.city }} – {{ partner.name }}, {{ partner.address.street }}</p>' +
        '<p>{{ contract.name }}: {{ contract.totalValue | money: contract.currency }}, Frist {{ contract.cancellationDeadline | date }}</p>' +
        '{% for tag in contract.tags %}<i>{{ tag }}</i>{% endfor %}{{ document.documentNumber }} {{ today }}',
    );
    expect(result.problems).toEqual([]);
    expect(result.compiledContentHtml).toBe(
      '<p>Kontor GmbH, Berlin – Muster &amp; Partner GmbH, Beispielweg 12</p>' +
        '<p>Wartungsvertrag Heizungsanlage: 1.234,56 €, Frist 02.10.2027</p><i>Wartung</i>2026-0001 2026-03-05',
    );
    expect(result.compiledHeaderHtml).toBeNull();
    expect(result.compiledFooterHtml).toBeNull();
  });

  it('reports unknown placeholders with line, column and path, once each', () => {
    const result = compile(
      'Hallo\n  {{ contract.nme }} {{ foo }}\n{{ fields.nope }} {{ contract.nme }} {{ partner.address.zip }}',
      { headerSource: '{{ account.logo }}' },
    );
    expect(result.problems).toEqual([
      expect.objectContaining({
        part: 'header',
        code: 'unknown_placeholder',
        placeholder: 'account.logo',
        line: 1,
        column: 4,
      }),
      expect.objectContaining({
        part: 'content',
        code: 'unknown_placeholder',
        placeholder: 'contract.nme',
        line: 2,
        column: 6,
      }),
      expect.objectContaining({
        part: 'content',
        code: 'unknown_placeholder',
        placeholder: 'foo',
        line: 2,
        column: 25,
      }),
      expect.objectContaining({
        part: 'content',
        code: 'unknown_placeholder',
        placeholder: 'fields.nope',
        line: 3,
        column: 4,
      }),
      expect.objectContaining({
        part: 'content',
        code: 'unknown_placeholder',
        placeholder: 'partner.address.zip',
      }),
    ]);
    // Unknown placeholders print nothing; the rest still renders.
    expect(result.compiledContentHtml).toBe('Hallo\n   \n  ');
  });

  it('knows loop variables, assigns, list members and declared fields', () => {
    const result = compile(
      '{% assign end = contract.nextRenewalDate | default: contract.endDate %}{{ end | date }}' +
        '{% for a in partner.addresses %}{{ a.city }}{{ forloop.index }}{% endfor %}' +
        '{{ partner.addresses.first.city }}{{ partner.addresses[0].postalCode }}{{ partner.addresses.size }}' +
        '{{ fields.grund }}{{ grund }}{% case contract.status %}{% when "ACTIVE" %}aktiv{% endcase %}',
      { fields: [{ key: 'grund', label: 'Grund', type: 'text', required: true }] },
    );
    expect(result.problems).toEqual([]);
    expect(result.compiledContentHtml).toBe('31.12.2027Köln1Köln506671[Grund][Grund]aktiv');
  });

  it('uses supplied data instead of the samples and reports missing required fields', () => {
    const fields = [
      { key: 'grund', label: 'Kündigungsgrund', type: 'text' as const, required: true },
      { key: 'betrag', label: 'Betrag', type: 'money' as const, required: true, default: 99.5 },
      { key: 'stichtag', label: 'Stichtag', type: 'date' as const },
    ];
    const result = compileTemplate(
      {
        contentSource:
          '{{ partner.name }}|{{ contract.name }}|{{ fields.grund }}|{{ betrag | money }}|{{ stichtag | date }}',
        footerSource: 'Grund: {{ grund }}',
        fields,
      },
      {
        account,
        today,
        data: { partner: { name: 'Echt AG' }, contract: null, fields: { stichtag: '2026-06-30' } },
      },
    );
    expect(result.compiledContentHtml).toBe('Echt AG|||99,50 €|30.06.2026');
    expect(result.problems).toEqual([
      expect.objectContaining({
        part: 'content',
        code: 'missing_required_field',
        placeholder: 'fields.grund',
      }),
      expect.objectContaining({
        part: 'footer',
        code: 'missing_required_field',
        placeholder: 'fields.grund',
      }),
    ]);
    const wrong = compileTemplate(
      { contentSource: '{{ betrag | money }}{{ stichtag }}', fields },
      { account, today, data: { fields: { grund: 'x', betrag: 1.234, stichtag: '30.06.2026' } } },
    );
    expect(wrong.problems.map((p) => [p.code, p.placeholder])).toEqual([
      ['invalid_field_value', 'fields.betrag'],
      ['invalid_field_value', 'fields.stichtag'],
    ]);
  });

  it('reports syntax errors with line and column, per part', () => {
    const result = compile('Zeile 1\n  {% if contract.name %}\n offen', {
      headerSource: 'ok',
      footerSource: '{{ partner.name | nosuchfilter }}',
    });
    expect(result.problems).toEqual([
      expect.objectContaining({
        part: 'content',
        code: 'syntax_error',
        line: 2,
        column: 3,
        message: expect.stringContaining('not closed'),
      }),
      expect.objectContaining({
        part: 'footer',
        code: 'syntax_error',
        line: 1,
        column: 1,
        message: expect.stringContaining('nosuchfilter'),
      }),
    ]);
    expect(result.compiledHeaderHtml).toBe('ok');
    expect(result.compiledContentHtml).toBe('');
  });

  it('sanitises the output and reports what it removed', () => {
    const result = compile('<p onclick="x()">{{ partner.name }}</p><script>alert(1)</script>');
    expect(result.compiledContentHtml).toBe('<p>Muster &amp; Partner GmbH</p>');
    expect(result.problems).toEqual([
      expect.objectContaining({
        part: 'content',
        code: 'unsafe_markup_removed',
        message: expect.stringContaining('<script>'),
      }),
    ]);
  });

  it('never turns data into markup', () => {
    const result = compileTemplate(
      { contentSource: '<p>{{ partner.name }}</p><p>{{ partner.name | newline_to_br }}</p>' },
      { account, today, data: { partner: { name: '<img src=x onerror=alert(1)>\nZeile 2' } } },
    );
    expect(result.problems).toEqual([]);
    expect(result.compiledContentHtml).toBe(
      '<p>&lt;img src=x onerror=alert(1)&gt;\nZeile 2</p><p>&lt;img src=x onerror=alert(1)&gt;<br />\nZeile 2</p>',
    );
  });
});

describe('compile: sandbox', () => {
  it.each([
    ['include', '{% include "/etc/passwd" %}'],
    ['render', '{% render "secrets" %}'],
    ['layout', '{% layout "base" %}'],
    ['block', '{% block x %}{% endblock %}'],
    ['capture', '{% capture x %}y{% endcapture %}'],
    ['raw filter', '{{ partner.name | raw }}'],
    ['constructor as filter', '{{ "x" | constructor }}'],
    ['hasOwnProperty as filter', '{{ partner | hasOwnProperty: "name" }}'],
    ['constructor as tag', '{% constructor %}'],
    ['__proto__ as tag', '{% __proto__ %}'],
  ])('refuses %s as a syntax error', (_label, source) => {
    const result = compile(`Text\n${source}`);
    expect(result.problems).toEqual([
      expect.objectContaining({ part: 'content', code: 'syntax_error', line: 2 }),
    ]);
    expect(result.compiledContentHtml).toBe('');
  });

  it('gives no access to prototypes or constructors', () => {
    const result = compile(
      '[{{ partner.constructor }}][{{ partner.constructor.name }}][{{ partner["__proto__"] }}][{{ "x".constructor }}]' +
        '[{{ today.constructor }}][{{ contract.tags.constructor }}][{{ partner | map: "constructor" | join }}]' +
        '{% assign c = partner.constructor %}[{{ c.constructor }}][{{ partner.hasOwnProperty }}][{{ partner.toString }}]',
    );
    expect(result.compiledContentHtml).toBe('[][][][][][][][][][]');
  });

  it('stops an enormous loop at once with a problem', () => {
    const result = compile('{% for i in (1..100000000) %}x{% endfor %}');
    expect(result.problems).toEqual([
      expect.objectContaining({ part: 'content', code: 'limit_exceeded', line: 1, column: 1 }),
    ]);
  });

  it('caps loop iterations, nested loops included', () => {
    const result = compile(
      '{% for i in (1..1000) %}{% for j in (1..1000) %}{% for k in (1..1000) %}{% endfor %}{% endfor %}{% endfor %}',
    );
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'limit_exceeded',
        message: expect.stringContaining('loop limit'),
      }),
    ]);
  });

  it('stops a long render within the time limit', () => {
    const body = '{% if i == 0 %}{% endif %}'.repeat(5000);
    // 45 million tags: seconds of work on any machine, stopped after 20 ms.
    const result = compile(`{% for i in (1..9000) %}${body}{% endfor %}`, {}, 20);
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'limit_exceeded',
        message: expect.stringMatching(/render limit.*at most 20 ms per render/),
      }),
    ]);
  });

  it('analyses a source full of placeholders, with exact positions', () => {
    const source = `${'{{ partner.name }}\n'.repeat(11_000)}  {{ nope }}`;
    const result = compile(source);
    // Liquid's own position lookup made this quadratic (over 5 s here); the positions come
    // from a line index now. Tests assert no timings: the figure is in docs, not here.
    expect(result.problems).toEqual([
      expect.objectContaining({
        code: 'unknown_placeholder',
        placeholder: 'nope',
        line: 11_001,
        column: 6,
      }),
    ]);
  });

  it('caps allocations and output size', () => {
    const doubling = compile(
      '{% assign s = "xxxxxxxxxx" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s }}',
    );
    expect(doubling.problems).toEqual([
      expect.objectContaining({
        code: 'limit_exceeded',
        message: expect.stringContaining('memory'),
      }),
    ]);
    const output = compile(`{% for i in (1..9000) %}${'x'.repeat(200)}{% endfor %}`);
    expect(output.problems).toEqual([
      expect.objectContaining({
        code: 'limit_exceeded',
        message: expect.stringContaining('output size'),
      }),
    ]);
  });

  it('renders Kontor’s own sources without the caps, which stay on every other render', () => {
    // 12,000 iterations (the loop cap is 10,000), appends allocating over 5 million characters
    // (the cap is 2,000,000) and 1,800,000 characters of output (the cap is 1,000,000).
    const loops = '{% for i in (1..12000) %}{% endfor %}';
    const memory =
      '{% assign s = "xxxxxxxxxx" %}{% for i in (1..18) %}{% assign s = s | append: s %}{% endfor %}{{ s | size }}';
    const output = `{% for i in (1..9000) %}${'x'.repeat(200)}{% endfor %}`;
    for (const source of [loops, memory, output]) {
      expect(compile(source).problems, source).toEqual([
        expect.objectContaining({ code: 'limit_exceeded' }),
      ]);
      const own = compile(source, {}, OWN_SOURCES);
      expect(own.problems, source).toEqual([]);
    }
    expect(compile(memory, {}, OWN_SOURCES).compiledContentHtml).toBe('2621440');
    expect(compile(output, {}, OWN_SOURCES).compiledContentHtml).toHaveLength(1_800_000);
    // The caps are counted per render: the next capped render starts from nothing again.
    expect(compile(loops.replace('12000', '9000')).problems).toEqual([]);
  });
});

describe('renderTemplate', () => {
  const template: TemplateSources = {
    headerSource: '{{ account.name }}',
    contentSource:
      '<p>{{ partner.name }}: {{ fields.grund }}, {{ contract.totalValue | money: contract.currency }}</p>',
    footerSource: null,
    fields: [{ key: 'grund', label: 'Grund', type: 'text', required: true }],
  };

  it('renders from plain records shaped like API responses', () => {
    const context = buildRenderContext({
      account,
      partner: { name: 'Echt AG', addresses: [] },
      contract: { name: 'Miete', totalValue: 250.5, currency: 'EUR' },
      today,
      fields: { grund: 'Umzug' },
    });
    expect(renderTemplate(template, context)).toEqual({
      headerHtml: 'Kontor GmbH',
      contentHtml: '<p>Echt AG: Umzug, 250,50 €</p>',
      footerHtml: null,
    });
  });

  it('writes a contract amount in the account currency when the contract names none', () => {
    const context = buildRenderContext({
      account,
      contract: { name: 'Alt', totalValue: 12 },
      today,
    });
    expect(
      renderTemplate(
        { contentSource: '{{ contract.totalValue | money: contract.currency }}' },
        context,
      ),
    ).toMatchObject({ contentHtml: '12,00 €' });
  });

  it('refuses with 422 template_invalid when a required field has no value', () => {
    const context = buildRenderContext({ account, partner: { name: 'Echt AG' }, today });
    let error: unknown;
    try {
      renderTemplate(template, context);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'template_invalid',
      status: 422,
      extras: {
        members: { problems: [expect.objectContaining({ code: 'missing_required_field' })] },
      },
    });
  });

  it('refuses a template that does not parse', () => {
    const context = buildRenderContext({ account, today });
    expect(() => renderTemplate({ contentSource: '{% if x %}' }, context)).toThrow(AppError);
  });

  it('is checked without rendering the HTML: the same 422 when it would refuse, none when not', () => {
    const context = buildRenderContext({ account, partner: { name: 'Echt AG' }, today });
    const cases: TemplateSources[] = [
      template,
      { contentSource: '{% if x %}' },
      { contentSource: '{% for i in (1..100000000) %}x{% endfor %}' },
      // Removed markup never stops a document, checked or rendered.
      { contentSource: '<script>alert(1)</script><p>{{ partner.name }}</p>' },
      { contentSource: '<p>{{ partner.name }}</p>' },
    ];
    const outcome = (work: () => unknown) => {
      try {
        work();
        return 'renders';
      } catch (err) {
        return (err as AppError).code + JSON.stringify((err as AppError).extras);
      }
    };
    const outcomes = cases.map((sources) => {
      const rendered = outcome(() => renderTemplate(sources, context));
      expect(outcome(() => checkTemplateRenders(sources, context))).toBe(rendered);
      return rendered.slice(0, 16);
    });
    expect(outcomes).toEqual([
      'template_invalid',
      'template_invalid',
      'template_invalid',
      'renders',
      'renders',
    ]);
  });
});
