/**
 * sortpath: typed, hierarchical keys whose bytes sort in logical order, byte-exact with the
 * Rust crate `sortpath` (the format is docs/FORMAT.md in its repository).
 *
 * ```ts
 * import { KeyPath, KeyRange, Uuid } from "sortpath";
 * const path = KeyPath.parse("/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234");
 * const bytes = path.encode(); // Uint8Array, sorts as the path does
 * KeyPath.decode(bytes).toString() === path.toString(); // true
 * ```
 */

export { KeyPath, compareBytes } from "./key-path.js";
export { KeyRange, type Bound } from "./range.js";
export { KeyPathError, type KeyPathErrorKind } from "./errors.js";
export { Uuid, type Id, type Component } from "./id.js";
export { keyCondition, type KeyCondition, type KeyNames } from "./dynamodb.js";
