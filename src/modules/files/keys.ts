const KEY = /^acc_[0-9a-z]{26}\/fil_[0-9a-z]{26}$/;

/** The storage key of a file: `<accountId>/<fileId>`, never derived from a file name. */
export function fileKey(accountId: string, fileId: string): string {
  return `${accountId}/${fileId}`;
}

/** Throws unless `key` is one `fileKey` makes: no stored path or object name can escape its place. */
export function assertKey(key: string): void {
  if (!KEY.test(key)) throw new Error(`not a file storage key: ${JSON.stringify(key)}`);
}
