// What the tests share: a seeded PRNG, generators of trap-heavy paths, and an independent
// statement of the order rules of docs/FORMAT.md.

import { readFileSync } from "node:fs";

import { KeyPath, Uuid, type Component, type Id } from "../dist/esm/index.js";

/** The repository root (tests run from dist-test/). */
export const REPO = new URL("../../../", import.meta.url);

export function readRepoFile(path: string): string {
  return readFileSync(new URL(path, REPO), "utf8");
}

export function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
}

export function unhex(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, "hex"));
}

/** sfc32: a small seeded generator (not for cryptography). */
export class Rng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    this.#a = 0x9e3779b9;
    this.#b = 0x243f6a88;
    this.#c = 0xb7e15162;
    this.#d = seed >>> 0;
    for (let i = 0; i < 16; i++) this.u32();
  }

  u32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** 0 <= n < max */
  below(max: number): number {
    return Math.floor((this.u32() / 0x1_0000_0000) * max);
  }

  chance(p: number): boolean {
    return this.u32() / 0x1_0000_0000 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }

  /** A uniformly random u64 as a bigint. */
  u64(): bigint {
    return (BigInt(this.u32()) << 32n) | BigInt(this.u32());
  }
}

const P = (e: bigint) => 1n << e;
/** Every integer boundary: byte widths, 2^53, i64/u64 extremes, both signs. */
export const INT_BOUNDARIES: readonly bigint[] = (() => {
  const out = new Set<bigint>([0n]);
  for (let e = 0n; e <= 64n; e += 1n) {
    for (const d of [-1n, 0n, 1n]) {
      const v = P(e) + d;
      if (v <= P(64n) - 1n && v >= 0n) {
        out.add(v);
        out.add(-v);
      }
    }
  }
  out.add(P(63n) - 1n); // i64::MAX
  out.add(-P(63n)); // i64::MIN
  out.add(BigInt(Number.MAX_SAFE_INTEGER));
  out.add(-BigInt(Number.MAX_SAFE_INTEGER));
  return [...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
})();

const STRING_PIECES: readonly string[] = [
  "",
  "\0",
  "\x01",
  "\x0f",
  "\x10",
  "\x11",
  "\x12",
  "\x7f",
  "\t",
  "\r",
  "\n",
  "/",
  "%",
  "%%",
  "%/",
  "-",
  "~",
  "~AA",
  "a",
  "ab",
  "abc",
  "b",
  "z",
  "é",
  "😀",
  "\u{FEFF}",
  "\u{E000}",
  "\u{FFFF}",
  "\u{10000}",
  "\u{10FFFF}",
  "0",
  "1",
  "12",
  "-5",
  "-0",
  "007",
  " ",
  "4c9d36e5-6b19-4e6a-828c-226ed667458a",
  "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
];

const BYTE_PIECES: readonly number[] = [0x00, 0x01, 0x02, 0x0f, 0x10, 0x11, 0x12, 0x61, 0x7f, 0x80, 0xfe, 0xff];

const NAMESPACES: readonly string[] = ["a", "b", "user", "post", "posts", "p", "_", "A", "Z", "_x", "comment"];

export function genNamespace(r: Rng): string {
  if (r.chance(0.85)) return r.pick(NAMESPACES);
  const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
  let s = "";
  const n = 1 + r.below(6);
  for (let i = 0; i < n; i++) s += letters[r.below(letters.length)];
  return s;
}

export function genString(r: Rng): string {
  const n = r.below(5);
  let s = "";
  for (let i = 0; i < n; i++) {
    s += r.chance(0.8) ? r.pick(STRING_PIECES) : String.fromCodePoint(r.pick([r.below(0x80), r.below(0xd800), 0xe000 + r.below(0x2000), 0x10000 + r.below(0x100000)]));
  }
  return s;
}

export function genBytes(r: Rng): Uint8Array {
  const n = r.below(7);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = r.chance(0.7) ? r.pick(BYTE_PIECES) : r.u32() & 0xff;
  return out;
}

export function genInt(r: Rng): number | bigint {
  let v: bigint;
  switch (r.below(4)) {
    case 0:
    case 1:
      v = r.pick(INT_BOUNDARIES);
      break;
    case 2:
      v = BigInt(r.below(2000)) - 1000n;
      break;
    default:
      v = r.u64() >> BigInt(r.below(64));
      if (r.chance(0.5)) v = -v;
  }
  // Safe integers sometimes as numbers, sometimes as bigints: both are the same ID.
  const safe = v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER);
  return safe && r.chance(0.6) ? Number(v) : v;
}

