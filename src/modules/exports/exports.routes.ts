import { Type } from 'typebox';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { IfMatchHeaders, problems } from '../../http/schemas.js';
import { sendLentChunks } from '../../http/lent-chunks.js';
import type { App } from '../../http/types.js';
import { actorOf } from '../../http/types.js';
import { attachmentDisposition } from '../files/index.js';
import { DatevExportService } from './datev-export.service.js';
import { DatevSettingsService } from './datev-settings.service.js';
import { DatevExportQuery, DatevSettingsSchema, PutDatevSettingsBody } from './exports.schemas.js';

const tags = ['exports'];

/** `/v1/exports/*`: HTTP only — input, one service call, status, headers and body. */
export function exportRoutes(app: App, ctx: AppContext): void {
  const settings = new DatevSettingsService(ctx);
  const exporter = new DatevExportService(ctx);

  app.get(
    '/v1/exports/datev',
    {
      // No automatic HEAD twin: it would plan a whole export for nothing.
      exposeHeadRoute: false,
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Export a period for the tax advisor (DATEV Buchungsstapel and invoice PDFs)',
        description:
          'A ZIP with `EXTF_Buchungsstapel.csv` (DATEV format, header version 700, data category 21, format version 13; Windows-1252, `;`, decimal comma): one booking per FINAL invoice or credit note issued by Kontor and tax rate (gross amount on the revenue account of the rate against the collective debtor, or with `partnerAccounts` the customer’s own debtor account) and one per settled payment linked to one (bank against debtor); plus the stored invoice PDFs and `document.xml` for DATEV\'s document image import, each booking linked to its PDF by `Beleglink` (`BEDI "<guid>"`). The period must lie in one fiscal year. Text fields that would run as a spreadsheet formula start with an apostrophe. 422 until the DATEV settings are saved, while a tax rate used in the period has no revenue account, or while an invoice, credit note or payment of the fiscal year has a stored date that is no calendar date (each named; nothing is left out silently). See docs/datev.md.',
        querystring: DatevExportQuery,
        response: {
          200: {
            description: 'The ZIP, streamed as an attachment.',
            content: {
              // The bytes stream as they are; the schema only documents them.
              'application/zip': {
                schema: Type.Unsafe<Readable>({ type: 'string', format: 'binary' }),
              },
            },
          },
          ...problems(400, 401, 422),
        },
      },
    },
    async (req, reply) => {
      const pkg = await exporter.export(req.principal!.accountId, req.query);
      reply.headers({
        'content-type': 'application/zip',
        'content-disposition': attachmentDisposition(pkg.fileName),
        'cache-control': 'no-store',
      });
      await sendLentChunks(reply, pkg.chunks, pkg.returned);
    },
  );

  app.get(
    '/v1/exports/datev/settings',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get the DATEV export settings (404 not_found until saved)',
        response: { 200: DatevSettingsSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const saved = await settings.get(req.principal!.accountId);
      setEtag(reply, saved.version);
      return saved;
    },
  );

  app.put(
    '/v1/exports/datev/settings',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Save the DATEV export settings (consultant and client number, accounts)',
        description:
          'The first PUT needs `consultantNumber` and `clientNumber`; every other field has a default (SKR03, fiscal year from January, account length 4, collective debtor 10000, bank 1200/1800, chart revenue accounts). Later PUTs change what they name; `version` or `If-Match` make them conditional (409/412 when stale). Admins only.',
        headers: IfMatchHeaders,
        body: PutDatevSettingsBody,
        response: { 200: DatevSettingsSchema, ...problems(400, 401, 403, 409, 412, 422) },
      },
    },
    async (req, reply) => {
      const saved = await settings.put(actorOf(req), req.body, readIfMatch(req));
      setEtag(reply, saved.version);
      return saved;
    },
  );
}
