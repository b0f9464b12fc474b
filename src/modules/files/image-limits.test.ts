import { createCanvas } from '@napi-rs/canvas';
import { imageSize } from 'image-size';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { ContentCheck } from './content.js';
import { imageDataUriForPdf } from './files.api.js';
import { pngHeader, SAMPLES, upload } from './files.test-support.js';
import { readImageDimensions } from './image-dimensions.js';

/**
 * Issue 11, image bombs: dimensions are read from the header at upload and at reference,
 * images over `IMAGE_MAX_PIXELS` (40 MP) or `IMAGE_MAX_SIDE` (10,000 px) are refused with 422,
 * and the logo inlined into a PDF is scaled to at most 1200 px on its longer side.
 */

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** A real PNG with pixels, drawn with @napi-rs/canvas. */
async function realPng(width: number, height: number): Promise<Buffer> {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#c00000';
  context.fillRect(0, 0, width, height);
  return canvas.encode('png');
}

async function uploadedImage(user: TestUser, bytes: Buffer, type = 'image/png'): Promise<string> {
  const { ticket, put } = await upload(t, user, type, bytes, 'logo.png');
  expect(put.statusCode).toBe(200);
  return ticket.fileId;
}

const fileStatus = async (user: TestUser, id: string) =>
  (await t.request({ method: 'GET', url: `/v1/files/${id}`, token: user.token })).json<{
    status: string;
    rejectionReason: string | null;
  }>();

describe('image dimensions from the header', () => {
  it('reads PNG, JPEG and WebP dimensions without decoding', () => {
    expect(readImageDimensions('image/png', pngHeader(16_000, 16_000))).toEqual({
      width: 16_000,
      height: 16_000,
    });
    expect(readImageDimensions('image/jpeg', SAMPLES.jpeg)).toEqual({ width: 1, height: 1 });
    expect(readImageDimensions('image/webp', SAMPLES.webp)).toEqual({ width: 1, height: 1 });
  });

  it('finds the size a bomb declares and the caps it breaks', () => {
    const check = new ContentCheck('image/png', { maxPixels: 40_000_000, maxSide: 10_000 });
    check.update(pngHeader(16_000, 16_000));
    expect(check.problem()).toBeUndefined();
    expect(check.oversize()).toMatch(/16000 × 16000 pixels \(256\.0 MP\); at most 40\.0 MP/);
  });

  it('refuses an image whose header declares no readable size', () => {
    const check = new ContentCheck('image/jpeg', { maxPixels: 40_000_000, maxSide: 10_000 });
    check.update(SAMPLES.jpeg.subarray(0, 12)); // JFIF only, no SOF
    expect(check.problem()).toMatch(/dimensions are not readable/);
  });
});

describe('upload', () => {
  it('refuses a 16000 × 16000 PNG with 422 and keeps nothing', async () => {
    const user = await createUser(t);
    const { ticket, put } = await upload(t, user, 'image/png', pngHeader(16_000, 16_000));
    expect(put.statusCode).toBe(422);
    expect(put.json()).toMatchObject({
      code: 'file_unprocessable',
      detail: expect.stringMatching(/16000 × 16000 pixels/) as unknown,
    });
    const file = await fileStatus(user, ticket.fileId);
    expect(file.status).toBe('REJECTED');
    expect(file.rejectionReason).toMatch(/at most 40\.0 MP and 10000 pixels per side/);
  });

  it('refuses a real PNG longer than 10,000 px on a side', async () => {
    const user = await createUser(t);
    const { put } = await upload(t, user, 'image/png', await realPng(10_001, 8));
    expect(put.statusCode).toBe(422);
    expect(put.json<{ code: string }>().code).toBe('file_unprocessable');
  });

  it('accepts a normal logo', async () => {
    const user = await createUser(t);
    const id = await uploadedImage(user, await realPng(600, 200));
    expect((await fileStatus(user, id)).status).toBe('UPLOADED');
  });
});

describe('reference (account logo, partner logo, product photo)', () => {
  /** As if the file had been accepted before the caps existed (or under larger ones). */
  async function withCaps<T>(maxSide: number, work: () => Promise<T>): Promise<T> {
    const config = t.app.ctx.config as { imageMaxSide: number };
    const before = config.imageMaxSide;
    config.imageMaxSide = maxSide;
    try {
      return await work();
    } finally {
      config.imageMaxSide = before;
    }
  }

  it('refuses an oversized image with 422 naming the field', async () => {
    const admin = await createUser(t);
    const id = await uploadedImage(admin, await realPng(900, 30));
    const account = await t.request({
      method: 'GET',
      url: '/v1/account/addresses',
      token: admin.token,
    });
    const version = account.json<{ version: number }>().version;
    const res = await withCaps(800, () =>
      t.request({
        method: 'PATCH',
        url: '/v1/account/addresses',
        token: admin.token,
        payload: { version, logoFileId: id },
      }),
    );
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: 'file_unprocessable',
      errors: [{ path: '/body/logoFileId', code: 'image_too_large' }],
    });
    const partner = await withCaps(800, () =>
      t.request({
        method: 'POST',
        url: '/v1/partners',
        token: admin.token,
        payload: { name: 'Big Logo GmbH', logoFileId: id },
      }),
    );
    expect(partner.statusCode).toBe(422);
    expect(partner.json<{ errors: { path: string }[] }>().errors[0]?.path).toBe('/body/logoFileId');
  });
});

describe('logo inlined into a PDF', () => {
  const dimensionsOf = (uri: string) => {
    const [head, data] = uri.split(',') as [string, string];
    return { head, ...imageSize(Buffer.from(data, 'base64')) };
  };

  it('is scaled to at most 1200 px on its longer side', async () => {
    const user = await createUser(t);
    const id = await uploadedImage(user, await realPng(3000, 1000));
    const uri = await imageDataUriForPdf(t.app.ctx, user.accountId, id);
    expect(dimensionsOf(uri)).toMatchObject({
      head: 'data:image/png;base64',
      width: 1200,
      height: 400,
    });
  });

  it('stays as it is when it is small enough', async () => {
    const user = await createUser(t);
    const png = await realPng(600, 200);
    const id = await uploadedImage(user, png);
    const uri = await imageDataUriForPdf(t.app.ctx, user.accountId, id);
    expect(uri).toBe(`data:image/png;base64,${png.toString('base64')}`);
  });

  it('refuses a logo over the caps before decoding it', async () => {
    const user = await createUser(t);
    const id = await uploadedImage(user, await realPng(900, 30));
    const config = t.app.ctx.config as { imageMaxSide: number };
    config.imageMaxSide = 800;
    try {
      await expect(imageDataUriForPdf(t.app.ctx, user.accountId, id)).rejects.toMatchObject({
        code: 'file_unprocessable',
      });
    } finally {
      config.imageMaxSide = 10_000;
    }
  });
});
