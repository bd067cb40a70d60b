/**
 * Byte ranges of key path encodings for prefix and range queries (docs/FORMAT.md, "Ranges").
 *
 * Every range is half-open, `start <= key < end` (`end` undefined: no end), over whole
 * encodings, or over sort keys when built from the sort-key part of paths (see
 * {@link KeyPath.splitGroup}). Because the byte order is the logical order and string and
 * byte IDs are escaped, a range holds exactly the paths that logically match: `/post-ab`
 * does not match `/post-abc`. (Where UUID IDs and IDs of other types share a position, a
 * UUID whose raw bytes begin with another ID's encoding falls inside that ID's range; see
 * docs/FORMAT.md, rule 6.)
 */

import { SEPARATOR, TERMINATOR, segmentsWith } from "./binary.js";
import { KeyPathError } from "./errors.js";
import { type HeldComponent, type HeldId, type Id, checkNamespace, toHeldId } from "./id.js";
import { KeyPath, compareBytes } from "./key-path.js";

/** First byte after every encoding that starts with a given segment section. */
const AFTER_SEPARATOR = SEPARATOR + 1;

/** A bound of a range: a value that is in it (`included`) or is not (`excluded`). */
export type Bound<T> = { readonly included: T } | { readonly excluded: T };

function readBound<T>(bound: Bound<T> | undefined, which: string): [T, boolean] | undefined {
  if (bound === undefined) return undefined;
  if (typeof bound === "object" && bound !== null) {
    if ("included" in bound) return [bound.included, true];
    if ("excluded" in bound) return [bound.excluded, false];
  }
  throw new KeyPathError(
    "invalid-bound",
    undefined,
    `expected the ${which} bound as { included: value }, { excluded: value } or undefined`,
  );
}

function checkPath(p: unknown, what: string): KeyPath {
  if (!(p instanceof KeyPath)) {
    throw new KeyPathError("invalid-bound", undefined, `expected ${what} as a KeyPath, found ${typeof p}`);
  }
  return p;
}

/**
 * A half-open byte range `start <= key < end` of encoded key paths; `end` is `undefined`
 * when the range has no end.
 *
 * ```ts
 * const range = KeyRange.subtree(KeyPath.parse("/user-1/post-ab"));
 * range.contains(KeyPath.parse("/user-1/post-ab/comment-7").encode()); // true
 * range.contains(KeyPath.parse("/user-1/post-abc").encode()); // false
 * ```
 */
export class KeyRange {
  /** Inclusive start. */
  readonly start: Uint8Array;
  /** Exclusive end, or `undefined` for none. */
  readonly end: Uint8Array | undefined;

  private constructor(start: Uint8Array, end: Uint8Array | undefined) {
    this.start = start;
    this.end = end;
  }

  /**
   * The path and everything under it. For a path ending in a namespace-only component
   * (`/user-1/post`) that is every ID of that namespace under the parent, with their
   * descendants; for the empty path, everything.
   */
  static subtree(path: KeyPath): KeyRange {
    if (checkPath(path, "the path").isEmpty()) return new KeyRange(Uint8Array.of(TERMINATOR), undefined);
    return new KeyRange(
      segmentsWith(path._components, TERMINATOR),
      segmentsWith(path._components, AFTER_SEPARATOR),
    );
  }

  /** Everything under the path, without the path itself. */
  static descendants(path: KeyPath): KeyRange {
    if (checkPath(path, "the path").isEmpty()) return new KeyRange(Uint8Array.of(SEPARATOR), undefined);
    return new KeyRange(
      segmentsWith(path._components, SEPARATOR),
      segmentsWith(path._components, AFTER_SEPARATOR),
    );
  }

  /**
   * Every ID of `namespace` directly under `parent`, with their descendants (the subtree of
   * `parent/namespace` without the namespace-only item itself).
   */
  static children(parent: KeyPath, namespace: string): KeyRange {
    return KeyRange.between(parent, namespace, undefined, undefined);
  }

  /**
   * IDs of `namespace` directly under `parent` within the bounds (`undefined`: unbounded),
   * each with its descendants. An `included` upper bound includes that ID's descendants; an
   * `excluded` lower bound excludes them.
   *
   * ```ts
   * // Posts 10 (included) to 100 (excluded) of user 1.
   * KeyRange.between(KeyPath.parse("/user-1"), "post", { included: 10 }, { excluded: 100 });
   * ```
   */
  static between(
    parent: KeyPath,
    namespace: string,
    lower: Bound<Id> | undefined,
    upper: Bound<Id> | undefined,
  ): KeyRange {
    // Checked as push would: a valid namespace, after a parent whose last component has an ID.
    checkPath(parent, "the parent").pushNamespace(checkNamespace(namespace));
    const lo = readBound(lower, "lower");
    const hi = readBound(upper, "upper");
    const withId = (id: HeldId | undefined): HeldComponent[] => [
      ...parent._components,
      { namespace, id },
    ];
    const start =
      lo === undefined
        ? segmentsWith(withId(undefined), SEPARATOR)
        : segmentsWith(withId(toHeldId(lo[0])), lo[1] ? TERMINATOR : AFTER_SEPARATOR);
    const end =
      hi === undefined
        ? segmentsWith(withId(undefined), AFTER_SEPARATOR)
        : segmentsWith(withId(toHeldId(hi[0])), hi[1] ? AFTER_SEPARATOR : TERMINATOR);
    return new KeyRange(start, end);
  }

  /**
   * Paths between two paths in key order (`undefined`: unbounded). An `excluded` lower
   * bound still includes that path's descendants, which sort after it.
   */
  static betweenPaths(
    lower: Bound<KeyPath> | undefined,
    upper: Bound<KeyPath> | undefined,
  ): KeyRange {
    const lo = readBound(lower, "lower");
    const hi = readBound(upper, "upper");
    if (lo !== undefined) checkPath(lo[0], "the lower bound");
    if (hi !== undefined) checkPath(hi[0], "the upper bound");
    const withZero = (b: Uint8Array): Uint8Array => {
      const out = new Uint8Array(b.length + 1);
      out.set(b);
      return out;
    };
    const start =
      lo === undefined ? new Uint8Array(0) : lo[1] ? lo[0].encode() : withZero(lo[0].encode());
    const end =
      hi === undefined ? undefined : hi[1] ? withZero(hi[0].encode()) : hi[0].encode();
    return new KeyRange(start, end);
  }

  /** Whether an encoded key is in the range. */
  contains(key: Uint8Array): boolean {
    return (
      compareBytes(key, this.start) >= 0 &&
      (this.end === undefined || compareBytes(key, this.end) < 0)
    );
  }

  /** Whether no key can be in the range (its start is not below its end). */
  isEmpty(): boolean {
    return this.end !== undefined && compareBytes(this.end, this.start) <= 0;
  }
}
