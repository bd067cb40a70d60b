// The table client's codecs: MessagePack in its smallest form (the widths of the MessagePack
// specification at every boundary, round trips of generated values), the native item form
// (value -> item + shape -> value, through DynamoDB's own number text), index entry sort keys
// (order and split), cursors; and every decoder fed arbitrary bytes throws TableError only.

import assert from "node:assert/strict";
import test from "node:test";

import { KeyPath, compareBytes } from "../dist/esm/index.js";
import { Float, TableError, type Value, decodeValue, encodeValue } from "../dist/esm/dynamodb-table.js";
import {
  type Attr,
  cursorText,
  entryItem,
  entryKey,
  floatText,
  nativeToTv,
  parseConfig,
  parseCursor,
  parseHeader,
  splitEntry,
  toNative,
} from "../dist/esm/table-format.js";
import { tvBytes } from "../dist/esm/msgpack.js";
import { INT_BOUNDARIES, Rng, genBytes, genPath, genString, hex } from "./support.js";

const ROUNDS = 3000;
/** The integer boundaries MessagePack holds (-2^63 to 2^64-1). */
const MSGPACK_INTS = INT_BOUNDARIES.filter((v) => v >= -(1n << 63n));

function enc(v: Value): string {
  return hex(encodeValue(v));
}

test("integers take MessagePack's smallest form at every width boundary", () => {
  const cases: [number | bigint, string][] = [
    [0, "00"],
    [127, "7f"],
    [128, "cc80"],
    [255, "ccff"],
    [256, "cd0100"],
    [65535, "cdffff"],
    [65536, "ce00010000"],
    [4294967295, "ceffffffff"],
    [4294967296, "cf0000000100000000"],
    [(1n << 64n) - 1n, "cfffffffffffffffff"],
    [-1, "ff"],
    [-32, "e0"],
    [-33, "d0df"],
    [-128, "d080"],
    [-129, "d1ff7f"],
    [-32768, "d18000"],
    [-32769, "d2ffff7fff"],
    [-2147483648, "d280000000"],
    [-2147483649, "d3ffffffff7fffffff"],
    [-(1n << 63n), "d38000000000000000"],
    [Number.MAX_SAFE_INTEGER, "cf001fffffffffffff"],
  ];
  for (const [v, bytes] of cases) {
    assert.equal(enc(v), bytes, String(v));
    const back = decodeValue(encodeValue(v));
    assert.equal(BigInt(back as number | bigint), BigInt(v));
  }
  assert.throws(() => encodeValue(1n << 64n), TableError);
  assert.throws(() => encodeValue(-(1n << 63n) - 1n), TableError);
});

test("strings, bytes, arrays, maps, floats, nil and booleans in their smallest form", () => {
  const s = (n: number): string => "x".repeat(n);
  assert.equal(enc(""), "a0");
  assert.equal(enc(s(31)).slice(0, 2), "bf");
  assert.equal(enc(s(32)).slice(0, 4), "d920");
  assert.equal(enc(s(255)).slice(0, 4), "d9ff");
  assert.equal(enc(s(256)).slice(0, 6), "da0100");
  assert.equal(enc(s(65535)).slice(0, 6), "daffff");
  assert.equal(enc(s(65536)).slice(0, 10), "db00010000");
  assert.equal(enc("é"), "a2c3a9");
  assert.equal(enc(new Uint8Array(0)), "c400");
  assert.equal(enc(new Uint8Array(256)).slice(0, 6), "c50100");
  assert.equal(enc(new Uint8Array(65536)).slice(0, 10), "c600010000");
  assert.equal(enc([]), "90");
  assert.equal(enc(new Array(15).fill(null)).slice(0, 2), "9f");
  assert.equal(enc(new Array(16).fill(null)).slice(0, 6), "dc0010");
  assert.equal(enc(new Array(65536).fill(null)).slice(0, 10), "dd00010000");
  assert.equal(enc({}), "80");
  const wide = new Map<Value, Value>();
  for (let i = 0; i < 16; i++) wide.set(i, i);
  assert.equal(enc(wide).slice(0, 6), "de0010");
  assert.equal(enc(1.5), "cb3ff8000000000000");
  assert.equal(enc(new Float(1)), "cb3ff0000000000000");
  assert.equal(enc(new Float(1.5, 32)), "ca3fc00000");
  assert.equal(enc(null), "c0");
  assert.equal(enc(true), "c3");
  assert.equal(enc(false), "c2");
  // Maps keep insertion order, also for keys a plain object would reorder.
  assert.equal(
    enc(
      new Map<Value, Value>([
        ["b", 1],
        ["10", 2],
        ["2", 3],
      ]),
    ),
    "83a16201a2313002a13203",
  );
  assert.equal(enc({ board: 1, title: "Fix" }), "82a5626f61726401a57469746c65a3466978");
  for (const bad of [undefined, () => 1, Symbol("x"), new Date(0), "\ud800"] as unknown[]) {
    assert.throws(() => encodeValue(bad as Value), TableError);
  }
});

