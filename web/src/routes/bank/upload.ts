/**
 * A statement file's way into an import (docs/imports.md): a signed upload URL, the bytes PUT
 * there with XMLHttpRequest (fetch cannot report upload progress yet), then the import made
 * from the file. Every server answer is the API's; this only moves bytes and reports progress.
 */
import type { Problem } from '@kontor/client';
import { api } from '../../api/client';
import { ProblemError } from '../../api/problems';

export type StatementContentType = 'text/plain' | 'text/csv' | 'application/xml';

/**
 * The media type the API checks the bytes against, by the file's name and the browser's guess:
 * CAMT is XML, German bank exports are CSV, MT940/STA is plain text.
 */
export function statementContentType(file: File): StatementContentType {
  const name = file.name.toLowerCase();
  if (name.endsWith('.xml') || file.type.endsWith('/xml')) return 'application/xml';
  if (name.endsWith('.csv') || file.type === 'text/csv') return 'text/csv';
  return 'text/plain';
}

function problemOf(status: number, body: string): Problem {
  try {
    return JSON.parse(body) as Problem;
  } catch {
    return {
      type: 'about:blank',
      title: body || String(status),
      status,
      code: 'internal_error',
      requestId: '',
    };
  }
}

/** PUTs the bytes to the signed URL, reporting the share sent (0–1). */
function putBytes(
  url: string,
  headers: Record<string, string>,
  file: File,
  onProgress: (share: number) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve();
      } else reject(new ProblemError(problemOf(xhr.status, xhr.responseText)));
    };
    xhr.onerror = () => reject(new Error('upload failed'));
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

export interface ImportInput {
  file: File;
  periodFrom: string;
  periodTo: string;
  autoApprove: boolean;
}

export type ImportStage = 'preparing' | 'uploading' | 'processing';

/** Uploads the statement and creates the import from it; answers the import. */
export async function importStatement(
  input: ImportInput,
  report: (stage: ImportStage, share: number) => void,
  signal?: AbortSignal,
) {
  report('preparing', 0);
  const ticket = await api.POST('/v1/files/upload-url', {
    body: {
      fileName: input.file.name,
      contentType: statementContentType(input.file),
      size: input.file.size,
    },
  });
  if (ticket.error) throw new ProblemError(ticket.error);
  const { uploadUrl, headers, fileId, key } = ticket.data;
  report('uploading', 0);
  await putBytes(uploadUrl, headers, input.file, (share) => report('uploading', share), signal);
  report('processing', 1);
  const created = await api.POST('/v1/bank-statement-imports', {
    body: {
      fileId,
      key,
      fileName: input.file.name,
      periodFrom: input.periodFrom,
      periodTo: input.periodTo,
      autoApprove: input.autoApprove,
    },
  });
  if (created.error) throw new ProblemError(created.error);
  return created.data;
}
