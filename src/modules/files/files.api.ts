/**
 * The files module's API for other modules (documents, bank imports, products, partners,
 * usage). Import from here; everything else in the folder is the module's own business.
 */
export {
  imageDataUriForPdf,
  lockUploadedFile,
  requireImageFile,
  requireUploadedFile,
  systemActor,
  type RequireFileOptions,
  type UploadedFile,
} from './uploaded-file.js';
export { storeGeneratedFile, type GeneratedFile } from './generated-file.js';
export { storageUsedBytes } from './storage-limit.js';
export { onFileDelete, type FileDeleteHook } from './file-references.js';
export {
  attachmentDisposition,
  IMAGE_CONTENT_TYPES,
  UPLOAD_CONTENT_TYPES,
  type UploadContentType,
} from './content.js';
export {
  assertImageFits,
  imageLimits,
  type ImageDimensions,
  type ImageLimits,
} from './image-dimensions.js';
export type { FileView } from './files.schemas.js';