test("values nest at most 512 arrays and maps deep, as every writer of a store allows", () => {
  // The innermost empty array or map is a level too.
  const wrap = (levels: number, inner: Value, inMap: boolean): Value => {
    let v = inner;
    for (let i = 0; i < levels; i++) v = inMap ? { k: v } : [v];
    return v;
  };
  for (const inMap of [false, true]) {
    for (const inner of [1 as Value, [] as Value, new Map() as Value]) {
      const own = typeof inner === "number" ? 0 : 1;
      const fits = wrap(512 - own, inner, inMap);
      const bytes = encodeValue(fits);
      assert.deepEqual(encodeValue(decodeValue(bytes)), bytes);
      assert.throws(
        () => encodeValue(wrap(513 - own, inner, inMap)),
        (e: unknown) => e instanceof TableError && /nested more than 512 levels/.test(e.message),
      );
    }
  }
});

test("non-minimal encodings decode to the value, whose encoding is the minimal one", () => {
  for (const [bytes, minimal] of [
    ["cd0005", "05"],
    ["d0ff", "ff"],
    ["d90161", "a161"],
    ["dc000100", "9100"],
    ["de000100c0", "8100c0"],
  ]) {
    const v = decodeValue(Uint8Array.from(Buffer.from(bytes!, "hex")), {
      floats: "tagged",
      maps: "map",
    });
    assert.equal(enc(v), minimal);
  }
});

function genValue(r: Rng, depth = 0): Value {
  const k = r.below(depth > 3 ? 7 : 10);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2: {
      const v = r.pick(MSGPACK_INTS);
      return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(v)
        : v;
    }
    case 3: {
      const f = r.pick([
        0.5,
        -0.25,
        1e-7,
        3.14159,
        1e300,
        -1e-300,
        2 ** 60,
        1 / 3,
        5e-324,
        Number.MAX_VALUE,
        0,
        1,
      ]);
      return r.chance(0.3) ? new Float(f, r.chance(0.5) ? 32 : 64) : new Float(f);
    }
    case 4:
      return genString(r);
    case 5:
      return genBytes(r);
    case 6:
      return r.below(1000) - 500;
    case 7: {
      const n = r.below(5);
      const out: Value[] = [];
      for (let i = 0; i < n; i++) out.push(genValue(r, depth + 1));
      return out;
    }
    default: {
      const n = r.below(5);
      const m = new Map<Value, Value>();
      for (let i = 0; i < n; i++)
        m.set(
          r.chance(0.9) ? genString(r) + r.pick(["", "a", "b", "ç"]) : genValue(r, 4),
          genValue(r, depth + 1),
        );
      return m;
    }
  }
}

test("round trip: decode(encode(v)) encodes to the same bytes and equals v", () => {
  const r = new Rng(0x7ab1e);
  for (let i = 0; i < ROUNDS; i++) {
    const v = genValue(r);
    const bytes = encodeValue(v);
    const back = decodeValue(bytes, { floats: "tagged", maps: "map" });
    assert.equal(hex(encodeValue(back)), hex(bytes));
    assert.deepEqual(back, v);
  }
});

