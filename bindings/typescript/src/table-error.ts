/**
 * The one error type of the DynamoDB table client (`sortpath/dynamodb-table`).
 */

/**
 * What went wrong:
 * - `condition_failed`: a put only if absent found an item, a put only at a version found
 *   another version (or no item);
 * - `not_found`: an update of an absent item;
 * - `invalid`: bad input (a key path, a value a field index refuses, a cursor, a value
 *   MessagePack cannot hold, bytes that are not what they should be);
 * - `foreign`: a record of the table the client does not understand (the message names its key);
 * - `unsupported`: a write or read this client does not do (a type indexed by a program, an
 *   index being built, a table whose keys are not `pk` and `sk` of type `B`); nothing was
 *   written;
 * - `unrecorded`: the table holds items but no configuration record, and a write would have
 *   given it one (the Rust store's `ConfigError::Unrecorded`): its record may have been lost
 *   to damage, and a new one would drop the indexes and settings it declared; nothing was
 *   written. A table an earlier release wrote without a record is taken over explicitly with
 *   `DynamoDbTable.createConfigOverItems` (`sortpath db --dynamodb TABLE init --over-items`);
 * - `other`: anything else (DynamoDB's own errors, contention).
 */
export type TableErrorKind =
  | "condition_failed"
  | "not_found"
  | "invalid"
  | "foreign"
  | "unsupported"
  | "unrecorded"
  | "other";

/**
 * An error of the table client: its {@link TableErrorKind} and a message saying what was
 * expected, what was found and where.
 *
 * ```ts
 * import { TableError } from "sortpath/dynamodb-table";
 * try {
 *   await table.put("/board-1/ticket-7", { title: "Fix" }, { ifAbsent: true });
 * } catch (e) {
 *   if (e instanceof TableError && e.kind === "condition_failed") {
 *     // the item exists
 *   }
 * }
 * ```
 */
export class TableError extends Error {
  override readonly name = "TableError";
  /** What kind of problem it is. */
  readonly kind: TableErrorKind;

  constructor(kind: TableErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.kind = kind;
  }
}
