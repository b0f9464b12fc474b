import type { FileRow } from './files.repository.js';
import type { FileStatus, FileView } from './files.schemas.js';

/** Row → response, field by field: nothing reaches the client that is not listed here. */
export function presentFile(row: FileRow): FileView {
  return {
    id: row.id,
    key: row.key,
    fileName: row.file_name,
    contentType: row.content_type,
    size: Number(row.size),
    status: row.status as FileStatus,
    sha256: row.sha256,
    rejectionReason: row.rejection_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
