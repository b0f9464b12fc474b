import { Type, type Static } from 'typebox';

/** What `/ready` tells of the scheduled backups (present only when `BACKUP_DIR` is set). */
export const BackupStatusSchema = Type.Object(
  {
    status: Type.Enum(['ok', 'pending', 'failing', 'overdue'], {
      description:
        '`ok`: the newest backup is younger than two intervals and the last attempt succeeded. `pending`: none written yet since the schedule started. `failing`: the last attempt failed (the log has why). `overdue`: the newest backup (or the start, when there is none) is more than two intervals old. Readiness does not depend on it.',
    }),
    intervalHours: Type.Integer({
      description: 'Hours between backups (`BACKUP_INTERVAL_HOURS`).',
    }),
    lastSuccess: Type.Optional(
      Type.Object(
        {
          at: Type.String({ format: 'date-time', description: 'When the snapshot was taken.' }),
          file: Type.String({ description: 'File name in `BACKUP_DIR`.' }),
          sizeBytes: Type.Integer({ minimum: 0, description: 'Size of the file, in bytes.' }),
        },
        {
          additionalProperties: false,
          description: 'The newest backup in `BACKUP_DIR` (written by any replica).',
        },
      ),
    ),
    lastFailure: Type.Optional(
      Type.Object(
        {
          at: Type.String({ format: 'date-time', description: 'When the attempt began.' }),
          code: Type.String({
            description:
              'Why, in short: the system error (`EACCES`, `ENOSPC`, `ENOENT`…) or `backup_failed`; the whole message is in the log.',
          }),
        },
        {
          additionalProperties: false,
          description: 'The last failed attempt of this process, if any since it started.',
        },
      ),
    ),
    nextDueAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'When the next backup is due (the newest plus the interval); checked every minute.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Scheduled backups of the database.' },
);

export type BackupStatus = Static<typeof BackupStatusSchema>;
