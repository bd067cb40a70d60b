/**
 * sortpath-store's DynamoDB table layout (docs/DYNAMODB_LAYOUT.md) as data: record keys,
 * envelopes, the native item form and its shape, cursors, the configuration record, field
 * index entries and the byte ranges of lists. Nothing here sends a request; the client
 * (`dynamodb-table.ts`) does.
 *
 * Exported for the client and the tests; the public surface is `sortpath/dynamodb-table`.
 */

import { quote } from "./errors.js";
import { Uuid } from "./id.js";
import { KeyPath, compareBytes } from "./key-path.js";
import { KeyRange } from "./range.js";
import { Float, type Tv, readTvAll, tvBytes } from "./msgpack.js";
import { TableError } from "./table-error.js";
import { utf8Decode, utf8Encode } from "./utf8.js";

// ---------------------------------------------------------------------------------------------
// Bytes

/** Lower-case hex, one byte a pair, space separated. */
export function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ");
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return compareBytes(a, b) === 0;
}

/** The key path error `e` as a table error of `kind`, with `what` in front. */
export function keyError(e: unknown, kind: "invalid" | "foreign", what: string): TableError {
  if (e instanceof TableError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new TableError(kind, `${what}: ${message}`, { cause: e });
}

/** A key path from text or a KeyPath; `invalid` otherwise. */
export function toPath(key: KeyPath | string, what = "key"): KeyPath {
  if (key instanceof KeyPath) return key;
  if (typeof key !== "string") {
    throw new TableError(
      "invalid",
      `expected the ${what} as a KeyPath or its text, found ${typeof key}`,
    );
  }
  try {
    return KeyPath.parse(key);
  } catch (e) {
    throw keyError(e, "invalid", `${what} ${quote(key)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Record keys (section 2)

/** A record's key: partition key and sort key bytes. */
export interface RecordKey {
  readonly pk: Uint8Array;
  readonly sk: Uint8Array;
}

export const ROOT_FIRST = Uint8Array.of(0x00);
export const ROOT_LAST = Uint8Array.of(0xff);
export const CONFIG_KEY: RecordKey = { pk: Uint8Array.of(0x00, 0x03), sk: Uint8Array.of(0x00) };
export const ENTRY_FORMAT = 0x01;
export const ENTRY_PROJECTED = 0x02;
export const ENVELOPE_FORMAT = 0x01;

/** Where a root item is placed (configuration `roots`). */
export type RootPlace = "first" | "last" | { readonly before: string };

export function isNamespaceText(s: string): boolean {
  return /^[A-Za-z_]+$/.test(s);
}

export function isIndexName(s: string): boolean {
  return /^[A-Za-z0-9_]{1,64}$/.test(s);
}

/** The sort key of a root item placed at `place`. */
export function rootSortKey(place: RootPlace): Uint8Array {
  if (place === "first") return ROOT_FIRST.slice();
  if (place === "last") return ROOT_LAST.slice();
  return utf8Encode(place.before);
}

/** Whether an item `sk` is a placed root item's (`FF`, or ASCII letters and `_`). */
export function isPlacedRoot(sk: Uint8Array): boolean {
  if (sk.length === 1 && sk[0] === 0xff) return true;
  if (sk.length === 0) return false;
  for (const b of sk) {
    if (!((b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 95)) return false;
  }
  return true;
}

/** The item key of `path` (placed root items at `rootPlace`'s sort key). */
export function itemKey(path: KeyPath, rootPlace: RootPlace = "first"): RecordKey {
  let split;
  try {
    split = path.splitGroup();
  } catch (e) {
    throw keyError(e, "invalid", `key ${quote(path.toString())}`);
  }
  const last = path.components()[path.length - 1];
  if (last === undefined || last.id === undefined) {
    throw new TableError(
      "invalid",
      `key ${quote(path.toString())}: an item's last component needs an ID`,
    );
  }
  return { pk: split.group, sk: path.length === 1 ? rootSortKey(rootPlace) : split.sort };
}

/** `00 02 len name enc(group)`: the partition of index `name`'s entries in `group`. */
export function indexGroupKey(name: string, group: Uint8Array): Uint8Array {
  const n = utf8Encode(name);
  return concat(Uint8Array.of(0x00, 0x02, n.length), n, group);
}

/** `enc` with every `00` followed by `FF`. */
export function escapeRest(enc: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (const b of enc) {
    out.push(b);
    if (b === 0) out.push(0xff);
  }
  return Uint8Array.from(out);
}

/** The key of the exact entry of index `name` at index key path `indexPath` for the item `base`. */
export function entryKey(name: string, indexPath: KeyPath, base: KeyPath): RecordKey {
  if (indexPath.length === 0) {
    throw new TableError("invalid", `index ${name}: an empty index key path for ${base}`);
  }
  const comps = indexPath.components();
  for (const c of comps) {
    if (c.id === undefined) {
      throw new TableError(
        "invalid",
        `index ${name}: every component of index key path ${indexPath} needs an ID`,
      );
    }
  }
  const { group, sort } = indexPath.splitGroup();
  return {
    pk: indexGroupKey(name, group),
    sk: concat(escapeRest(sort), Uint8Array.of(0x00, 0x00), base.encode()),
  };
}

/** Splits an entry `sk` into (rest, item path); throws `foreign` naming the record. */
export function splitEntry(sk: Uint8Array, where: string): { rest: KeyPath; base: KeyPath } {
  const rest: number[] = [];
  let at = 0;
  for (;;) {
    if (at >= sk.length)
      throw new TableError("foreign", `${where}: no end of the index path (00 00)`);
    const b = sk[at]!;
    if (b !== 0) {
      rest.push(b);
      at++;
      continue;
    }
    const next = sk[at + 1];
    if (next === 0xff) {
      rest.push(0);
      at += 2;
    } else if (next === 0x00) {
      break;
    } else {
      throw new TableError(
        "foreign",
        `${where}: byte 00 at ${at} of the sort key is neither the end of the index path (00 00) nor an escaped 00 (00 ff)`,
      );
    }
  }
  let restPath: KeyPath;
  let base: KeyPath;
  try {
    restPath = KeyPath.decode(Uint8Array.from(rest));
  } catch (e) {
    throw keyError(e, "foreign", `${where}: index path`);
  }
  try {
    base = KeyPath.decode(sk.subarray(at + 2));
  } catch (e) {
    throw keyError(e, "foreign", `${where}: item path`);
  }
  return { rest: restPath, base };
}

/** An entry value: `undefined` for keys-only, else the projected item's type and payload. */
export function entryItem(
  value: Uint8Array,
  where: string,
): { type: string; payload: Uint8Array } | undefined {
  if (value.length === 1 && value[0] === ENTRY_FORMAT) return undefined;
  if (
    value.length >= 2 &&
    value[0] === ENTRY_PROJECTED &&
    value[1]! > 0 &&
    value.length >= 2 + value[1]!
  ) {
    const type = utf8Decode(value, 2, 2 + value[1]!);
    if (type === undefined)
      throw new TableError("foreign", `${where}: the projected item's type is not UTF-8`);
    return { type, payload: value.slice(2 + value[1]!) };
  }
  if (value.length === 2 && value[0] === 0x00 && value[1]! > 0) {
    throw new TableError(
      "foreign",
      `${where}: value 00 ${value[1]!.toString(16).padStart(2, "0")} is an index entry of an earlier store layout (copy the items into a new store)`,
    );
  }
  throw new TableError(
    "foreign",
    `${where}: value of ${value.length} bytes, expected the one byte 01 or 02, a type and an item`,
  );
}

/** A record's key for messages: the item path when it decodes, else hex. */
export function describeKey(pk: Uint8Array, sk: Uint8Array): string {
  try {
    return KeyPath.fromGroup(pk, sk).toString();
  } catch {
    let group: string | undefined;
    try {
      group = KeyPath.decode(pk).toString();
    } catch {
      group = undefined;
    }
    if (group !== undefined && isPlacedRoot(sk)) return group;
    if (group !== undefined) return `${group} (sort key ${hex(sk)})`;
    return `pk ${hex(pk)} sk ${hex(sk)}`;
  }
}

// ---------------------------------------------------------------------------------------------
// The envelope (section 3)

/** An envelope's header: the item type, its index keys (name, key path encoding) and where the payload starts. */
export interface Header {
  readonly type: string;
  readonly indexes: readonly { readonly name: string; readonly path: Uint8Array }[];
  readonly payloadStart: number;
}

/** Parses an envelope header; throws `foreign` naming `where`. */
export function parseHeader(value: Uint8Array, where: string): Header {
  const bad = (what: string, at: number): TableError =>
    new TableError(
      "foreign",
      `${where}: the value is not an item envelope: expected ${what} at byte ${at}, found ${at < value.length ? "0x" + value[at]!.toString(16).padStart(2, "0") : "the end"}`,
    );
  let at = 0;
  if (value.length < 1 || value[0] !== ENVELOPE_FORMAT) throw bad("envelope format 01", 0);
  at = 1;
  if (at >= value.length) throw bad("type name length", at);
  const tlen = value[at++]!;
  if (at + tlen > value.length) throw bad(`a type name of ${tlen} bytes`, at);
  const type = utf8Decode(value, at, at + tlen);
  if (type === undefined)
    throw new TableError("foreign", `${where}: the item type name is not UTF-8`);
  at += tlen;
  if (at >= value.length) throw bad("index count", at);
  const count = value[at++]!;
  const indexes: { name: string; path: Uint8Array }[] = [];
  for (let i = 0; i < count; i++) {
    if (at >= value.length) throw bad("index name length", at);
    const nlen = value[at++]!;
    if (at + nlen > value.length) throw bad(`an index name of ${nlen} bytes`, at);
    const name = utf8Decode(value, at, at + nlen);
    if (name === undefined) throw new TableError("foreign", `${where}: an index name is not UTF-8`);
    at += nlen;
    if (at + 2 > value.length) throw bad("an index key path length (2 bytes)", at);
    const plen = value[at]! * 256 + value[at + 1]!;
    at += 2;
    if (at + plen > value.length) throw bad(`an index key path of ${plen} bytes`, at);
    indexes.push({ name, path: value.slice(at, at + plen) });
    at += plen;
  }
  return { type, indexes, payloadStart: at };
}

/**
 * The header bytes: `01`, type, index keys sorted by name (each once); the key paths of the
 * indexes in `elided` (kept by a GSI, section 5) written with length 0.
 */
export function encodeHeader(
  type: string,
  indexes: readonly { name: string; path: KeyPath }[],
  elided: ReadonlySet<string> = new Set(),
): Uint8Array {
  const t = utf8Encode(type);
  if (t.length < 1 || t.length > 255) {
    throw new TableError(
      "invalid",
      `an item type name of 1 to 255 bytes, found ${t.length} bytes (${quote(type)})`,
    );
  }
  const sorted = [...indexes].sort((a, b) => compareBytes(utf8Encode(a.name), utf8Encode(b.name)));
  if (sorted.length > 255)
    throw new TableError("invalid", `at most 255 index keys, found ${sorted.length}`);
  const parts: Uint8Array[] = [
    Uint8Array.of(ENVELOPE_FORMAT, t.length),
    t,
    Uint8Array.of(sorted.length),
  ];
  for (let i = 0; i < sorted.length; i++) {
    const { name, path } = sorted[i]!;
    if (i > 0 && sorted[i - 1]!.name === name) {
      throw new TableError("invalid", `index ${name} given twice`);
    }
    const n = utf8Encode(name);
    const p = elided.has(name) ? new Uint8Array(0) : path.encode();
    if (p.length > 0xffff)
      throw new TableError("invalid", `index key path of ${p.length} bytes (at most 65535)`);
    parts.push(Uint8Array.of(n.length), n, Uint8Array.of(p.length >> 8, p.length & 0xff), p);
  }
  return concat(...parts);
}

/** An envelope with its index key paths replaced (`paths` by index position), the rest as it is. */
export function withIndexPaths(
  value: Uint8Array,
  header: Header,
  paths: readonly Uint8Array[],
): Uint8Array {
  const t = utf8Encode(header.type);
  const parts: Uint8Array[] = [
    Uint8Array.of(ENVELOPE_FORMAT, t.length),
    t,
    Uint8Array.of(header.indexes.length),
  ];
  header.indexes.forEach((ix, i) => {
    const n = utf8Encode(ix.name);
    const p = paths[i]!;
    parts.push(Uint8Array.of(n.length), n, Uint8Array.of(p.length >> 8, p.length & 0xff), p);
  });
  parts.push(value.subarray(header.payloadStart));
  return concat(...parts);
}

// ---------------------------------------------------------------------------------------------
// The native form (section 4.2)

/** A DynamoDB attribute value, as the AWS SDK v3 unmarshalled form has it. */
export type Attr =
  | { N: string }
  | { S: string }
  | { B: Uint8Array }
  | { BOOL: boolean }
  | { NULL: boolean }
  | { L: Attr[] }
  | { M: Record<string, Attr> };

const MAX_NATIVE_DEPTH = 30;
const MIN_MAGNITUDE = 1e-130;
const MAX_MAGNITUDE = 9.99e125;

/** Rust's `{:e}` text of a float (`1.5e0`, `1e-7`): the shortest digits that read back. */
export function floatText(v: number, bits: 32 | 64): string {
  let text: string;
  if (bits === 64) text = v.toExponential();
  else {
    text = v.toExponential(8);
    for (let p = 0; p <= 8; p++) {
      const t = v.toExponential(p);
      if (Math.fround(Number(t)) === v) {
        text = t;
        break;
      }
    }
  }
  return text.replace("e+", "e");
}

function utf8Cmp(a: string, b: string): number {
  return compareBytes(utf8Encode(a), utf8Encode(b));
}

function writeVarint(shape: number[], n: number): void {
  while (n >= 0x80) {
    shape.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  shape.push(n);
}

function tvToNative(tv: Tv, shape: number[], depth: number): Attr | undefined {
  if (depth > MAX_NATIVE_DEPTH) return undefined;
  switch (tv.t) {
    case "n":
      shape.push(0x6e);
      return { NULL: true };
    case "t":
      shape.push(0x74);
      return { BOOL: tv.v };
    case "i":
      shape.push(0x69);
      return { N: tv.v.toString() };
    case "f": {
      const m = Math.abs(tv.v);
      if (
        !Number.isFinite(tv.v) ||
        Object.is(tv.v, -0) ||
        (m !== 0 && (m < MIN_MAGNITUDE || m > MAX_MAGNITUDE))
      ) {
        return undefined;
      }
      shape.push(tv.bits === 32 ? 0x67 : 0x66);
      return { N: floatText(tv.v, tv.bits) };
    }
    case "s":
      shape.push(0x73);
      return { S: tv.v };
    case "b":
      shape.push(0x62);
      return { B: tv.v };
    case "a": {
      shape.push(0x61);
      const list: Attr[] = [];
      for (const x of tv.v) {
        const a = tvToNative(x, shape, depth + 1);
        if (a === undefined) return undefined;
        list.push(a);
      }
      return { L: list };
    }
    case "m": {
      shape.push(0x6d);
      const keys: string[] = [];
      for (const [k] of tv.v) {
        if (k.t !== "s" || k.v.length === 0 || utf8Encode(k.v).length > 65535) return undefined;
        keys.push(k.v);
      }
      const sorted = [...keys].sort(utf8Cmp);
      for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) return undefined;
      const map: Record<string, Attr> = {};
      for (let i = 0; i < keys.length; i++) {
        writeVarint(shape, sorted.indexOf(keys[i]!));
        const a = tvToNative(tv.v[i]![1], shape, depth + 1);
        if (a === undefined) return undefined;
        // defineProperty: a key "__proto__" is an attribute like any other.
        Object.defineProperty(map, keys[i]!, {
          value: a,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return { M: map };
    }
  }
}

/**
 * The native form of a MessagePack payload (`item` and `shape`), or `undefined` when it has
 * no exact one (section 4.1, rule 3): rebuilding the payload from them must give its bytes.
 */
export function toNative(payload: Uint8Array): { item: Attr; shape: Uint8Array } | undefined {
  let tv: Tv;
  try {
    tv = readTvAll(payload);
  } catch {
    return undefined;
  }
  const shape: number[] = [];
  const item = tvToNative(tv, shape, 0);
  if (item === undefined) return undefined;
  const s = Uint8Array.from(shape);
  try {
    if (!sameBytes(tvBytes(nativeToTv(item, s, "")), payload)) return undefined;
  } catch {
    return undefined;
  }
  return { item, shape: s };
}

const DECIMAL_INT = /^-?(0|[1-9][0-9]*)$/;
const DECIMAL_NUMBER = /^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/** Rebuilds the payload's tree from `item` and `shape`; throws `foreign` naming `where`. */
export function nativeToTv(item: Attr, shape: Uint8Array, where: string): Tv {
  const pos = { at: 0 };
  const tv = walkNative(item, shape, pos, where, 0);
  if (pos.at !== shape.length) {
    throw new TableError(
      "foreign",
      `${where}: the item's shape has ${shape.length - pos.at} bytes left over`,
    );
  }
  return tv;
}

function walkNative(
  a: unknown,
  shape: Uint8Array,
  pos: { at: number },
  where: string,
  depth: number,
): Tv {
  const bad = (what: string): TableError =>
    new TableError(
      "foreign",
      `${where}: the item does not match its shape at shape byte ${pos.at - 1}: ${what}`,
    );
  if (depth > 64) throw bad("nested too deep");
  if (pos.at >= shape.length) {
    pos.at++;
    throw bad("the shape ends before the item");
  }
  const tag = shape[pos.at++]!;
  const attr = (typeof a === "object" && a !== null ? a : {}) as Record<string, unknown>;
  const get = (name: string): unknown =>
    Object.prototype.hasOwnProperty.call(attr, name) ? attr[name] : undefined;
  switch (tag) {
    case 0x69: {
      const n = get("N");
      if (typeof n !== "string" || !DECIMAL_INT.test(n))
        throw bad(`an integer N, found ${JSON.stringify(Object.keys(attr))}`);
      const v = BigInt(n);
      if (n.startsWith("-") ? v < -(1n << 63n) : v > (1n << 64n) - 1n)
        throw bad(`an integer in 64 bits, found ${n}`);
      return { t: "i", v };
    }
    case 0x67:
    case 0x66: {
      const n = get("N");
      if (typeof n !== "string" || !DECIMAL_NUMBER.test(n)) throw bad("a float N");
      const v = Number(n);
      return tag === 0x67 ? { t: "f", v: Math.fround(v), bits: 32 } : { t: "f", v, bits: 64 };
    }
    case 0x73: {
      const s = get("S");
      if (typeof s !== "string") throw bad("an S");
      return { t: "s", v: s };
    }
    case 0x62: {
      const b = get("B");
      if (!(b instanceof Uint8Array)) throw bad("a B");
      return { t: "b", v: b };
    }
    case 0x74: {
      const b = get("BOOL");
      if (typeof b !== "boolean") throw bad("a BOOL");
      return { t: "t", v: b };
    }
    case 0x6e: {
      if (get("NULL") !== true) throw bad("a NULL");
      return { t: "n" };
    }
    case 0x61: {
      const l = get("L");
      if (!Array.isArray(l)) throw bad("an L");
      return { t: "a", v: l.map((x) => walkNative(x, shape, pos, where, depth + 1)) };
    }
    case 0x6d: {
      const m = get("M");
      if (typeof m !== "object" || m === null) throw bad("an M");
      const keys = Object.keys(m).sort(utf8Cmp);
      const used = new Set<number>();
      const out: [Tv, Tv][] = [];
      for (let i = 0; i < keys.length; i++) {
        let rank = 0;
        let mul = 1;
        for (;;) {
          if (pos.at >= shape.length) throw bad("a map key rank, found the end of the shape");
          const b = shape[pos.at++]!;
          rank += (b & 0x7f) * mul;
          mul *= 128;
          if ((b & 0x80) === 0) break;
          if (mul > 2 ** 49) throw bad("a map key rank of at most 7 bytes");
        }
        if (rank >= keys.length || used.has(rank))
          throw bad(`a map key rank below ${keys.length}, used once, found ${rank}`);
        used.add(rank);
        const k = keys[rank]!;
        out.push([
          { t: "s", v: k },
          walkNative((m as Record<string, unknown>)[k], shape, pos, where, depth + 1),
        ]);
      }
      return { t: "m", v: out };
    }
    default:
      throw bad(`a shape tag (i g f s b t n a m), found 0x${tag.toString(16).padStart(2, "0")}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Cursors (section 7.3)

const MASK64 = (1n << 64n) - 1n;
const FNV_PRIME = 0x100000001b3n;
export const FNV_OFFSET = 0xcbf29ce484222325n;
export const CURSOR_CHECK_SEED = 0x6b65797061746801n;

export function fnv1a(state: bigint, bytes: Uint8Array): bigint {
  let h = state;
  for (const b of bytes) {
    h ^= BigInt(b);
    h = (h * FNV_PRIME) & MASK64;
  }
  return h;
}

function u64be(v: bigint): Uint8Array {
  const out = new Uint8Array(8);
  for (let i = 7; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** A query's fingerprint (section 7.3). */
export function fingerprint(
  index: string | undefined,
  reverse: boolean,
  group: Uint8Array,
  start: Uint8Array,
  end: Uint8Array | undefined,
): bigint {
  let h = fnv1a(FNV_OFFSET, Uint8Array.of(index === undefined ? 0 : 1, reverse ? 1 : 0));
  for (const part of [utf8Encode(index ?? ""), group, start, end ?? new Uint8Array(0)]) {
    h = fnv1a(h, u64be(BigInt(part.length)));
    h = fnv1a(h, part);
  }
  return fnv1a(h, Uint8Array.of(end === undefined ? 0 : 1));
}

export function cursorBytes(query: bigint, position: Uint8Array): Uint8Array {
  const body = concat(Uint8Array.of(0x01), u64be(query), position);
  return concat(body, u64be(fnv1a(CURSOR_CHECK_SEED, body)));
}

const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

export function base64url(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i]! << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((b.length - i) * 8) / 6));
    for (let k = 0; k < chars; k++) s += B64URL[(n >> (18 - 6 * k)) & 63];
  }
  return s;
}

export function cursorText(query: bigint, position: Uint8Array): string {
  return base64url(cursorBytes(query, position));
}

/** A cursor's (fingerprint, position); throws `invalid` as the Rust store refuses it. */
export function parseCursor(text: string): { query: bigint; position: Uint8Array } {
  if (typeof text !== "string")
    throw new TableError("invalid", `invalid cursor: expected a string, found ${typeof text}`);
  const t = text.trim();
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < t.length; i++) {
    const v = B64URL.indexOf(t[i]!);
    if (v < 0)
      throw new TableError(
        "invalid",
        `invalid cursor: expected URL-safe base64, found ${quote(t[i]!)} at ${i}`,
      );
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 0xff);
      acc &= (1 << bits) - 1;
    }
  }
  if (t.length % 4 === 1 || acc !== 0) {
    throw new TableError(
      "invalid",
      "invalid cursor: expected URL-safe base64, found a bad length or trailing bits",
    );
  }
  const b = Uint8Array.from(bytes);
  if (b.length < 17)
    throw new TableError("invalid", "invalid cursor: too short (was it truncated or altered?)");
  const body = b.subarray(0, b.length - 8);
  if (!sameBytes(u64be(fnv1a(CURSOR_CHECK_SEED, body)), b.subarray(b.length - 8))) {
    throw new TableError(
      "invalid",
      "invalid cursor: integrity check failed (was it truncated or altered?)",
    );
  }
  if (body[0] !== 0x01)
    throw new TableError(
      "invalid",
      "invalid cursor: unknown cursor format (was it truncated or altered?)",
    );
  let q = 0n;
  for (let i = 1; i < 9; i++) q = (q << 8n) | BigInt(body[i]!);
  return { query: q, position: body.slice(9) };
}

// ---------------------------------------------------------------------------------------------
// The configuration record (section 2.4)

/** One index declaration of the configuration. */
export interface IndexDecl {
  name: string;
  type: string;
  kind: "field" | "program";
  field?: string;
  group?: string;
  building?: boolean;
}

/** The configuration record, as read. */
export interface StoreConfig {
  format: number;
  indexes: IndexDecl[];
  groupVersions: boolean;
  /** `undefined`: a record without `types` (any type may be held). */
  types: string[] | undefined;
  roots: Map<string, RootPlace>;
}

/** The configuration of a table without the record. */
export function absentConfig(): StoreConfig {
  return { format: 1, indexes: [], groupVersions: false, types: undefined, roots: new Map() };
}

/** Parses and checks the configuration JSON; throws `foreign`. */
export function parseConfig(bytes: Uint8Array): StoreConfig {
  const fail = (what: string): TableError =>
    new TableError("foreign", `the store configuration (pk 00 03): ${what}`);
  const text = utf8Decode(bytes, 0, bytes.length);
  if (text === undefined) throw fail("not UTF-8");
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw fail(`not JSON: ${(e as Error).message}`);
  }
  if (typeof j !== "object" || j === null || Array.isArray(j)) throw fail("not a JSON object");
  const o = j as Record<string, unknown>;
  const format = o["format"];
  if (format !== 1 && format !== 2) {
    throw fail(`configuration format ${JSON.stringify(format)}, this client reads formats 1 to 2`);
  }
  const rawIndexes = o["indexes"];
  if (!Array.isArray(rawIndexes)) throw fail("indexes is not a list");
  const indexes: IndexDecl[] = [];
  for (const d of rawIndexes) {
    if (typeof d !== "object" || d === null) throw fail("an index declaration is not an object");
    const r = d as Record<string, unknown>;
    const name = r["name"];
    const type = r["type"];
    const kind = r["kind"];
    if (typeof name !== "string" || !isIndexName(name)) {
      throw fail(
        `invalid index name ${JSON.stringify(name)}: expected 1 to 64 ASCII letters, digits or '_'`,
      );
    }
    if (typeof type !== "string") throw fail(`index ${name}: type is not a string`);
    const decl: IndexDecl = { name, type, kind: "program" };
    if (kind === "field") {
      const field = r["field"];
      const group = r["group"];
      if (typeof field !== "string" || typeof group !== "string")
        throw fail(`index ${name}: a field index needs field and group strings`);
      decl.kind = "field";
      decl.field = field;
      decl.group = group;
    } else if (kind !== "program") {
      throw fail(`index ${name}: unknown kind ${JSON.stringify(kind)}`);
    }
    if (r["building"] !== undefined) {
      if (typeof r["building"] !== "boolean")
        throw fail(`index ${name}: building is not a boolean`);
      if (r["building"]) decl.building = true;
    }
    if (indexes.some((x) => x.name === name && x.type === type)) {
      throw fail(`index ${name} is declared twice for type ${type}`);
    }
    indexes.push(decl);
  }
  const gv = o["group_versions"];
  if (gv !== undefined && typeof gv !== "boolean") throw fail("group_versions is not a boolean");
  const rawTypes = o["types"];
  let types: string[] | undefined;
  if (rawTypes !== undefined && rawTypes !== null) {
    if (!Array.isArray(rawTypes) || !rawTypes.every((t) => typeof t === "string"))
      throw fail("types is not a list of strings");
    types = rawTypes as string[];
  }
  const roots = new Map<string, RootPlace>();
  const rawRoots = o["roots"];
  if (rawRoots !== undefined) {
    if (typeof rawRoots !== "object" || rawRoots === null || Array.isArray(rawRoots))
      throw fail("roots is not an object");
    for (const [ns, place] of Object.entries(rawRoots as Record<string, unknown>)) {
      if (!isNamespaceText(ns))
        throw fail(`invalid namespace ${JSON.stringify(ns)} for a root place`);
      if (place === "first" || place === "last") roots.set(ns, place);
      else if (
        typeof place === "object" &&
        place !== null &&
        typeof (place as Record<string, unknown>)["before"] === "string" &&
        isNamespaceText((place as Record<string, string>)["before"]!)
      ) {
        roots.set(ns, { before: (place as Record<string, string>)["before"]! });
      } else throw fail(`invalid root place ${JSON.stringify(place)} for ${ns}`);
    }
    if (roots.size > 0 && format === 1)
      throw fail("configuration format 1 with root placements, which need format 2");
  }
  return { format, indexes, groupVersions: gv === true, types, roots };
}

/** The configuration JSON as the Rust store writes it (key order and all). */
export function configJson(c: StoreConfig): Uint8Array {
  const format = c.roots.size > 0 ? 2 : 1;
  let s = `{"format":${format},"indexes":[`;
  s += c.indexes
    .map((d) => {
      let x = `{"name":${JSON.stringify(d.name)},"type":${JSON.stringify(d.type)},"kind":"${d.kind}"`;
      if (d.kind === "field")
        x += `,"field":${JSON.stringify(d.field)},"group":${JSON.stringify(d.group)}`;
      if (d.building) x += `,"building":true`;
      return x + "}";
    })
    .join(",");
  s += "]";
  if (c.groupVersions) s += `,"group_versions":true`;
  if (c.types !== undefined) s += `,"types":[${c.types.map((t) => JSON.stringify(t)).join(",")}]`;
  if (c.roots.size > 0) {
    const names = [...c.roots.keys()].sort(utf8Cmp);
    s += `,"roots":{${names
      .map((n) => {
        const p = c.roots.get(n)!;
        return `${JSON.stringify(n)}:${typeof p === "string" ? JSON.stringify(p) : `{"before":${JSON.stringify(p.before)}}`}`;
      })
      .join(",")}}`;
  }
  return utf8Encode(s + "}");
}

/** Where the configuration places the root item of `path`'s group. */
export function placeOf(c: StoreConfig, path: KeyPath): RootPlace {
  const first = path.components()[0];
  return (first !== undefined && c.roots.get(first.namespace)) || "first";
}

// ---------------------------------------------------------------------------------------------
// Field index entries (section 2.4.1)

/** An ID from a field's value, or `undefined` for absent/null; throws `invalid`. */
function idOf(
  namespace: string,
  field: string,
  value: unknown,
  index: string,
  item: KeyPath,
): KeyPath | undefined {
  void namespace;
  const wrong = (what: string): TableError =>
    new TableError(
      "invalid",
      `${item}: field ${JSON.stringify(field)} is ${what}; index ${index} takes integers or strings`,
    );
  if (value === undefined || value === null) return undefined;
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < -(2 ** 63) || value >= 2 ** 64)
      throw wrong(String(value));
    return KeyPath.empty().push(namespace, Number.isSafeInteger(value) ? value : BigInt(value));
  }
  if (typeof value === "bigint") {
    if (value < -(1n << 63n) || value > (1n << 64n) - 1n) throw wrong(String(value));
    return KeyPath.empty().push(namespace, value);
  }
  if (typeof value === "string") {
    let id: number | bigint | string | Uuid = value;
    try {
      const probe = KeyPath.parse(`/${namespace}-${value}`).components();
      if (probe.length === 1) {
        const pid = probe[0]!.id;
        if (typeof pid === "number" || typeof pid === "bigint" || pid instanceof Uuid) id = pid;
      }
    } catch {
      // not key path text: the string itself
    }
    try {
      return KeyPath.empty().push(namespace, id);
    } catch (e) {
      throw keyError(e, "invalid", `${item}: index ${index}`);
    }
  }
  if (typeof value === "boolean") throw wrong("a boolean");
  if (Array.isArray(value)) throw wrong("an array");
  if (value instanceof Uint8Array) throw wrong("a byte string");
  if (value instanceof Float) throw wrong(`the float ${floatText(value.value, value.bits)}`);
  throw wrong("an object");
}

/** A top-level field of a map value (plain object or Map), or `undefined`. */
export function fieldOf(value: unknown, field: string): unknown {
  if (value instanceof Map) return value.get(field);
  if (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array)
  ) {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) {
      return Object.prototype.hasOwnProperty.call(value, field)
        ? (value as Record<string, unknown>)[field]
        : undefined;
    }
  }
  return undefined;
}

/**
 * The field index keys of an item of type `type` written as data (rules of section 2.4.1), in
 * declaration order: an index takes the items whose stored type is its type (rule 1), which
 * need not be the namespace of the key's last component (an import can give another, and an
 * update keeps the stored one).
 */
export function fieldIndexEntries(
  config: StoreConfig,
  path: KeyPath,
  type: string,
  value: unknown,
): { name: string; path: KeyPath }[] {
  const out: { name: string; path: KeyPath }[] = [];
  for (const d of config.indexes) {
    if (d.type !== type || d.kind !== "field") continue;
    const m = /^\/([A-Za-z_]+)-\{([A-Za-z_]+)\}$/.exec(d.group!);
    let group: KeyPath | undefined;
    if (m !== null) {
      group = idOf(m[1]!, m[2]!, fieldOf(value, m[2]!), d.name, path);
      if (group === undefined) continue;
    } else {
      try {
        group = KeyPath.parse(d.group!);
      } catch (e) {
        throw new TableError(
          "foreign",
          `the store configuration: index ${d.name}: group ${quote(d.group!)}: ${(e as Error).message}`,
        );
      }
    }
    const key = idOf(d.field!, d.field!, fieldOf(value, d.field!), d.name, path);
    if (key === undefined) continue;
    try {
      const c = key.components()[0]!;
      out.push({ name: d.name, path: group.push(c.namespace, c.id!) });
    } catch (e) {
      throw keyError(e, "invalid", `${path}: index ${d.name}`);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Lists (section 7.2)

/** A byte bound of a scan. */
export type ByteBound = { included: Uint8Array } | { excluded: Uint8Array } | undefined;

/** A query's plan: the sk range `[start, end)` and the path filters. */
export interface Plan {
  start: Uint8Array;
  end: Uint8Array | undefined;
  /** Whether the path after the group (or an index entry's rest) is in the query. */
  matches(rest: KeyPath): boolean;
}

/** The options of a list or index query that shape its range. */
export interface RangeOptions {
  gt?: KeyPath | string | undefined;
  gte?: KeyPath | string | undefined;
  lt?: KeyPath | string | undefined;
  lte?: KeyPath | string | undefined;
}

/** The group (first component) and the rest of a prefix; throws `invalid`. */
export function splitPrefix(prefix: KeyPath): { group: KeyPath; rest: KeyPath } {
  const comps = prefix.components();
  if (comps.length === 0 || comps[0]!.id === undefined) {
    throw new TableError(
      "invalid",
      `prefix ${quote(prefix.toString())} has no group: its first component needs an ID`,
    );
  }
  let rest = KeyPath.empty();
  for (const c of comps.slice(1))
    rest = c.id === undefined ? rest.pushNamespace(c.namespace) : rest.push(c.namespace, c.id);
  return { group: KeyPath.empty().push(comps[0]!.namespace, comps[0]!.id), rest };
}

/** The plan of `Query::prefix(prefix)` with path bounds, for an item list or an index query. */
export function plan(
  prefix: KeyPath,
  bounds: RangeOptions,
  index: boolean,
  root?: { readonly sort: Uint8Array; readonly from: boolean; readonly to: boolean },
): { group: KeyPath; plan: Plan } {
  const { group, rest } = splitPrefix(prefix);
  let start: Uint8Array = Uint8Array.of(0x00);
  let end: Uint8Array | undefined;
  const narrow = (s: Uint8Array, e: Uint8Array | undefined): void => {
    if (compareBytes(s, start) > 0) start = s;
    if (e !== undefined && (end === undefined || compareBytes(e, end) < 0)) end = e;
  };
  const image = (b: Uint8Array): Uint8Array => (index ? escapeRest(b) : b);
  // From or up to the root item, by its sort key alone (nothing lies between it and its
  // successor): `Query::from_root`, `Query::to_root`.
  if (root?.from === true) narrow(root.sort, undefined);
  if (root?.to === true) narrow(new Uint8Array(0), concat(root.sort, Uint8Array.of(0x00)));
  const sub = KeyRange.subtree(rest);
  narrow(image(sub.start), sub.end === undefined ? undefined : image(sub.end));
  const filters: ((p: KeyPath) => boolean)[] = [(p) => p.startsWith(rest)];
  for (const op of ["gt", "gte", "lt", "lte"] as const) {
    const given = bounds[op];
    if (given === undefined) continue;
    const path = toPath(given, `--${op} bound`);
    const split = splitPrefix(path);
    if (!split.group.equals(group)) {
      throw new TableError(
        "invalid",
        `--${op} ${quote(path.toString())}: bound ${path} is not in the query's group ${group}`,
      );
    }
    const p = split.rest;
    const pb = p.encode();
    const lower = op === "gt" || op === "gte";
    const included = op === "gte" || op === "lte";
    if (index) {
      const at = escapeRest(pb);
      const after = concat(at, Uint8Array.of(0x00, 0x01));
      if (lower) narrow(included ? at : after, undefined);
      else narrow(new Uint8Array(0), included ? after : at);
    } else {
      const r = KeyRange.betweenPaths(
        lower ? (included ? { included: p } : { excluded: p }) : undefined,
        lower ? undefined : included ? { included: p } : { excluded: p },
      );
      narrow(r.start, r.end);
    }
    filters.push((x) => {
      const c = compareBytes(x.encode(), pb);
      if (op === "gt") return c > 0;
      if (op === "gte") return c >= 0;
      if (op === "lt") return c < 0;
      return c <= 0;
    });
  }
  return {
    group,
    plan: { start, end, matches: (p: KeyPath) => filters.every((f) => f(p)) },
  };
}