const UUID_POOL: readonly Uuid[] = [
  new Uuid("4c9d36e5-6b19-4e6a-828c-226ed667458a"),
  new Uuid("00000000-0000-0000-0000-000000000000"),
  new Uuid("ffffffff-ffff-ffff-ffff-ffffffffffff"),
  new Uuid("01000000-0000-0000-0000-000000000000"),
  new Uuid("61000801-0000-0000-0000-000000000000"),
];

export function genUuid(r: Rng): Uuid {
  return r.chance(0.5) ? r.pick(UUID_POOL) : new Uuid(r.bytes(16));
}

export function genId(r: Rng, uuids = true): Id {
  const k = r.below(uuids ? 10 : 9);
  if (k < 3) return genInt(r);
  if (k < 6) return genString(r);
  if (k < 9) return genBytes(r);
  return genUuid(r);
}

/**
 * A random path: 0-4 components, namespaces and IDs drawn from small pools so that paths
 * share prefixes, the last component sometimes without an ID.
 */
export function genPath(r: Rng, options: { uuids?: boolean; maxLen?: number } = {}): KeyPath {
  const n = r.below((options.maxLen ?? 4) + 1);
  let p = KeyPath.empty();
  for (let i = 0; i < n; i++) {
    const ns = genNamespace(r);
    if (i === n - 1 && r.chance(0.15)) return p.pushNamespace(ns);
    p = p.push(ns, genId(r, options.uuids ?? true));
  }
  return p;
}

// ---- the order rules of docs/FORMAT.md, stated independently of the encoder ----

function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

function cmpBytes(a: Uint8Array, b: Uint8Array): number {
  return sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

function idRank(id: Id): number {
  if (typeof id === "number" || typeof id === "bigint") return 0;
  if (typeof id === "string") return 1;
  if (id instanceof Uint8Array) return 2;
  return 3; // UUID
}

/**
 * Rules 1-5: components in order, namespaces by bytes, no ID before any ID, integers
 * numerically < strings by UTF-8 bytes < bytes bytewise, a prefix first. `undefined` where
 * rule 6 applies (a UUID against another ID type: the raw bytes decide, no rule of types).
 */
export function logicalCompare(a: KeyPath, b: KeyPath): number | undefined {
  const x = a.components();
  const y = b.components();
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = compareComponent(x[i]!, y[i]!);
    if (c !== 0) return c;
  }
  return sign(x.length - y.length);
}

function compareComponent(x: Component, y: Component): number | undefined {
  const ns = cmpBytes(Buffer.from(x.namespace), Buffer.from(y.namespace));
  if (ns !== 0) return ns;
  if (x.id === undefined || y.id === undefined) {
    return x.id === undefined ? (y.id === undefined ? 0 : -1) : 1;
  }
  const rx = idRank(x.id);
  const ry = idRank(y.id);
  if ((rx === 3) !== (ry === 3)) return undefined;
  if (rx !== ry) return sign(rx - ry);
  if (rx === 0) {
    const a = BigInt(x.id as number | bigint);
    const b = BigInt(y.id as number | bigint);
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (rx === 1) return cmpBytes(Buffer.from(x.id as string, "utf8"), Buffer.from(y.id as string, "utf8"));
  if (rx === 2) return cmpBytes(x.id as Uint8Array, y.id as Uint8Array);
  return cmpBytes((x.id as Uuid).toBytes(), (y.id as Uuid).toBytes());
}

/** Whether two IDs are the same value (integers compared as numbers). */
export function sameId(x: Id | undefined, y: Id | undefined): boolean {
  if (x === undefined || y === undefined) return x === y;
  if (idRank(x) !== idRank(y)) return false;
  const rank = idRank(x);
  if (rank === 0) return BigInt(x as number | bigint) === BigInt(y as number | bigint);
  if (rank === 1) return x === y;
  if (rank === 2) return cmpBytes(x as Uint8Array, y as Uint8Array) === 0;
  return (x as Uuid).equals(y as Uuid);
}

/** Whether two paths have the same components (compared as values, not through bytes). */
export function sameComponents(a: KeyPath, b: KeyPath): boolean {
  const x = a.components();
  const y = b.components();
  return x.length === y.length && x.every((c, i) => c.namespace === y[i]!.namespace && sameId(c.id, y[i]!.id));
}
