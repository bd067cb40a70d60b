/**
 * MessagePack as sortpath-store writes it (the payload of an item's envelope,
 * docs/DYNAMODB_LAYOUT.md section 3): every value in its smallest form (positive and negative
 * fixint, the smallest integer width, fixstr/str8/16/32, float64 for a number with a
 * fraction), maps in insertion order. Byte-exact with the Rust writer (rmp/rmpv) for the values
 * it writes; the decoder reads any MessagePack value but ext types and checks that nothing
 * follows the value.
 *
 * Values in JavaScript ({@link Value}): `null`, booleans, integers (`number` when safe, else
 * `bigint`, from -2^63 to 2^64-1), numbers with a fraction (float64), {@link Float} for a
 * float whose MessagePack type must be kept (an integral float, or a float32), strings,
 * `Uint8Array` (bin), arrays, and maps as plain objects or `Map`s.
 */

import { TableError } from "./table-error.js";
import { loneSurrogateAt, utf8Decode, utf8Encode } from "./utf8.js";

/**
 * A float whose MessagePack type is kept: `bits` 64 (float64) or 32 (float32). Plain numbers
 * with a fraction are float64 already; a `Float` says "float" for an integral value (`1.0`)
 * and reads back as one when decoding with `floats: "tagged"`.
 *
 * ```ts
 * import { encodeValue, Float } from "sortpath/dynamodb-table";
 * encodeValue(new Float(1)); // cb 3f f0 00 00 00 00 00 00
 * ```
 */
export class Float {
  /** The value (for `bits` 32, a value `Math.fround` keeps). */
  readonly value: number;
  /** 64 or 32. */
  readonly bits: 32 | 64;
  constructor(value: number, bits: 32 | 64 = 64) {
    this.value = bits === 32 ? Math.fround(value) : value;
    this.bits = bits;
  }
}

/** A value as the codec reads and writes it (see the module docs). */
export type Value =
  | null
  | boolean
  | number
  | bigint
  | Float
  | string
  | Uint8Array
  | Value[]
  | ValueObject
  | Map<Value, Value>;

/** A map with string keys as a plain object. */
export interface ValueObject {
  [key: string]: Value;
}

/** How {@link decodeValue} gives maps and floats. */
export interface DecodeOptions {
  /** `"object"` (default): a plain object when every key is a string, else a `Map`; `"map"`: always a `Map`. */
  readonly maps?: "object" | "map";
  /** `"number"` (default): floats as numbers; `"tagged"`: as {@link Float}, so that their type survives. */
  readonly floats?: "number" | "tagged";
}

/** A MessagePack value with its exact type: the codec's own tree. */
export type Tv =
  | { t: "i"; v: bigint }
  | { t: "f"; v: number; bits: 32 | 64 }
  | { t: "s"; v: string }
  | { t: "b"; v: Uint8Array }
  | { t: "t"; v: boolean }
  | { t: "n" }
  | { t: "a"; v: Tv[] }
  | { t: "m"; v: [Tv, Tv][] };

const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);
/**
 * Deepest nesting of arrays and maps: the encoder writes at most this many nested (as every
 * writer of a store does, so that every reader reads the value back), and the decoder
 * follows them.
 */
export const MAX_DEPTH = 512;

function invalid(what: string): TableError {
  return new TableError("invalid", what);
}

function describe(v: unknown): string {
  if (v === undefined) return "undefined";
  if (typeof v === "function") return "a function";
  if (typeof v === "symbol") return "a symbol";
  if (typeof v === "object" && v !== null)
    return `an object (${Object.prototype.toString.call(v)})`;
  return `${typeof v} ${String(v)}`;
}

