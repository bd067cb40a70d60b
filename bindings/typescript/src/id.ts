/**
 * Typed IDs: integers (`number` or `bigint`), strings, UUIDs ({@link Uuid}) and bytes
 * (`Uint8Array`).
 */

import { KeyPathError, quote } from "./errors.js";
import { type Int, toInt } from "./int.js";
import { loneSurrogateAt } from "./utf8.js";

const HEX = "0123456789abcdef";

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** The 16 bytes of UUID text (`8-4-4-4-12` hex digits, any case), or `undefined`. */
export function parseUuidText(s: string): Uint8Array | undefined {
  if (s.length !== 36) return undefined;
  const out = new Uint8Array(16);
  let j = 0;
  for (let i = 0; i < 36; ) {
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (s.charCodeAt(i) !== 45) return undefined;
      i++;
      continue;
    }
    const hi = hexValue(s.charCodeAt(i));
    const lo = hexValue(s.charCodeAt(i + 1));
    if (hi < 0 || lo < 0) return undefined;
    out[j++] = hi * 16 + lo;
    i += 2;
  }
  return out;
}

/**
 * A UUID ID: 16 bytes, written as 36 characters of hex and hyphens (lowercase when printed).
 * A plain string that looks like a UUID is a string ID; wrap it in a `Uuid` to make it a
 * UUID ID.
 *
 * ```ts
 * const id = new Uuid("4C9D36E5-6B19-4E6A-828C-226ED667458A");
 * id.toString(); // "4c9d36e5-6b19-4e6a-828c-226ed667458a"
 * ```
 */
export class Uuid {
  /** @internal The 16 bytes; never handed out (see {@link Uuid.toBytes}). */
  readonly _bytes: Uint8Array;

  /**
   * A UUID from its text (`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, any case) or its 16 bytes.
   * Throws a {@link KeyPathError} (kind `invalid-uuid`) for anything else.
   */
  constructor(value: string | Uint8Array) {
    if (typeof value === "string") {
      const bytes = parseUuidText(value);
      if (bytes === undefined) {
        throw new KeyPathError(
          "invalid-uuid",
          undefined,
          `expected a UUID as 8-4-4-4-12 hex digits, found ${quote(value)}`,
        );
      }
      this._bytes = bytes;
    } else if (value instanceof Uint8Array && value.length === 16) {
      this._bytes = value.slice();
    } else {
      throw new KeyPathError(
        "invalid-uuid",
        undefined,
        `expected a UUID as text or 16 bytes, found ${describe(value)}`,
      );
    }
  }

  /** @internal A UUID holding `bytes` (16 of them, not shared), without checks. */
  static _own(bytes: Uint8Array): Uuid {
    const u = Object.create(Uuid.prototype) as { _bytes: Uint8Array };
    u._bytes = bytes;
    return u as Uuid;
  }

  /** A copy of the 16 bytes. */
  toBytes(): Uint8Array {
    return this._bytes.slice();
  }

  /** Lowercase, hyphenated. */
  toString(): string {
    const b = this._bytes;
    let s = "";
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) s += "-";
      s += HEX[b[i]! >> 4]! + HEX[b[i]! & 15]!;
    }
    return s;
  }

  /** Whether both are the same UUID. */
  equals(other: Uuid): boolean {
    for (let i = 0; i < 16; i++) if (this._bytes[i] !== other._bytes[i]) return false;
    return true;
  }
}

/**
 * An ID as given to {@link KeyPath.push} and read back from {@link KeyPath.components}:
 * an integer (`number` up to 2^53-1 in magnitude, `bigint` up to 2^64-1), a string (any
 * Unicode, including empty), a {@link Uuid}, or bytes (`Uint8Array`). Decoded integers are
 * `number`s when they are safe integers, else `bigint`s.
 */
export type Id = number | bigint | string | Uuid | Uint8Array;

/** An ID as the package holds it: integers normalized ({@link toInt}), bytes copied. */
export type HeldId = Int | string | Uuid | Uint8Array;

function describe(v: unknown): string {
  if (v instanceof Uint8Array) return `${v.length} bytes`;
  if (typeof v === "string") return quote(v);
  if (v === null) return "null";
  if (typeof v === "object") return `an object (${Object.prototype.toString.call(v)})`;
  return `${typeof v} ${String(v)}`;
}

/** `id` checked and copied for holding in a path. */
export function toHeldId(id: Id): HeldId {
  if (typeof id === "number" || typeof id === "bigint") return toInt(id);
  if (typeof id === "string") {
    const at = loneSurrogateAt(id);
    if (at >= 0) {
      throw new KeyPathError(
        "invalid-id",
        undefined,
        `expected a string ID of Unicode text, found a lone surrogate U+${id.charCodeAt(at).toString(16).toUpperCase()} at index ${at}`,
      );
    }
    return id;
  }
  if (id instanceof Uuid) return id;
  if (id instanceof Uint8Array) return id.slice();
  throw new KeyPathError(
    "invalid-id",
    undefined,
    `expected an ID (number, bigint, string, Uuid or Uint8Array), found ${describe(id)}`,
  );
}

/** Whether `ns` is a namespace: one or more ASCII letters or `_`. */
export function isNamespace(ns: string): boolean {
  if (ns.length === 0) return false;
  for (let i = 0; i < ns.length; i++) {
    const c = ns.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return false;
  }
  return true;
}

/** `ns` checked to be a namespace, for building in code. */
export function checkNamespace(ns: unknown): string {
  if (typeof ns !== "string" || !isNamespace(ns)) {
    throw new KeyPathError(
      "invalid-namespace",
      undefined,
      `invalid namespace ${typeof ns === "string" ? quote(ns) : describe(ns)}: expected one or more ASCII letters or '_'`,
    );
  }
  return ns;
}

/** One `/namespace-id` step of a path; `id` is `undefined` for a namespace-only last component. */
export interface Component {
  readonly namespace: string;
  readonly id: Id | undefined;
}

/** A component as a path holds it (its ID checked and owned). */
export interface HeldComponent {
  readonly namespace: string;
  readonly id: HeldId | undefined;
}