/** DynamoDB's number text for an N: integers as they are, floats in plain notation where it has one. */
function dynamoNumberText(n: string, isInt: boolean): string {
  if (isInt) return n;
  const v = Number(n);
  return String(v).replace("e+", "E");
}

function normalized(a: Attr): Attr {
  // Rewrites every N the way DynamoDB may print it back (floats, written as 1.5e0, in plain notation).
  if ("N" in a) return { N: dynamoNumberText(a.N, !/e/.test(a.N)) };
  if ("L" in a) return { L: a.L.map(normalized) };
  if ("M" in a) {
    const out: Record<string, Attr> = {};
    for (const k of Object.keys(a.M))
      Object.defineProperty(out, k, { value: normalized(a.M[k]!), enumerable: true });
    return { M: out };
  }
  return a;
}

test("native form: value -> item + shape -> the same payload bytes, also through DynamoDB's number text", () => {
  const r = new Rng(0x4a71);
  let natives = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const m = new Map<Value, Value>();
    const n = r.below(6);
    for (let j = 0; j < n; j++) m.set(genString(r) + "k", genValue(r, 1));
    const payload = encodeValue(m);
    const native = toNative(payload);
    if (native === undefined) continue;
    natives++;
    assert.equal(hex(tvBytes(nativeToTv(native.item, native.shape, "test"))), hex(payload));
    assert.equal(
      hex(tvBytes(nativeToTv(normalized(native.item), native.shape, "test"))),
      hex(payload),
    );
  }
  assert.ok(natives > ROUNDS / 2, `only ${natives} of ${ROUNDS} maps had a native form`);
  // What has no exact native form.
  for (const v of [
    new Map<Value, Value>([["", 1]]),
    new Map<Value, Value>([[1, 1]]),
    { a: new Float(-0) },
    { a: new Float(Infinity) },
    { a: new Float(1e-200) },
    { a: new Float(1e130) },
  ] as Value[]) {
    assert.equal(toNative(encodeValue(v)), undefined, JSON.stringify(String(v)));
  }
  let deep: Value = 1;
  for (let i = 0; i < 31; i++) deep = { a: deep };
  assert.equal(toNative(encodeValue(deep)), undefined);
  assert.ok(toNative(encodeValue((deep as { a: Value }).a)) !== undefined);
  // Not the smallest form: kept in val.
  assert.equal(toNative(Uint8Array.from([0x81, 0xa1, 0x61, 0xcd, 0x00, 0x05])), undefined);
});

test("float text is Rust's {:e}: the shortest digits, f32 as f32", () => {
  const cases: [number, 32 | 64, string][] = [
    [1.5, 64, "1.5e0"],
    [0.1, 64, "1e-1"],
    [1e300, 64, "1e300"],
    [123456.789, 64, "1.23456789e5"],
    [-2.5e-7, 64, "-2.5e-7"],
    [1, 64, "1e0"],
    [Math.fround(0.1), 32, "1e-1"],
    [Math.fround(3.4028235e38), 32, "3.4028235e38"],
    [Math.fround(16777217), 32, "1.6777216e7"],
    [0, 64, "0e0"],
  ];
  for (const [v, bits, text] of cases) assert.equal(floatText(v, bits), text, `${v}`);
  const r = new Rng(0xf10a7);
  for (let i = 0; i < ROUNDS; i++) {
    const buf = new DataView(new ArrayBuffer(8));
    buf.setUint32(0, r.u32());
    buf.setUint32(4, r.u32());
    const f64 = buf.getFloat64(0);
    const f32 = buf.getFloat32(0);
    if (Number.isFinite(f64)) assert.equal(Number(floatText(f64, 64)), f64);
    if (Number.isFinite(f32)) assert.equal(Math.fround(Number(floatText(f32, 32))), f32);
  }
});