/** A JavaScript value as the codec's tree; throws {@link TableError} `invalid`. */
export function toTv(value: unknown, depth = 0): Tv {
  if (depth > MAX_DEPTH) throw invalid(`a value nested more than ${MAX_DEPTH} levels deep`);
  if (value === null) return { t: "n" };
  switch (typeof value) {
    case "boolean":
      return { t: "t", v: value };
    case "number":
      if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 64) {
        return { t: "i", v: BigInt(value) };
      }
      return { t: "f", v: value, bits: 64 };
    case "bigint":
      if (value < I64_MIN || value > U64_MAX) {
        throw invalid(`an integer from -2^63 to 2^64-1, found ${value}`);
      }
      return { t: "i", v: value };
    case "string": {
      const at = loneSurrogateAt(value);
      if (at >= 0) throw invalid(`a string of Unicode text, found a lone surrogate at index ${at}`);
      return { t: "s", v: value };
    }
    default:
      break;
  }
  if (value instanceof Float) return { t: "f", v: value.value, bits: value.bits };
  if (value instanceof Uint8Array) return { t: "b", v: value.slice() };
  const container =
    Array.isArray(value) ||
    value instanceof Map ||
    (typeof value === "object" &&
      [Object.prototype, null].includes(Object.getPrototypeOf(value)));
  // An array or map inside `depth` others is level `depth + 1`.
  if (container && depth >= MAX_DEPTH)
    throw invalid(`a value nested more than ${MAX_DEPTH} levels deep`);
  if (Array.isArray(value)) return { t: "a", v: value.map((x) => toTv(x, depth + 1)) };
  if (value instanceof Map) {
    const entries: [Tv, Tv][] = [];
    for (const [k, v] of value) entries.push([toTv(k, depth + 1), toTv(v, depth + 1)]);
    return { t: "m", v: entries };
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) {
      const entries: [Tv, Tv][] = [];
      for (const k of Object.keys(value)) {
        entries.push([toTv(k, depth + 1), toTv((value as Record<string, unknown>)[k], depth + 1)]);
      }
      return { t: "m", v: entries };
    }
  }
  throw invalid(
    `a value MessagePack can hold (null, boolean, number, bigint, Float, string, Uint8Array, array, plain object or Map), found ${describe(value)}`,
  );
}

