import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { PageOf } from '../../http/pagination.js';
import { IdempotencyHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import { attachmentDisposition, UPLOAD_CONTENT_TYPES } from './content.js';
import {
  CreateUploadUrlBody,
  DownloadUrlQuery,
  DownloadUrlSchema,
  FileIdParams,
  FileSchema,
  ListFilesQuery,
  SignedUrlQuery,
  UploadUrlSchema,
} from './files.schemas.js';
import { FilesService } from './files.service.js';

const tags = ['files'];

/** Answers of the signed routes: the attachment must never be rendered or sniffed. */
const DOWNLOAD_HEADERS = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'private, no-store',
  'content-security-policy': "default-src 'none'; sandbox",
};

/** One entry per content type a file can have, each with `schema`. */
const perFileType = <S>(schema: S) =>
  Object.fromEntries(UPLOAD_CONTENT_TYPES.map((type) => [type, { schema }]));

/**
 * `/v1/files` (decisions §8). The authenticated routes issue signed URLs and manage records;
 * `PUT /v1/files/upload` and `GET /v1/files/download` are the embedded storage's own signed
 * URLs, public and authorised only by their token (in the query string, which the access log
 * drops).
 */
export function fileRoutes(app: App, ctx: AppContext): void {
  const service = new FilesService(ctx);

  fileRecordRoutes(app, service);
  uploadRoutes(app, service);
  downloadRoutes(app, service);
}

/** `/v1/files` and `/v1/files/{fileId}`: list, read and delete. */
function fileRecordRoutes(app: App, service: FilesService): void {
  app.get(
    '/v1/files',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List the account’s files',
        querystring: ListFilesQuery,
        response: { 200: PageOf(FileSchema), ...problems(400, 401) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.query),
  );

  app.get(
    '/v1/files/:fileId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a file’s record',
        params: FileIdParams,
        response: { 200: FileSchema, ...problems(401, 404) },
      },
    },
    (req) => service.get(req.principal!.accountId, req.params.fileId),
  );

  app.delete(
    '/v1/files/:fileId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete a file and its bytes (409 in_use while referenced)',
        params: FileIdParams,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(401, 404, 409) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.params.fileId);
      return reply.code(204).send(null);
    },
  );
}

/** Uploads: the signed URL, and the upload itself in a scope of its own. */
function uploadRoutes(app: App, service: FilesService): void {
  app.post(
    '/v1/files/upload-url',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a signed URL to upload a file to',
        description:
          'Creates a PENDING file and answers where to PUT its bytes (with the given headers) before `expiresAt`. The bytes must have exactly the declared size and be of the declared type by their content (magic numbers), else they are refused (422 content_mismatch) and nothing is kept. 409 storage_limit_exceeded when the plan’s storage cannot hold the file; 413 when `size` exceeds MAX_UPLOAD_BYTES.',
        headers: IdempotencyHeaders,
        body: CreateUploadUrlBody,
        response: { 201: UploadUrlSchema, ...problems(400, 401, 409, 413) },
      },
    },
    async (req, reply) => {
      const upload = await service.requestUpload(actorOf(req), req.body);
      return reply.code(201).header('location', `/v1/files/${upload.fileId}`).send(upload);
    },
  );

  // The upload route has a scope of its own: its raw-bytes parser must not reach the other
  // routes, which accept JSON only (everything else answers 415 there).
  app.register((scope, _opts, done) => {
    scope.removeAllContentTypeParsers();
    // Hands the unread body stream to the handler, which checks and streams it to disk.
    scope.addContentTypeParser('*', (_req, payload, next) => next(null, payload));
    const typed = scope as unknown as App;
    typed.put(
      '/v1/files/upload',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Upload a file’s bytes (the URL from upload-url, embedded storage)',
          description:
            'Authorised only by the signed, expiring token. The body is the raw bytes with the declared Content-Type (415 otherwise) and exactly the declared size (413 when larger, 422 content_mismatch when smaller). Bytes that are not of the declared type mark the file REJECTED (422 content_mismatch); nothing is kept. A second upload → 409 state_conflict. 403 url_invalid for a tampered or expired token.',
          querystring: SignedUrlQuery,
          // Documents the raw bytes; a schema without a type holds any stream, so this checks
          // nothing (the service checks size and content).
          body: {
            content: perFileType(
              Type.Unsafe<Readable>({
                description:
                  'The file’s bytes, exactly the declared size, with the declared Content-Type.',
              }),
            ),
          },
          response: { 200: FileSchema, ...problems(400, 403, 404, 409, 413, 415, 422) },
        },
      },
      (req) =>
        service.receiveUpload({
          token: req.query.token,
          contentType: req.headers['content-type'],
          contentLength: req.headers['content-length'],
          body: req.body,
          requestId: req.id,
          ip: req.ip,
        }),
    );
    done();
  });
}

/** Downloads: the signed URL and the download it authorises. */
function downloadRoutes(app: App, service: FilesService): void {
  app.get(
    '/v1/files/download-url',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a short-lived signed URL that downloads a file',
        description:
          'Only UPLOADED files: 409 state_conflict while the upload is outstanding, 422 content_mismatch for a rejected file.',
        querystring: DownloadUrlQuery,
        response: { 200: DownloadUrlSchema, ...problems(400, 401, 404, 409, 422) },
      },
    },
    (req) => service.downloadUrl(actorOf(req), req.query.fileId),
  );

  app.get(
    '/v1/files/download',
    {
      // No automatic HEAD twin: it would open the file for nothing.
      exposeHeadRoute: false,
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Download a file (the URL from download-url, embedded storage)',
        description:
          'Authorised only by the signed, expiring token. Answers the bytes as an attachment. 403 url_invalid for a tampered or expired token.',
        querystring: SignedUrlQuery,
        response: {
          200: {
            description: 'The file’s bytes, with the content type it was stored with.',
            // The bytes stream as they are; the schemas only document them.
            content: perFileType(
              Type.Unsafe<Readable>({
                type: 'string',
                format: 'binary',
                description: 'The file’s bytes.',
              }),
            ),
          },
          ...problems(400, 403, 404),
        },
      },
    },
    async (req, reply) => {
      const { file, stream } = await service.openDownload(req.query.token);
      return reply
        .headers({
          ...DOWNLOAD_HEADERS,
          'content-type': file.contentType,
          'content-length': String(file.size),
          'content-disposition': attachmentDisposition(file.fileName),
        })
        .send(stream);
    },
  );
}
