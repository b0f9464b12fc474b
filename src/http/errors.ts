/**
 * Errors are domain facts and live in `src/shared/errors.ts`; the HTTP layer renders them
 * (`problem.ts`). This re-export keeps the older import path working while the importers move.
 */
export * from '../shared/errors.js';