test("entry sort keys sort by (rest, item path) and split back", () => {
  const r = new Rng(0xe47);
  const entries: { sk: Uint8Array; rest: KeyPath; base: KeyPath }[] = [];
  while (entries.length < 400) {
    const rest = genPath(r, { maxLen: 3 });
    const base = genPath(r, { maxLen: 3 });
    const comps = [...rest.components(), ...base.components()];
    if (base.isEmpty() || comps.some((c) => c.id === undefined)) continue;
    const full = KeyPath.empty().push("g", 1).join(rest);
    entries.push({ sk: entryKey("ix", full, base).sk, rest, base });
  }
  for (const e of entries) {
    const back = splitEntry(e.sk, "test");
    assert.ok(back.rest.equals(e.rest) && back.base.equals(e.base));
  }
  for (let i = 0; i + 1 < entries.length; i++) {
    const a = entries[i]!;
    const b = entries[i + 1]!;
    const byParts =
      compareBytes(a.rest.encode(), b.rest.encode()) ||
      compareBytes(a.base.encode(), b.base.encode());
    assert.equal(Math.sign(compareBytes(a.sk, b.sk)), Math.sign(byParts));
  }
});

test("cursors read back; altered ones are refused", () => {
  const r = new Rng(0xc0);
  for (let i = 0; i < 500; i++) {
    const q = r.u64();
    const position = r.bytes(r.below(40));
    const text = cursorText(q, position);
    const back = parseCursor(` ${text}\n`);
    assert.equal(back.query, q);
    assert.equal(hex(back.position), hex(position));
    const at = r.below(text.length);
    const other = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".replace(
      text[at]!,
      "",
    )[r.below(63)]!;
    const altered = text.slice(0, at) + other + text.slice(at + 1);
    assert.throws(() => parseCursor(altered), TableError);
  }
});

test("decoders given arbitrary bytes throw TableError and nothing else", () => {
  const r = new Rng(0xf022);
  const valid = [
    encodeValue({ a: [1, "x", new Uint8Array(3), 1.5, null, { b: true }] }),
    Uint8Array.from(Buffer.from("0106746963b6574010a62795f75706461746564001862", "hex")),
    new TextEncoder().encode(
      '{"format":1,"indexes":[{"name":"a","type":"t","kind":"field","field":"f","group":"/g-{g}"}],"types":[]}',
    ),
  ];
  const onlyTableErrors = (what: string, f: () => unknown): void => {
    try {
      f();
    } catch (e) {
      assert.ok(e instanceof TableError, `${what}: ${String(e)}`);
    }
  };
  for (let i = 0; i < ROUNDS * 3; i++) {
    let input: Uint8Array;
    if (r.chance(0.5)) input = r.bytes(r.below(40));
    else {
      input = r.pick(valid).slice();
      for (let k = 0, n = 1 + r.below(3); k < n; k++) input[r.below(input.length)] = r.u32() & 0xff;
      if (r.chance(0.3)) input = input.slice(0, r.below(input.length + 1));
    }
    onlyTableErrors("decodeValue", () => decodeValue(input));
    onlyTableErrors("parseHeader", () => parseHeader(input, "x"));
    onlyTableErrors("splitEntry", () => splitEntry(input, "x"));
    onlyTableErrors("entryItem", () => entryItem(input, "x"));
    onlyTableErrors("parseConfig", () => parseConfig(input));
    onlyTableErrors("parseCursor", () => parseCursor(Buffer.from(input).toString("latin1")));
    onlyTableErrors("parseCursor", () => parseCursor(Buffer.from(input).toString("base64url")));
    const attr = r.pick<unknown>([
      { N: "1" },
      { N: "x" },
      { S: "s" },
      { M: { a: { N: "1e400" } } },
      { L: [{ NULL: true }] },
      {},
      null,
      { B: input },
    ]);
    onlyTableErrors("nativeToTv", () => nativeToTv(attr as Attr, input, "x"));
    onlyTableErrors("toNative", () => toNative(input));
  }
});
