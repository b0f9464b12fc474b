import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { Nullable, Timestamp } from '../../http/schemas.js';
import { UPLOAD_CONTENT_TYPES } from './content.js';

export const FILE_STATUSES = ['PENDING', 'UPLOADED', 'REJECTED'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

const contentType = Type.Enum(UPLOAD_CONTENT_TYPES, {
  description:
    'Media type of the bytes, one of the allow-list (MT940/STA bank statements: `text/plain`). The bytes are checked against it.',
});

const fileId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'File id (`fil_…`); an unknown id answers 404.',
});

export const FileSchema = Type.Object(
  {
    id: Type.String({ description: 'File id (`fil_…`).' }),
    key: Type.String({
      description:
        'Storage key `<accountId>/<fileId>`; bank statement imports name it with the id.',
    }),
    fileName: Type.String({
      description: 'The sanitised file name given at upload (metadata only).',
    }),
    contentType: Type.String({ description: 'Media type the bytes were checked against.' }),
    size: Type.Integer({ description: 'Size in bytes.' }),
    status: Type.Enum(FILE_STATUSES, {
      description:
        'PENDING: upload URL issued, bytes not (yet) accepted. UPLOADED: bytes received and checked. REJECTED: bytes did not match the declared size or type and were deleted.',
    }),
    sha256: Nullable(Type.String(), 'Hex SHA-256 of the bytes, once UPLOADED.'),
    rejectionReason: Nullable(Type.String(), 'Why the bytes were refused (REJECTED only).'),
    createdAt: Timestamp('When the upload URL was issued or the file generated (RFC 3339 UTC).'),
    updatedAt: Timestamp('When the status last changed (RFC 3339 UTC).'),
  },
  { additionalProperties: false },
);
export type FileView = Static<typeof FileSchema>;

export const CreateUploadUrlBody = Type.Object(
  {
    fileName: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Original file name, kept as metadata only (directories, control and bidi characters removed).',
    }),
    contentType,
    size: Type.Integer({
      minimum: 1,
      description:
        'Exact size in bytes, at most `MAX_UPLOAD_BYTES` (25 MiB by default; larger answers 413). Counts toward the plan’s storage.',
    }),
  },
  { additionalProperties: false },
);
export type CreateUploadUrl = Static<typeof CreateUploadUrlBody>;

export const UploadUrlSchema = Type.Object(
  {
    fileId: Type.String({ description: 'Id of the new file (`fil_…`), status PENDING.' }),
    key: Type.String({ description: 'Storage key of the file.' }),
    uploadUrl: Type.String({ description: 'Send the bytes here with `method` and `headers`.' }),
    method: Type.Literal('PUT', { description: 'Always PUT.' }),
    headers: Type.Record(Type.String(), Type.String(), {
      description: 'Headers the upload must carry exactly (the declared Content-Type).',
    }),
    expiresAt: Timestamp('When the upload URL stops working (RFC 3339 UTC).'),
  },
  { additionalProperties: false },
);
export type UploadUrl = Static<typeof UploadUrlSchema>;

export const DownloadUrlQuery = Type.Object({ fileId }, { additionalProperties: false });

export const DownloadUrlSchema = Type.Object(
  {
    url: Type.String({
      description: 'Short-lived signed URL answering the bytes as an attachment.',
    }),
    expiresAt: Timestamp('When the URL stops working (RFC 3339 UTC).'),
  },
  { additionalProperties: false },
);
export type DownloadUrl = Static<typeof DownloadUrlSchema>;

export const ListFilesQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Type.Enum(FILE_STATUSES, { description: 'Only files in this status.' })),
    contentType: Type.Optional(
      Type.Enum(UPLOAD_CONTENT_TYPES, { description: 'Only files of this media type.' }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Case- and accent-insensitive search in the file name.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListFiles = Static<typeof ListFilesQuery>;

export const FileIdParams = Type.Object({ fileId }, { additionalProperties: false });

export const SignedUrlQuery = Type.Object(
  {
    token: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'The signed, expiring token of the URL this service issued.',
    }),
  },
  { additionalProperties: false },
);
