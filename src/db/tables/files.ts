/** Tables of the files module (issue 4). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface FilesTables {}
