/**
 * `npm run bench:documents`: the document figures of issue 4 on embedded SQLite —
 * - PDF render time of a typical invoice letter (logo, header, footer, 6 lines at two VAT
 *   rates), composed exactly as a GENERATED document is, rendered warm BENCH_RENDERS (50)
 *   times through `ctx.renderer.render`: p50 / p99 ms;
 * - the lawful invoice of issue 10 in the system layout: render + ZUGFeRD hybrid p50 / p99,
 *   and the XRechnung XML built from the stored document (document → model → CII);
 * - rasterize time per page of a 3-page PDF at 150 dpi (warm, median of 5 runs);
 * - the e-invoice reader over `../shared/testdata/einvoice`: PDFs through `analysePdf`, XML
 *   through `parseEInvoiceXml`; a file counts as recognised when an invoice is read from it.
 * Prints wall-clock milliseconds; not a test.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCanvas } from '@napi-rs/canvas';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { AppError } from '../src/shared/errors.js';
import { AccountService } from '../src/modules/account/account.service.js';
import { DocumentTemplatesService } from '../src/modules/document-templates/document-templates.service.js';
import { findDocument } from '../src/modules/documents/documents.repository.js';
import { DocumentsService } from '../src/modules/documents/documents.service.js';
import {
  einvoiceParties,
  toEnInvoice,
  zugferdPdf,
} from '../src/modules/documents/documents.einvoice.js';
import { toCii } from '../src/shared/einvoice/index.js';
import { storeGeneratedFile, systemActor } from '../src/modules/files/files.api.js';
import { PartnersService } from '../src/modules/partners/partners.service.js';
import { analysePdf } from '../src/shared/pdf/analyse.js';
import { parseEInvoiceXml } from '../src/shared/einvoice/index.js';
import { rasterizePdf } from '../src/shared/pdf/rasterize.js';
import { seedUser } from '../test/helpers.js';

const RENDERS = Number(process.env.BENCH_RENDERS ?? 50);
const EINVOICES = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../shared/testdata/einvoice',
);

const say = (line: string) => process.stdout.write(`${line}\n`);

/** The value below which `p` of the sorted samples fall (nearest rank). */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function logoPng(): Buffer {
  const canvas = createCanvas(600, 200);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#1d4e89';
  ctx.fillRect(0, 0, 600, 200);
  ctx.fillStyle = '#ffffff';
  ctx.font = 'bold 96px sans-serif';
  ctx.fillText('Kontor', 40, 135);
  return canvas.toBuffer('image/png');
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : [full];
  });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'kontor-bench-documents-'));
  const app = await buildApp(
    loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'kontor.sqlite')}`,
      LOG_LEVEL: 'warn',
      JOB_POLL_INTERVAL_MS: '0',
    }),
  );
  const ctx = app.ctx;
  try {
    say(
      `Kontor documents bench: ${RENDERS} warm renders, Node ${process.version}, ${os.cpus().length} CPUs`,
    );

    // A typical account: address, logo, a customer, a letter template, an invoice with lines.
    const { accountId } = await seedUser(ctx.db);
    const actor = systemActor(accountId);
    const accounts = new AccountService(ctx);
    const logo = await storeGeneratedFile(ctx, actor, {
      fileName: 'logo.png',
      contentType: 'image/png',
      bytes: logoPng(),
    });
    let settings = await accounts.putAddresses(
      actor,
      1,
      [
        {
          type: 'OFFICE',
          name: 'Test GmbH',
          street: 'Musterstraße 1',
          postalCode: '10115',
          city: 'Berlin',
          country: 'DE',
          email: 'info@test.example',
          phone: '+49 30 1234567',
        },
      ],
      undefined,
    );
    settings = await accounts.patchSettings(
      actor,
      { version: settings.version, logoFileId: logo.id },
      undefined,
    );
    const partner = await new PartnersService(ctx).create(actor, {
      name: 'Nordlicht Handels GmbH',
      type: 'CUSTOMER',
      addresses: [
        {
          type: 'BILLING',
          name: 'z. Hd. Buchhaltung',
          street: 'Kaiserkai 7',
          postalCode: '20457',
          city: 'Hamburg',
          country: 'DE',
          email: 'rechnung@nordlicht.example',
        },
      ],
    });
    const template = await new DocumentTemplatesService(ctx).create(actor, {
      name: 'Rechnung',
      documentType: 'LETTER',
      status: 'PUBLISHED',
      showLogo: true,
      logoPosition: 'TOP_RIGHT',
      headerVisibility: 'FIRST_PAGE_ONLY',
      headerSource:
        '<p><small>{{ account.name }} · {{ account.address.street }} · {{ account.address.postalCode }} {{ account.address.city }}</small></p>' +
        '<p>{{ partner.name }}<br>{{ partner.address.name }}<br>{{ partner.address.street }}<br>{{ partner.address.postalCode }} {{ partner.address.city }}</p>',
      contentSource:
        '<p style="text-align:right">Berlin, {{ document.creationDate | date: "long" }}</p>' +
        '<h2>Rechnung {{ document.documentNumber }}</h2>' +
        '<p>Sehr geehrte Damen und Herren,</p><p>für unsere Leistungen im Mai berechnen wir Ihnen:</p>',
      footerSource:
        '<small>{{ account.name }} · Geschäftsführung: Erika Muster · USt-IdNr. DE123456789 · ' +
        'IBAN DE02 1203 0000 0000 2020 51 · Seite <span class="pageNumber"></span> von <span class="totalPages"></span></small>',
    });
    const documents = new DocumentsService(ctx);
    const lines = [
      { description: 'Konzeption und Abstimmung', quantity: 6, unitPrice: 95 },
      { description: 'Umsetzung Webauftritt (Festpreis)', quantity: 1, unitPrice: 2400 },
      { description: 'Redaktion und Lektorat', quantity: 4.5, unitPrice: 75 },
      { description: 'Hosting Mai', quantity: 1, unitPrice: 29.9 },
      { description: 'Domain kontor.example (1 Jahr)', quantity: 1, unitPrice: 12 },
      { description: 'Fachbuch „Typografie im Web“', quantity: 2, unitPrice: 39.95 },
    ];
    const invoice = await documents.create(actor, {
      documentType: 'INVOICE',
      source: 'GENERATED',
      name: 'Rechnung Mai',
      documentNumber: '2026-0042',
      creationDate: '2026-05-31',
      dueDate: '2026-06-14',
      templateId: template.id,
      partnerId: partner.id,
      lineItems: lines,
    });
    const row = (await findDocument(ctx.db, accountId, invoice.id))!;
    const letter = await documents.output.letter(row);

    // Warm-up: the browser starts, fonts load; then the measured renders.
    for (let i = 0; i < 3; i++) await ctx.renderer.render(letter);
    const times: number[] = [];
    let pages = 0;
    let bytes = 0;
    for (let i = 0; i < RENDERS; i++) {
      const started = performance.now();
      const result = await ctx.renderer.render(letter);
      times.push(performance.now() - started);
      pages = result.pageCount;
      bytes = result.pdf.length;
    }
    times.sort((a, b) => a - b);
    say(
      `render    invoice letter (${pages} page, ${(bytes / 1024).toFixed(0)} KiB, logo ${settings.logoFileId ? 'on' : 'off'}), warm, n=${RENDERS}: ` +
        `p50 ${percentile(times, 0.5).toFixed(0)} ms, p99 ${percentile(times, 0.99).toFixed(0)} ms, ` +
        `min ${times[0]!.toFixed(0)} ms, max ${times[times.length - 1]!.toFixed(0)} ms`,
    );

    // The lawful invoice: the system layout (DIN 5008, GiroCode), made FINAL, then rendered
    // and turned into the ZUGFeRD hybrid (PDF/A-3 + factur-x.xml) as the stored PDF is.
    const final = await documents.create(actor, {
      documentType: 'INVOICE',
      name: 'Rechnung Mai (Systemlayout)',
      creationDate: '2026-05-31',
      deliveryDate: '2026-05-31',
      partnerId: partner.id,
      lineItems: lines,
      status: 'FINAL',
    });
    const finalRow = (await findDocument(ctx.db, accountId, final.id))!;
    const systemLetter = await documents.output.letter(finalRow);
    const xmlTimes: number[] = [];
    const hybridTimes: number[] = [];
    const embedTimes: number[] = [];
    let hybridBytes = 0;
    for (let i = 0; i < 3 + RENDERS; i++) {
      const started = performance.now();
      const rendered = await ctx.renderer.render(systemLetter);
      const embedStarted = performance.now();
      const hybrid = await zugferdPdf(finalRow, rendered.pdf, 'Rechnung', {
        subject: 'Rechnung',
      });
      const done = performance.now();
      if (i < 3) continue;
      hybridTimes.push(done - started);
      embedTimes.push(done - embedStarted);
      hybridBytes = hybrid.length;
    }
    for (let i = 0; i < 1000 + 2000; i++) {
      const started = performance.now();
      toCii(toEnInvoice(finalRow, einvoiceParties(finalRow), 'XRECHNUNG'));
      if (i >= 1000) xmlTimes.push(performance.now() - started);
    }
    for (const list of [hybridTimes, embedTimes, xmlTimes]) list.sort((a, b) => a - b);
    say(
      `hybrid    system-layout invoice → ZUGFeRD PDF/A-3 (${(hybridBytes / 1024).toFixed(0)} KiB), warm, n=${RENDERS}: ` +
        `p50 ${percentile(hybridTimes, 0.5).toFixed(0)} ms, p99 ${percentile(hybridTimes, 0.99).toFixed(0)} ms ` +
        `(of which embedding p50 ${percentile(embedTimes, 0.5).toFixed(1)} ms, p99 ${percentile(embedTimes, 0.99).toFixed(1)} ms)`,
    );
    say(
      `xml       document → EN 16931 model → XRechnung CII, n=2000: ` +
        `p50 ${(percentile(xmlTimes, 0.5) * 1000).toFixed(0)} µs, p99 ${(percentile(xmlTimes, 0.99) * 1000).toFixed(0)} µs`,
    );

    // A 3-page letter: the same invoice three times, a page each.
    const three = await ctx.renderer.render({
      ...letter,
      contentHtml: [1, 2, 3]
        .map(
          (n) => `<div style="break-after:${n < 3 ? 'page' : 'auto'}">${letter.contentHtml}</div>`,
        )
        .join(''),
    });
    if (three.pageCount !== 3) throw new Error(`expected 3 pages, got ${three.pageCount}`);
    await rasterizePdf(three.pdf, { dpi: 150, pages: [1, 2, 3] }); // warm-up: pdf.js, fonts
    const perPage: number[] = [];
    let size = '';
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const raster = await rasterizePdf(three.pdf, { dpi: 150, pages: [1, 2, 3] });
      perPage.push((performance.now() - started) / raster.length);
      size = `${raster[0]!.width} × ${raster[0]!.height}`;
    }
    perPage.sort((a, b) => a - b);
    say(
      `rasterize 3-page PDF at 150 dpi (${size} px), warm, median of 5: ${percentile(perPage, 0.5).toFixed(0)} ms per page ` +
        `(min ${perPage[0]!.toFixed(0)}, max ${perPage[perPage.length - 1]!.toFixed(0)})`,
    );

    // The e-invoice samples.
    if (!existsSync(EINVOICES)) {
      say(`e-invoices: ${EINVOICES} is missing; skipped`);
      return;
    }
    const samples = files(EINVOICES)
      .filter((f) => /\.(xml|pdf)$/i.test(f))
      .sort();
    const refused: string[] = [];
    let recognised = 0;
    const started = performance.now();
    for (const file of samples) {
      const name = path.relative(EINVOICES, file);
      try {
        const content = readFileSync(file);
        if (file.toLowerCase().endsWith('.pdf')) {
          const analysis = await analysePdf(content);
          if (analysis.eInvoice) recognised++;
          else refused.push(`${name}: ${analysis.eInvoiceError ?? 'the PDF carries no e-invoice'}`);
        } else {
          parseEInvoiceXml(content);
          recognised++;
        }
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        refused.push(`${name}: ${err.status} ${err.code}: ${err.message}`);
      }
    }
    say(
      `e-invoices recognised: ${recognised} of ${samples.length} (${(performance.now() - started).toFixed(0)} ms); refused:`,
    );
    for (const line of refused) say(`  - ${line}`);
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
