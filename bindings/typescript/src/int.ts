/**
 * The sort-byte integer encoding (docs/FORMAT.md, "Integers: sort byte and minimal
 * magnitude"): one sort byte carrying sign and length, then the minimal big-endian
 * magnitude, bit-inverted for negative numbers. Zero is `07 FF`.
 */

import { KeyPathError } from "./errors.js";

/** Largest magnitude of an integer ID: 2^64-1 (every u64 and every i64). */
export const INT_MAX = (1n << 64n) - 1n;
/** Sort byte of zero and of one-byte negative numbers. */
export const SORT_BYTE_ZERO = 0x07;
/** Largest sort byte. */
export const SORT_BYTE_MAX = 0x0f;

const TWO_32 = 0x1_0000_0000;

/**
 * An integer ID as this package holds it: a `number` when it is a safe integer
 * (`|n| <= 2^53-1`), else a `bigint` (up to `2^64-1` in magnitude).
 */
export type Int = number | bigint;

/** `v` as an {@link Int}, or an error saying why it is not an integer ID. */
export function toInt(v: number | bigint): Int {
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) {
      throw new KeyPathError(
        "invalid-id",
        undefined,
        `expected an integer ID as a safe integer number (at most 2^53-1 in magnitude) or a bigint, found ${v}`,
      );
    }
    return v === 0 ? 0 : v; // no -0
  }
  const m = v < 0n ? -v : v;
  if (m > INT_MAX) {
    throw new KeyPathError(
      "int-range",
      undefined,
      `integer ${v} is out of range: IDs take -(2^64-1) ..= 2^64-1`,
    );
  }
  return m <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}

/** Writes the encoding of `v` at `pos` (room for 9 bytes needed); returns the end. */
export function writeInt(v: Int, out: Uint8Array, pos: number): number {
  if (typeof v === "number") {
    if (v === 0) {
      out[pos] = SORT_BYTE_ZERO;
      out[pos + 1] = 0xff;
      return pos + 2;
    }
    const negative = v < 0;
    const m = negative ? -v : v;
    const k =
      m < 0x100
        ? 1
        : m < 0x1_0000
          ? 2
          : m < 0x100_0000
            ? 3
            : m < TWO_32
              ? 4
              : m < 0x100_0000_0000
                ? 5
                : m < 0x1_0000_0000_0000
                  ? 6
                  : 7;
    const flip = negative ? 0xff : 0;
    out[pos] = negative ? 8 - k : 7 + k;
    const lo = m >>> 0;
    const end = pos + 1 + k;
    // The low four bytes, then whatever is above them.
    let p = end - 1;
    for (let i = 0; i < k && i < 4; i++, p--) out[p] = ((lo >>> (8 * i)) & 0xff) ^ flip;
    let hi = Math.floor(m / TWO_32);
    for (let i = 4; i < k; i++, p--) {
      out[p] = (hi & 0xff) ^ flip;
      hi = Math.floor(hi / 256);
    }
    return end;
  }
  const negative = v < 0n;
  let m = negative ? -v : v;
  let k = 0;
  for (let t = m; t > 0n; t >>= 8n) k++;
  const flip = negative ? 0xff : 0;
  out[pos] = negative ? 8 - k : 7 + k;
  for (let p = pos + k; p > pos; p--) {
    out[p] = Number(m & 0xffn) ^ flip;
    m >>= 8n;
  }
  return pos + 1 + k;
}

/** A decoded integer and the bytes it used, or the problem (as the Rust crate words it). */
export type IntRead = { value: Int; used: number } | { problem: string };

/** Reads one canonical integer from `b[start..end)`. */
export function readInt(b: Uint8Array, start: number, end: number): IntRead {
  if (start >= end) return { problem: "expected an integer sort byte, found the end of input" };
  const sort = b[start]!;
  if (sort > SORT_BYTE_MAX) {
    return {
      problem: `expected an integer sort byte 0x00..=0x0F, found 0x${sort.toString(16).toUpperCase().padStart(2, "0")}`,
    };
  }
  const negative = sort <= SORT_BYTE_ZERO;
  const k = negative ? 8 - sort : sort - 7;
  const needed = 1 + k;
  if (end - start < needed) {
    return { problem: `integer needs ${needed} bytes, found ${end - start}` };
  }
  const flip = negative ? 0xff : 0;
  const first = b[start + 1]! ^ flip;
  let hi = 0; // magnitude bytes above the low four
  let lo = 0;
  for (let i = 1; i <= k; i++) {
    const byte = b[start + i]! ^ flip;
    if (k - i >= 4) hi = hi * 256 + byte;
    else lo = lo * 256 + byte;
  }
  const zero = hi === 0 && lo === 0;
  if (first === 0 && !(sort === SORT_BYTE_ZERO && zero)) {
    return { problem: "integer magnitude is not minimal (leading zero byte)" };
  }
  let value: Int;
  if (hi < 0x20_0000) {
    const m = hi * TWO_32 + lo;
    value = negative ? (zero ? 0 : -m) : m;
  } else {
    const m = (BigInt(hi) << 32n) | BigInt(lo);
    value = negative ? -m : m;
  }
  return { value, used: needed };
}

/** Whether `s` is the text of an integer: `0` or `-`? then a non-zero digit and digits. */
export function isIntText(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  let i = s.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  if (i === n) return false;
  const first = s.charCodeAt(i);
  if (first === 48 /* 0 */) return n === 1;
  if (first < 49 || first > 57) return false;
  for (i++; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** The integer that `s` (for which {@link isIntText} holds) spells, or `undefined` if out of range. */
export function parseIntText(s: string): Int | undefined {
  if (s.length <= 15) return Number(s);
  const v = BigInt(s);
  const m = v < 0n ? -v : v;
  if (m > INT_MAX) return undefined;
  return m <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
}
