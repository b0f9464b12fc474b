import { createCanvas, loadImage } from '@napi-rs/canvas';

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

/**
 * The image scaled to at most `maxSide` pixels on its longer side, keeping its aspect ratio;
 * smaller images are answered unchanged. The caller must have checked the declared
 * `width × height` against the pixel cap first: this decodes the whole image. A JPEG stays a
 * JPEG (photos compress better so); PNG and WebP become PNG, keeping transparency.
 */
export async function downscaleImage(
  image: ImageBytes,
  size: { width: number; height: number },
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
