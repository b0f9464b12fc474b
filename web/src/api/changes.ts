/**
 * What an edit sends to a partial update (PUT/PATCH where omitted fields stay): only the fields
 * the user changed. So a save after "reload and keep my edits" re-applies the user's edits on
 * the new version without undoing what someone else changed in the other fields.
 */
export function changedOnly<T extends Record<string, unknown>>(
  body: T,
  dirty: Partial<Record<keyof T, unknown>>,
): Partial<T> {
  const changed: Partial<T> = {};
  for (const key of Object.keys(body) as (keyof T)[]) {
    if (dirty[key]) changed[key] = body[key];
  }
  return changed;
}
