/** Tables of the document-templates module (issue 4). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DocumentTemplatesTables {}
