import { createCanvas, loadImage } from '@napi-rs/canvas';
import { pdfWorkers } from './worker-pool.js';

/**
 * Shrinks images before they go into a PDF: Chromium decodes every inlined image at full
 * size (issue 11), and a letter's logo box is at most 60 × 20 mm — 709 px wide at 300 dpi.
 */

/** Longest side, in pixels, of a logo inlined into a rendered PDF. */
export const PDF_IMAGE_MAX_SIDE = 1200;

export interface ImageBytes {
  contentType: string;
  bytes: Buffer;
}

/** Time budget for scaling one image (decoding up to 40 MP and drawing it). */
const DOWNSCALE_TIMEOUT_MS = 30_000;

export interface ImageSize {
  width: number;
  height: number;
}

/**
 * The image scaled to at most `maxSide` pixels on its longer side, keeping its aspect ratio;
 * smaller images are answered unchanged. The caller must have checked the declared
 * `width × height` against the pixel cap first: this decodes the whole image — in a worker
 * of the PDF pool, as decoding tens of megapixels would hold the event loop. A JPEG stays a
 * JPEG (photos compress better so); PNG and WebP become PNG, keeping transparency.
 */
export async function downscaleImage(
  image: ImageBytes,
  size: ImageSize,
  maxSide = PDF_IMAGE_MAX_SIDE,
): Promise<ImageBytes> {
  if (Math.max(size.width, size.height) <= maxSide) return image;
  const input = new Uint8Array(image.bytes);
  const scaled = await pdfWorkers().run<{ contentType: string; bytes: Uint8Array }>(
    'downscale',
    input,
    { contentType: image.contentType, size, maxSide },
    DOWNSCALE_TIMEOUT_MS,
    'Scaling the image',
    [input.buffer],
  );
  const { buffer, byteOffset, byteLength } = scaled.bytes;
  return { contentType: scaled.contentType, bytes: Buffer.from(buffer, byteOffset, byteLength) };
}

/** `downscaleImage` in the calling thread: what the PDF worker runs. */
export async function downscaleImageHere(
  image: ImageBytes,
  size: ImageSize,
  maxSide = PDF_IMAGE_MAX_SIDE,
): Promise<ImageBytes> {
  const longer = Math.max(size.width, size.height);
  if (longer <= maxSide) return image;
  const scale = maxSide / longer;
  const width = Math.max(1, Math.round(size.width * scale));
  const height = Math.max(1, Math.round(size.height * scale));
  const source = await loadImage(image.bytes);
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.imageSmoothingQuality = 'high';
  context.drawImage(source, 0, 0, width, height);
  return image.contentType === 'image/jpeg'
    ? { contentType: 'image/jpeg', bytes: await canvas.encode('jpeg', 90) }
    : { contentType: 'image/png', bytes: await canvas.encode('png') };
}
