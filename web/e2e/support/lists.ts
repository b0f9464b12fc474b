/**
 * The rows of a list answer. List routes may also answer CSV (`text/csv`), so the generated
 * client types their data as `page | string`; the seeding client asks for JSON.
 */
export function rowsOf<T>(data: { data: T[] } | string | undefined): T[] {
  return data !== undefined && typeof data !== 'string' ? data.data : [];
}
