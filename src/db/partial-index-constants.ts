import { BinaryOperationNode, ColumnNode, OperatorNode, ReferenceNode, ValueNode } from 'kysely';

/**
 * The constants that partial indexes' conditions name (`"status" = 'FINAL'`, `"is_default" =
 * 1`), written into a statement's text by both query compilers instead of sent as parameters,
 * so that the planner can match the index's condition:
 * - SQLite could before only by compiling the statement again with the bound value, which it
 *   did before nearly every run (src/db/sqlite-driver.ts, KontorSqliteQueryCompiler);
 * - PostgreSQL runs a prepared statement on its generic plan after five runs, and a generic
 *   plan cannot tell that a parameter meets the condition: it read the table instead (an
 *   account's open invoices when none of its 10,000 is open: 12.1 ms walking every invoice by
 *   id, against 0.06 ms on the open index; src/db/pg-driver.ts).
 * Only enum words and 0 / 1 are written out: no quote can occur in them, and they take few
 * values.
 */

/**
 * The columns that the partial indexes' conditions compare with a constant, by name on any
 * table; `sqlite-compiler.test.ts` holds it to the migrated schema.
 */
export const PARTIAL_INDEX_COLUMNS: ReadonlySet<string> = new Set([
  'document_type',
  'invoice_type',
  'is_default',
  'status',
]);

/** A value written into the SQL text for a partial index: an enum word, or 0 / 1. */
const INDEXED_CONSTANT = /^[A-Z][A-Z0-9_]{0,39}$/;

/**
 * `col = value` with its value written into the SQL text when a partial index's condition may
 * name it (see above); any other operation as it is. Both compilers visit every binary operation
 * through this.
 */
export function withIndexedConstant(node: BinaryOperationNode): BinaryOperationNode {
  const value = indexedConstant(node);
  return value === undefined
    ? node
    : BinaryOperationNode.create(node.leftOperand, node.operator, ValueNode.createImmediate(value));
}

/** The constant of `col = value` when a partial index's condition may name it (see above). */
function indexedConstant(node: BinaryOperationNode): string | number | undefined {
  const { leftOperand: left, operator, rightOperand: right } = node;
  if (!OperatorNode.is(operator) || operator.operator !== '=' || !ValueNode.is(right))
    return undefined;
  const column = ReferenceNode.is(left) ? left.column : left;
  if (!ColumnNode.is(column) || !PARTIAL_INDEX_COLUMNS.has(column.column.name)) return undefined;
  const value = right.value;
  if (value === 0 || value === 1) return value;
  return typeof value === 'string' && INDEXED_CONSTANT.test(value) ? value : undefined;
}