/** The codec's tree as a JavaScript value. */
export function fromTv(tv: Tv, options: DecodeOptions = {}): Value {
  switch (tv.t) {
    case "n":
      return null;
    case "t":
      return tv.v;
    case "i":
      return tv.v >= BigInt(Number.MIN_SAFE_INTEGER) && tv.v <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(tv.v)
        : tv.v;
    case "f":
      return options.floats === "tagged" ? new Float(tv.v, tv.bits) : tv.v;
    case "s":
      return tv.v;
    case "b":
      return tv.v.slice();
    case "a":
      return tv.v.map((x) => fromTv(x, options));
    case "m": {
      if (options.maps !== "map" && tv.v.every(([k]) => k.t === "s")) {
        const out: ValueObject = {};
        for (const [k, v] of tv.v) {
          // defineProperty: a key "__proto__" is an own property like any other.
          Object.defineProperty(out, (k as { v: string }).v, {
            value: fromTv(v, options),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return out;
      }
      const m = new Map<Value, Value>();
      for (const [k, v] of tv.v) m.set(fromTv(k, options), fromTv(v, options));
      return m;
    }
  }
}

/** A growable byte buffer. */
export class Bytes {
  buf = new Uint8Array(64);
  len = 0;
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const b = new Uint8Array(size);
    b.set(this.buf.subarray(0, this.len));
    this.buf = b;
  }
  byte(b: number): void {
    this.room(1);
    this.buf[this.len++] = b;
  }
  /** `v` big endian in `n` bytes (n up to 8). */
  uint(v: bigint | number, n: number): void {
    this.room(n);
    let x = BigInt(v);
    for (let i = n - 1; i >= 0; i--) {
      this.buf[this.len + i] = Number(x & 0xffn);
      x >>= 8n;
    }
    this.len += n;
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  done(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

function writeLen(
  out: Bytes,
  n: number,
  fix: number,
  fixMax: number,
  codes: [number | undefined, number, number],
): void {
  if (n <= fixMax) out.byte(fix | n);
  else if (n < 0x100 && codes[0] !== undefined) {
    out.byte(codes[0]);
    out.uint(n, 1);
  } else if (n < 0x10000) {
    out.byte(codes[1]);
    out.uint(n, 2);
  } else if (n <= 0xffffffff) {
    out.byte(codes[2]);
    out.uint(n, 4);
  } else throw invalid(`a length up to 2^32-1, found ${n}`);
}

/** Writes a tree in MessagePack's smallest form. */
export function writeTv(out: Bytes, tv: Tv): void {
  switch (tv.t) {
    case "n":
      out.byte(0xc0);
      return;
    case "t":
      out.byte(tv.v ? 0xc3 : 0xc2);
      return;
    case "i": {
      const v = tv.v;
      if (v >= 0n) {
        if (v <= 0x7fn) out.byte(Number(v));
        else if (v <= 0xffn) (out.byte(0xcc), out.uint(v, 1));
        else if (v <= 0xffffn) (out.byte(0xcd), out.uint(v, 2));
        else if (v <= 0xffffffffn) (out.byte(0xce), out.uint(v, 4));
        else (out.byte(0xcf), out.uint(v, 8));
      } else if (v >= -32n) out.byte(Number(v & 0xffn));
      else if (v >= -128n) (out.byte(0xd0), out.uint(v & 0xffn, 1));
      else if (v >= -32768n) (out.byte(0xd1), out.uint(v & 0xffffn, 2));
      else if (v >= -(1n << 31n)) (out.byte(0xd2), out.uint(v & 0xffffffffn, 4));
      else (out.byte(0xd3), out.uint(v & U64_MAX, 8));
      return;
    }
    case "f": {
      const dv = new DataView(new ArrayBuffer(8));
      if (tv.bits === 32) {
        dv.setFloat32(0, tv.v);
        out.byte(0xca);
        out.bytes(new Uint8Array(dv.buffer, 0, 4));
      } else {
        dv.setFloat64(0, tv.v);
        out.byte(0xcb);
        out.bytes(new Uint8Array(dv.buffer, 0, 8));
      }
      return;
    }
    case "s": {
      const b = utf8Encode(tv.v);
      writeLen(out, b.length, 0xa0, 31, [0xd9, 0xda, 0xdb]);
      out.bytes(b);
      return;
    }
    case "b":
      if (tv.v.length < 0x100) (out.byte(0xc4), out.uint(tv.v.length, 1));
      else if (tv.v.length < 0x10000) (out.byte(0xc5), out.uint(tv.v.length, 2));
      else (out.byte(0xc6), out.uint(tv.v.length, 4));
      out.bytes(tv.v);
      return;
    case "a":
      writeLen(out, tv.v.length, 0x90, 15, [undefined, 0xdc, 0xdd]);
      for (const x of tv.v) writeTv(out, x);
      return;
    case "m":
      writeLen(out, tv.v.length, 0x80, 15, [undefined, 0xde, 0xdf]);
      for (const [k, v] of tv.v) {
        writeTv(out, k);
        writeTv(out, v);
      }
      return;
  }
}

/** The MessagePack bytes of a tree. */
export function tvBytes(tv: Tv): Uint8Array {
  const out = new Bytes();
  writeTv(out, tv);
  return out.done();
}

/**
 * The MessagePack bytes of a value, in the smallest form (see the module docs). Throws
 * {@link TableError} (`invalid`) for what MessagePack cannot hold.
 *
 * ```ts
 * import { encodeValue } from "sortpath/dynamodb-table";
 * encodeValue({ board: 1, title: "Fix" }); // 82 a5 62 6f 61 72 64 01 a5 74 69 74 6c 65 a3 46 69 78
 * ```
 */
export function encodeValue(value: Value): Uint8Array {
  return tvBytes(toTv(value));
}

class Reader {
  at = 0;
  constructor(readonly b: Uint8Array) {}
  need(n: number): void {
    if (this.at + n > this.b.length) {
      throw invalid(
        `MessagePack: expected ${n} more bytes at byte ${this.at}, found ${this.b.length - this.at}`,
      );
    }
  }
  u(n: number): number {
    this.need(n);
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + this.b[this.at + i]!;
    this.at += n;
    return v;
  }
  big(n: number): bigint {
    this.need(n);
    let v = 0n;
    for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(this.b[this.at + i]!);
    this.at += n;
    return v;
  }
  take(n: number): Uint8Array {
    this.need(n);
    const out = this.b.slice(this.at, this.at + n);
    this.at += n;
    return out;
  }
}

function readStr(r: Reader, n: number): Tv {
  r.need(n);
  const s = utf8Decode(r.b, r.at, r.at + n);
  if (s === undefined)
    throw invalid(`MessagePack: a string of UTF-8 at byte ${r.at}, found invalid UTF-8`);
  r.at += n;
  return { t: "s", v: s };
}

function readTv(r: Reader, depth: number): Tv {
  if (depth > MAX_DEPTH)
    throw invalid(`MessagePack: a value nested more than ${MAX_DEPTH} levels deep`);
  const start = r.at;
  const c = r.u(1);
  if (c <= 0x7f) return { t: "i", v: BigInt(c) };
  if (c >= 0xe0) return { t: "i", v: BigInt(c - 256) };
  if (c >= 0xa0 && c <= 0xbf) return readStr(r, c & 31);
  if (c >= 0x90 && c <= 0x9f) return readArray(r, c & 15, depth);
  if (c >= 0x80 && c <= 0x8f) return readMap(r, c & 15, depth);
  switch (c) {
    case 0xc0:
      return { t: "n" };
    case 0xc2:
      return { t: "t", v: false };
    case 0xc3:
      return { t: "t", v: true };
    case 0xc4:
      return { t: "b", v: r.take(r.u(1)) };
    case 0xc5:
      return { t: "b", v: r.take(r.u(2)) };
    case 0xc6:
      return { t: "b", v: r.take(r.u(4)) };
    case 0xca: {
      const b = r.take(4);
      return { t: "f", v: new DataView(b.buffer, b.byteOffset, 4).getFloat32(0), bits: 32 };
    }
    case 0xcb: {
      const b = r.take(8);
      return { t: "f", v: new DataView(b.buffer, b.byteOffset, 8).getFloat64(0), bits: 64 };
    }
    case 0xcc:
      return { t: "i", v: r.big(1) };
    case 0xcd:
      return { t: "i", v: r.big(2) };
    case 0xce:
      return { t: "i", v: r.big(4) };
    case 0xcf:
      return { t: "i", v: r.big(8) };
    case 0xd0:
      return { t: "i", v: BigInt.asIntN(8, r.big(1)) };
    case 0xd1:
      return { t: "i", v: BigInt.asIntN(16, r.big(2)) };
    case 0xd2:
      return { t: "i", v: BigInt.asIntN(32, r.big(4)) };
    case 0xd3:
      return { t: "i", v: BigInt.asIntN(64, r.big(8)) };
    case 0xd9:
      return readStr(r, r.u(1));
    case 0xda:
      return readStr(r, r.u(2));
    case 0xdb:
      return readStr(r, r.u(4));
    case 0xdc:
      return readArray(r, r.u(2), depth);
    case 0xdd:
      return readArray(r, r.u(4), depth);
    case 0xde:
      return readMap(r, r.u(2), depth);
    case 0xdf:
      return readMap(r, r.u(4), depth);
    default:
      throw invalid(
        `MessagePack: a value this client reads (ext types are not read) at byte ${start}, found the type byte 0x${c.toString(16).padStart(2, "0")}`,
      );
  }
}

function readArray(r: Reader, n: number, depth: number): Tv {
  // Each element takes at least one byte: a length beyond the input is refused before any allocation.
  r.need(n);
  const out: Tv[] = [];
  for (let i = 0; i < n; i++) out.push(readTv(r, depth + 1));
  return { t: "a", v: out };
}

function readMap(r: Reader, n: number, depth: number): Tv {
  r.need(2 * n);
  const out: [Tv, Tv][] = [];
  for (let i = 0; i < n; i++) {
    const k = readTv(r, depth + 1);
    out.push([k, readTv(r, depth + 1)]);
  }
  return { t: "m", v: out };
}

/** Reads exactly one value from `bytes`; throws {@link TableError} `invalid`. */
export function readTvAll(bytes: Uint8Array): Tv {
  const r = new Reader(bytes);
  const tv = readTv(r, 0);
  if (r.at !== bytes.length) {
    throw invalid(
      `MessagePack: one value, found ${bytes.length - r.at} bytes after it at byte ${r.at}`,
    );
  }
  return tv;
}

/**
 * Reads one MessagePack value (nothing may follow it). Throws {@link TableError} (`invalid`)
 * and nothing else for any other input.
 *
 * ```ts
 * import { decodeValue } from "sortpath/dynamodb-table";
 * decodeValue(Uint8Array.of(0x81, 0xa1, 0x61, 0x01)); // { a: 1 }
 * ```
 */
export function decodeValue(bytes: Uint8Array, options: DecodeOptions = {}): Value {
  return fromTv(readTvAll(bytes), options);
}
