import type { Config } from '../../config.js';
import type { FastifyBaseLogger as Logger } from 'fastify';

/** HTML → PDF with one warm headless Chromium; started on first use. */
export class PdfRenderer {
  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  async close(): Promise<void> {}
}
