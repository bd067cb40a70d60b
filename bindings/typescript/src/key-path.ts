/**
 * `KeyPath`: a typed, hierarchical key `/namespace-id/namespace-id/...` whose binary form
 * sorts in logical order.
 */

import { decodeComponents, encodeComponents } from "./binary.js";
import { KeyPathError, quote } from "./errors.js";
import {
  type Component,
  type HeldComponent,
  type HeldId,
  type Id,
  Uuid,
  checkNamespace,
  toHeldId,
} from "./id.js";
import { parseComponents, printComponents } from "./text.js";

function sameId(a: HeldId, b: HeldId): boolean {
  if (a instanceof Uuid) return b instanceof Uuid && a.equals(b);
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  return a === b; // integers are normalized: a value is always the same number or bigint
}

/** `components` and then `c`, as a new array (a loop: faster than spread for short arrays). */
function appended(components: readonly HeldComponent[], c: HeldComponent): HeldComponent[] {
  const n = components.length;
  const out = new Array<HeldComponent>(n + 1);
  for (let i = 0; i < n; i++) out[i] = components[i]!;
  out[n] = c;
  return out;
}

/** Byte order of two byte strings: negative, zero or positive. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function checkBytes(bytes: unknown, what: string): Uint8Array {
  if (!(bytes instanceof Uint8Array)) {
    throw new KeyPathError("not-bytes", 0, `expected ${what} as a Uint8Array, found ${typeof bytes}`);
  }
  return bytes;
}

/**
 * A typed, hierarchical key: `/namespace-id/namespace-id/...`, immutable.
 *
 * Its order ({@link KeyPath.compare}) is the byte order of its binary form
 * ({@link KeyPath.encode}): component by component, namespaces by their bytes, a component
 * without ID before the same namespace with any ID, integers numerically before strings,
 * strings by UTF-8 bytes, byte IDs after strings, and a path before every path that
 * extends it (docs/FORMAT.md).
 *
 * ```ts
 * const post = KeyPath.empty().push("user", 1).push("post", 42);
 * post.toString(); // "/user-1/post-42"
 * KeyPath.parse("/user-1/post-9").encode(); // sorts before post's encoding
 * ```
 */
export class KeyPath {
  /** @internal The components, owned and never mutated. */
  readonly _components: readonly HeldComponent[];
  /** The binary form, made on first use. */
  #bytes: Uint8Array | undefined;

  private constructor(components: readonly HeldComponent[], bytes?: Uint8Array) {
    this._components = components;
    this.#bytes = bytes;
  }

  /** The empty path (text `/`, one byte `00`), to build on with {@link KeyPath.push}. */
  static empty(): KeyPath {
    return EMPTY;
  }

  /** @internal A path of checked components. */
  static _of(components: readonly HeldComponent[]): KeyPath {
    return new KeyPath(components);
  }

  /**
   * Parses the text form (docs/FORMAT.md); `/` is the empty path. Throws a
   * {@link KeyPathError} whose position is a UTF-8 byte offset in `text`.
   *
   * ```ts
   * KeyPath.parse("/user-1/post-%zz"); // throws: at byte 13: expected '%/', '%%' or ...
   * ```
   */
  static parse(text: string): KeyPath {
    return new KeyPath(parseComponents(text));
  }

  /**
   * Decodes a binary form. Only canonical encodings decode, so whatever decodes encodes to
   * the same bytes; any other input throws a {@link KeyPathError} (and nothing else).
   */
  static decode(bytes: Uint8Array): KeyPath {
    return new KeyPath(decodeComponents(checkBytes(bytes, "a key path encoding")));
  }

  /**
   * Joins a group (partition) key and a sort key, as {@link KeyPath.splitGroup} makes them,
   * into one path. Errors carry the offset in whichever of the two is wrong.
   */
  static fromGroup(group: Uint8Array, sort: Uint8Array): KeyPath {
    const g = decodeComponents(checkBytes(group, "a group key"));
    if (g.length !== 1 || g[0]!.id === undefined) {
      throw new KeyPathError(
        "not-a-group-key",
        0,
        "expected a group key (one component with an ID)",
      );
    }
    const rest = decodeComponents(checkBytes(sort, "a sort key"));
    return new KeyPath([g[0]!, ...rest]);
  }

