/** The canonical form of an email address as Kontor stores and compares it: trimmed, lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
