import { imageSize } from 'image-size';
import type { Config } from '../../config.js';
import { AppError } from '../../shared/errors.js';

/**
 * Image dimensions read from the header bytes, never by decoding (issue 11: a 16000 × 16000
 * PNG logo made Chromium take 4.3 GB). Parsing is image-size's (MIT, no dependencies, no
 * install scripts): PNG's IHDR, JPEG's SOF marker behind any APP segments, WebP's VP8/VP8L/
 * VP8X chunk — a maintained parser rather than a hand-written one for three formats.
 */

/** The caps an image must fit (`IMAGE_MAX_PIXELS`, `IMAGE_MAX_SIDE`). */
export interface ImageLimits {
  maxPixels: number;
  maxSide: number;
}

export interface ImageDimensions {
  width: number;
  height: number;
}

/**
 * How many leading bytes are kept to find the dimensions. PNG and WebP name them in the
 * first 30 bytes; a JPEG's SOF marker follows its EXIF/ICC/XMP segments, which may be large.
 * A JPEG whose dimensions are not within the first MiB is refused as unreadable.
 */
export const IMAGE_HEAD_BYTES = 1024 * 1024;

/** image-size's name for each accepted image type. */
const TYPES: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

/** Whether `contentType` is an image whose dimensions are checked. */
export function isCheckedImage(contentType: string): boolean {
  return contentType in TYPES;
}

/** The image caps of the configuration. */
export function imageLimits(config: Pick<Config, 'imageMaxPixels' | 'imageMaxSide'>): ImageLimits {
  return { maxPixels: config.imageMaxPixels, maxSide: config.imageMaxSide };
}

/**
 * The dimensions an image's header declares, or why none could be read (a string). `head`
 * is the start of the file, up to `IMAGE_HEAD_BYTES`.
 */
export function readImageDimensions(
  contentType: string,
  head: Uint8Array,
): ImageDimensions | string {
  const expected = TYPES[contentType];
  if (!expected) return `${contentType} is not an image`;
  let size;
  try {
    size = imageSize(head);
  } catch {
    return `the ${contentType} image's dimensions are not readable from its first ${IMAGE_HEAD_BYTES / 1024} KiB`;
  }
  const { width, height, type } = size;
  if (type !== expected) return `the bytes are ${type ?? 'no image'}, not ${contentType}`;
  // EXIF orientation 5–8 turns the image; the pixel count and longer side stay the same.
  if (!(width > 0 && height > 0)) return `the ${contentType} image declares no size`;
  return { width, height };
}

/** Why an image of these dimensions is refused, or undefined when it fits the caps. */
export function imageLimitProblem(
  { width, height }: ImageDimensions,
  limits: ImageLimits,
): string | undefined {
  const megapixels = (n: number) => `${(n / 1e6).toFixed(1)} MP`;
  if (width > limits.maxSide || height > limits.maxSide || width * height > limits.maxPixels)
    return `The image is ${width} × ${height} pixels (${megapixels(width * height)}); at most ${megapixels(limits.maxPixels)} and ${limits.maxSide} pixels per side are accepted.`;
  return undefined;
}

/**
 * The dimensions of an image, or 422 `file_unprocessable` (at `/body/<field>` when given)
 * when its header declares none or more than the caps allow. `head` is the start of the
 * file; more than `IMAGE_HEAD_BYTES` are not looked at.
 */
export function assertImageFits(
  contentType: string,
  head: Uint8Array,
  limits: ImageLimits,
  field?: string,
): ImageDimensions {
  const dimensions = readImageDimensions(contentType, head.subarray(0, IMAGE_HEAD_BYTES));
  const problem =
    typeof dimensions === 'string'
      ? `The image cannot be used: ${dimensions}.`
      : imageLimitProblem(dimensions, limits);
  if (problem === undefined && typeof dimensions !== 'string') return dimensions;
  const code = typeof dimensions === 'string' ? 'image_unreadable' : 'image_too_large';
  throw new AppError('file_unprocessable', problem ?? '', {
    errors: field ? [{ path: `/body/${field}`, message: problem ?? '', code }] : [],
  });
}
