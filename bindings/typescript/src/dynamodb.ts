/**
 * Key paths as DynamoDB keys: the group key as the partition key, the sort key as the sort
 * key, and a {@link KeyRange} over sort keys as a `KeyConditionExpression`.
 *
 * Nothing here depends on the AWS SDK: the result has the shape of the key condition fields
 * of a `QueryCommand` input (`@aws-sdk/client-dynamodb`), values as binary (`B`) attributes.
 */

import { KeyPathError } from "./errors.js";
import { KeyPath } from "./key-path.js";
import type { KeyRange } from "./range.js";

/** Attribute names of the table's keys. */
export interface KeyNames {
  /** Partition key attribute (binary); default `"pk"`. */
  readonly partitionKey?: string;
  /** Sort key attribute (binary); default `"sk"`. */
  readonly sortKey?: string;
}

/** The key condition fields of a DynamoDB `QueryCommand` input. */
export interface KeyCondition {
  KeyConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, { B: Uint8Array }>;
}

/**
 * The key condition selecting, in the partition `group`, the items whose sort keys are in
 * `range` (all items of the group when `range` is undefined).
 *
 * `group` is a group key (`splitGroup().group`, or the one-component path itself). `range`
 * must be built over sort keys, that is from paths without their group component:
 * `KeyRange.children(KeyPath.empty(), "post")` is every post of the group. A range with a
 * start and an end becomes `BETWEEN`, which includes its upper value: exact when that end is
 * not itself a key path encoding, which is checked. It practically never is for `subtree`,
 * `descendants`, `children` and `between` ranges (a segment section and `00` or `02`); it is
 * for `betweenPaths` with an `excluded` upper bound, which cannot be said in one key
 * condition and throws.
 *
 * ```ts
 * const user = KeyPath.empty().push("user", new Uuid("4c9d36e5-6b19-4e6a-828c-226ed667458a"));
 * const input = { TableName: "app", ...keyCondition(user, KeyRange.children(KeyPath.empty(), "post")) };
 * // KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :start AND :end"
 * ```
 */
export function keyCondition(
  group: KeyPath | Uint8Array,
  range?: KeyRange,
  names: KeyNames = {},
): KeyCondition {
  const pk = group instanceof KeyPath ? group.splitGroup().group : group;
  if (!(group instanceof KeyPath)) {
    // A group key must decode as one: fromGroup checks it (with an empty-path sort key).
    KeyPath.fromGroup(pk, Uint8Array.of(0));
  } else if (group.length !== 1) {
    throw new KeyPathError(
      "not-a-group-key",
      undefined,
      `expected a group key (one component with an ID), found ${JSON.stringify(group.toString())}`,
    );
  }
  const out: KeyCondition = {
    KeyConditionExpression: "#pk = :pk",
    ExpressionAttributeNames: { "#pk": names.partitionKey ?? "pk" },
    ExpressionAttributeValues: { ":pk": { B: pk } },
  };
  if (range === undefined) return out;
  const hasStart = range.start.length > 0;
  const end = range.end;
  if (!hasStart && end === undefined) return out;
  out.ExpressionAttributeNames["#sk"] = names.sortKey ?? "sk";
  if (end === undefined) {
    out.KeyConditionExpression += " AND #sk >= :start";
    out.ExpressionAttributeValues[":start"] = { B: range.start.slice() };
    return out;
  }
  if (!hasStart) {
    out.KeyConditionExpression += " AND #sk < :end";
    out.ExpressionAttributeValues[":end"] = { B: end.slice() };
    return out;
  }
  if (range.isEmpty()) {
    throw new KeyPathError(
      "not-a-key-condition",
      undefined,
      "expected a range that can hold a key, found an empty one (its start is not below its end)",
    );
  }
  let endIsKey = true;
  try {
    KeyPath.decode(end);
  } catch {
    endIsKey = false;
  }
  if (endIsKey) {
    throw new KeyPathError(
      "not-a-key-condition",
      undefined,
      "expected a range whose end is not itself a key, found one that ends just before a key path (BETWEEN would include it): use an included upper bound",
    );
  }
  out.KeyConditionExpression += " AND #sk BETWEEN :start AND :end";
  out.ExpressionAttributeValues[":start"] = { B: range.start.slice() };
  out.ExpressionAttributeValues[":end"] = { B: end.slice() };
  return out;
}
