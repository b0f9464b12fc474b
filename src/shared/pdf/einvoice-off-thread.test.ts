import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { parseEInvoiceXml, toCii } from '../einvoice/index.js';
import { buildEnInvoice } from '../einvoice/fixtures.test-support.js';
import { INLINE_EINVOICE_BYTES, readEInvoiceXml } from './einvoice-off-thread.js';
import { report } from '../../../test/report.js';

/**
 * Issue 11: a large e-invoice XML (megabytes of note text or embedded attachments) is read in
 * the worker pool, so the event loop keeps answering; answers and refusals are the same as
 * reading it in place. The event loop's worst delay is printed, not asserted.
 */

/** A valid XRechnung whose invoice note (BT-22) holds `chars` characters. */
function largeInvoice(chars: number): Buffer {
  return Buffer.from(toCii(buildEnInvoice({ notes: ['x'.repeat(chars)] })));
}

describe('reading a large e-invoice off the event loop', () => {
  it('answers what parseEInvoiceXml answers, in the worker pool', async () => {
    const bytes = largeInvoice(8_000_000);
    expect(bytes.length).toBeGreaterThan(INLINE_EINVOICE_BYTES);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const read = await readEInvoiceXml(bytes);
    delay.disable();
    report(
      `e-invoice of ${(bytes.length / 1e6).toFixed(1)} MB read off-thread; worst event-loop delay ${(delay.max / 1e6).toFixed(0)} ms\n`,
    );
    expect(read).toEqual(parseEInvoiceXml(bytes));
  }, 60_000);

  it('refuses in the worker as it refuses in place', async () => {
    const broken = largeInvoice(1_000_000)
      .toString()
      .replace(/<ram:DuePayableAmount>[^<]+</, '<ram:DuePayableAmount>1.00<');
    const refusal = await readEInvoiceXml(Buffer.from(broken)).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).code).toBe('file_unprocessable');
    expect((refusal as AppError).message).toMatch(/BR-CO-16/);
  }, 60_000);
});
