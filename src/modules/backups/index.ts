/** The backups module's face: what the app, the server and other modules may use. */
export { BACKUP_FILE, BackupSchedule, createBackupSchedule } from './backup-schedule.js';
export { startBackupSchedule } from './backups.job.js';
export { BackupStatusSchema, type BackupStatus } from './backups.schemas.js';
