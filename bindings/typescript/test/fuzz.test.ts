// Decoders and the parser on arbitrary input: 100,000 random and mutated byte strings and
// texts. The only thing thrown is a KeyPathError; whatever is accepted round-trips.

import assert from "node:assert/strict";
import test from "node:test";

import { KeyPath, KeyPathError } from "../dist/esm/index.js";
import { Rng, genPath, hex } from "./support.js";

const SEED = Number(process.env.SORTPATH_TEST_SEED ?? 0x6b657970);

function mutateBytes(r: Rng, valid: Uint8Array[], input: Uint8Array): Uint8Array {
  const b = Array.from(input);
  const rounds = 1 + r.below(3);
  for (let k = 0; k < rounds; k++) {
    const at = r.below(b.length + 1);
    switch (r.below(7)) {
      case 0: // flip bits
        if (b.length > 0) b[at % b.length]! ^= 1 << r.below(8);
        break;
      case 1: // set an interesting byte
        if (b.length > 0) b[at % b.length] = r.pick([0, 1, 2, 0x10, 0x11, 0x12, 0x7f, 0x80, 0x81, 0xff, 0x08, 0x0f]);
        break;
      case 2: // insert
        b.splice(at, 0, r.u32() & 0xff);
        break;
      case 3: // delete
        b.splice(at, 1 + r.below(3));
        break;
      case 4: // truncate
        b.length = at;
        break;
      case 5: // splice with another encoding
        b.splice(at, r.below(4), ...valid[r.below(valid.length)]!.subarray(0, r.below(12)));
        break;
      default: // bump the last (metadata) byte
        if (b.length > 0) b[b.length - 1] = (b[b.length - 1]! + 1 + r.below(16)) & 0xff;
    }
  }
  return Uint8Array.from(b);
}