  /** Byte order of the two paths' encodings, which is their logical order: -1, 0 or 1. */
  static compare(a: KeyPath, b: KeyPath): number {
    return compareBytes(a.#encoded(), b.#encoded());
  }

  #encoded(): Uint8Array {
    if (this.#bytes === undefined) this.#bytes = encodeComponents(this._components);
    return this.#bytes;
  }

  /** The binary form, a new array each time. Its byte order is the path order. */
  encode(): Uint8Array {
    return this.#bytes === undefined ? encodeComponents(this._components) : this.#bytes.slice();
  }

  /** The canonical text form; `KeyPath.parse(p.toString())` equals `p`. */
  toString(): string {
    return printComponents(this._components);
  }

  /** The text form, so that `JSON.stringify` writes paths as their text. */
  toJSON(): string {
    return this.toString();
  }

  /**
   * This path with `/namespace-id` appended. The ID is an integer (`number` up to 2^53-1 in
   * magnitude, `bigint` up to 2^64-1), a string, a {@link Uuid} or a `Uint8Array`.
   */
  push(namespace: string, id: Id): KeyPath {
    this.#checkCanExtend(checkNamespace(namespace));
    return new KeyPath(appended(this._components, { namespace, id: toHeldId(id) }));
  }

  /**
   * This path with a namespace-only component appended (`/user-1/post`: "all posts of
   * user 1" as a query prefix). Only the last component may lack an ID.
   */
  pushNamespace(namespace: string): KeyPath {
    this.#checkCanExtend(checkNamespace(namespace));
    return new KeyPath(appended(this._components, { namespace, id: undefined }));
  }

  #checkCanExtend(namespace: string): void {
    const last = this._components[this._components.length - 1];
    if (last !== undefined && last.id === undefined) {
      throw new KeyPathError(
        "id-required",
        undefined,
        `cannot add /${namespace} after the namespace-only component /${last.namespace}: only the last component may lack an ID`,
      );
    }
  }

  /** The path followed by all components of `tail`. */
  join(tail: KeyPath): KeyPath {
    if (tail._components.length === 0) return this;
    this.#checkCanExtend(tail._components[0]!.namespace);
    return new KeyPath([...this._components, ...tail._components]);
  }

  /** The path without its last component, or `undefined` for the empty path. */
  parent(): KeyPath | undefined {
    if (this._components.length === 0) return undefined;
    return new KeyPath(this._components.slice(0, -1));
  }

  /**
   * Whether `prefix`'s components begin this path: equal namespaces and IDs, where a
   * namespace-only last component of `prefix` matches that namespace with any ID
   * (`/user-1/post-2` starts with `/user-1/post`, not with `/user-1/pos` or `/user-1/post-1`).
   */
  startsWith(prefix: KeyPath): boolean {
    const p = prefix._components;
    const c = this._components;
    if (p.length > c.length) return false;
    for (let i = 0; i < p.length; i++) {
      if (p[i]!.namespace !== c[i]!.namespace) return false;
      const id = p[i]!.id;
      if (id !== undefined && (c[i]!.id === undefined || !sameId(id, c[i]!.id!))) return false;
    }
    return true;
  }

  /** Whether both are the same path (the same bytes). */
  equals(other: KeyPath): boolean {
    return KeyPath.compare(this, other) === 0;
  }

  /** The number of components. */
  get length(): number {
    return this._components.length;
  }

  /** Whether the path has no components (text `/`). */
  isEmpty(): boolean {
    return this._components.length === 0;
  }

  /** The components in order, as new objects (byte IDs copied). */
  components(): Component[] {
    return this._components.map((c) => ({
      namespace: c.namespace,
      id: c.id instanceof Uint8Array ? c.id.slice() : c.id,
    }));
  }

  /**
   * Splits into the group (partition) key, the first component, which must have an ID, and
   * the sort key, the rest; each encoded on its own. A root item's sort key is the empty
   * path, the one byte `00`, which sorts before every other item of the group.
   */
  splitGroup(): { group: Uint8Array; sort: Uint8Array } {
    const first = this._components[0];
    if (first === undefined || first.id === undefined) {
      throw new KeyPathError(
        "no-group-key",
        undefined,
        `key path ${quote(this.toString())} has no group key: its first component needs an ID`,
      );
    }
    return {
      group: encodeComponents([first]),
      sort: encodeComponents(this._components.slice(1)),
    };
  }
}

const EMPTY = KeyPath._of([]);
