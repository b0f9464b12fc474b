/**
 * Input a SEPA writer cannot turn into a valid file. `path` is a JSON pointer into the writer's
 * input (e.g. `/batches/0/debits/3/debtor/iban`), `problem` says why in a few words; the
 * domain layer maps the error to a 4xx problem naming its own field.
 */
export class SepaFileError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
    this.name = 'SepaFileError';
  }
}