function expectKeyPathError(e: unknown, limit: number, input: string): void {
  if (!(e instanceof KeyPathError)) {
    assert.fail(`${input}: threw ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  assert.equal(e.name, "KeyPathError");
  assert.ok(e.position !== undefined && Number.isInteger(e.position), `${input}: position ${e.position}`);
  assert.ok(e.position >= 0 && e.position <= limit, `${input}: position ${e.position} of ${limit}`);
  assert.ok(e.message.startsWith(`at byte ${e.position}: expected`) || e.message.includes("integer"), e.message);
}

test(`50,000 random and mutated byte strings: decode accepts canonical encodings only, throws only KeyPathError (seed ${SEED})`, () => {
  const r = new Rng(SEED + 10);
  const valid = Array.from({ length: 500 }, () => genPath(r).encode());
  let accepted = 0;
  for (let i = 0; i < 50_000; i++) {
    const input =
      i % 5 === 0 ? r.bytes(r.below(40)) : mutateBytes(r, valid, valid[r.below(valid.length)]!);
    try {
      const p = KeyPath.decode(input);
      accepted++;
      assert.equal(hex(p.encode()), hex(input), "whatever decodes re-encodes to the same bytes");
      assert.ok(KeyPath.parse(p.toString()).equals(p));
    } catch (e) {
      expectKeyPathError(e, input.length, hex(input));
    }
    // The same bytes split into a group and a sort key.
    const cut = r.below(input.length + 1);
    try {
      const p = KeyPath.fromGroup(input.subarray(0, cut), input.subarray(cut));
      const { group, sort } = p.splitGroup();
      assert.equal(hex(group) + hex(sort), hex(input));
    } catch (e) {
      expectKeyPathError(e, input.length, hex(input));
    }
  }
  assert.ok(accepted > 500, `only ${accepted} inputs decoded`);
});

test("string IDs decode exactly the UTF-8 that TextDecoder (fatal) accepts, byte order marks kept", () => {
  const r = new Rng(SEED + 11);
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const interesting = [0x00, 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xa0, 0xed, 0x9f, 0xef, 0xbb, 0xf0, 0x90, 0xf4, 0x8f, 0xf5, 0xff, 0x61];
  let valid = 0;
  for (let i = 0; i < 20_000; i++) {
    const raw = Array.from({ length: 1 + r.below(8) }, () => (r.chance(0.7) ? r.pick(interesting) : r.u32() & 0xff));
    if (r.chance(0.1)) raw.unshift(0xef, 0xbb, 0xbf);
    const content: number[] = [];
    for (const b of raw) content.push(...(b <= 0x10 ? [0x10, b + 2] : [b]));
    // /a-<string>: a 01 content 00 meta(a) meta(string), lengths below 16 (one-byte varints)
    if (content.length >= 16) continue;
    const bytes = Uint8Array.from([0x61, 0x01, ...content, 0x00, 0x08, (content.length << 3) | 2]);
    let want: string | undefined;
    try {
      want = strict.decode(Uint8Array.from(raw));
    } catch {
      want = undefined;
    }
    try {
      const id = KeyPath.decode(bytes).components()[0]!.id;
      assert.equal(id, want, hex(Uint8Array.from(raw)));
      valid++;
    } catch (e) {
      assert.equal(want, undefined, `${hex(Uint8Array.from(raw))}: ${String(e)}`);
      assert.ok(e instanceof KeyPathError && e.kind === "utf8" && e.position === 2, String(e));
    }
  }
  assert.ok(valid > 1000);
});

const TEXT_PIECES = ["/", "/", "-", "-", "%", "%%", "%/", "%2", "%7F", "%80", "%zz", "~", "~AA", "~AB", "~_", "a", "b", "Z", "_", "0", "1", "9", "-1", "18446744073709551616", "99999999999999999999", "4c9d36e5-6b19-4e6a-828c-226ed667458a", "é", "😀", "\uD800", "\uDC00", "\0", "\t", " ", "=", "+"];

function mutateText(r: Rng, text: string): string {
  const units = Array.from(text);
  const rounds = 1 + r.below(3);
  for (let k = 0; k < rounds; k++) {
    const at = r.below(units.length + 1);
    switch (r.below(4)) {
      case 0:
        units.splice(at, 0, r.pick(TEXT_PIECES));
        break;
      case 1:
        units.splice(at, 1 + r.below(2));
        break;
      case 2:
        units[at] = r.pick(TEXT_PIECES);
        break;
      default:
        units.length = at;
    }
  }
  return units.join("");
}

test(`50,000 random and mutated texts: parse throws only KeyPathError, whatever parses round-trips (seed ${SEED})`, () => {
  const r = new Rng(SEED + 12);
  const valid = Array.from({ length: 500 }, () => genPath(r).toString());
  let accepted = 0;
  for (let i = 0; i < 50_000; i++) {
    const text =
      i % 4 === 0
        ? Array.from({ length: r.below(10) }, () => r.pick(TEXT_PIECES)).join("")
        : mutateText(r, valid[r.below(valid.length)]!);
    try {
      const p = KeyPath.parse(text);
      accepted++;
      const printed = p.toString();
      assert.ok(KeyPath.parse(printed).equals(p), `${JSON.stringify(text)} -> ${printed}`);
      assert.ok(KeyPath.decode(p.encode()).equals(p));
    } catch (e) {
      expectKeyPathError(e, Buffer.byteLength(text, "utf8"), JSON.stringify(text));
    }
  }
  assert.ok(accepted > 5000, `only ${accepted} texts parsed`);
});

test("values from JavaScript that are not bytes or text throw KeyPathError too", () => {
  const odd: unknown[] = [undefined, null, 1, "00", [0], {}, new ArrayBuffer(1), new Uint16Array(1)];
  for (const v of odd) {
    assert.throws(() => KeyPath.decode(v as Uint8Array), KeyPathError);
    assert.throws(() => KeyPath.fromGroup(v as Uint8Array, Uint8Array.of(0)), KeyPathError);
  }
  for (const v of [undefined, null, 1, {}, ["/a-1"]]) {
    assert.throws(() => KeyPath.parse(v as string), KeyPathError);
  }
});
