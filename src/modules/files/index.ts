/** The files module's face: what the app and other modules may use. */
export { createStorage } from './create-storage.js';
export { startUploadExpiry } from './expire-uploads.job.js';
export {
  attachmentDisposition,
  imageDataUriForPdf,
  lockUploadedFile,
  onFileDelete,
  requireImageFile,
  requireUploadedFile,
  storageUsedBytes,
  storeGeneratedFile,
  systemActor,
} from './files.api.js';
export { fileRoutes } from './files.routes.js';
export type { FileStorage } from './storage.js';
