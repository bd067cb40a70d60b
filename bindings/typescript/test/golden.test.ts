// Every golden vector the Rust crate commits for key paths and integers, read from its files.

import assert from "node:assert/strict";
import test from "node:test";

import { KeyPath } from "../dist/esm/index.js";
import { hex, readRepoFile, unhex } from "./support.js";

function vectors(file: string, sep: RegExp): [string, string][] {
  return readRepoFile(file)
    .split("\n")
    .filter((l) => l.length > 0 && !l.startsWith("#"))
    .map((l) => {
      const [a, b, ...rest] = l.split(sep);
      assert.equal(rest.length, 0, l);
      return [a!, b!];
    });
}

test("path.txt: text encodes to the bytes, the bytes decode and print to the text", () => {
  const cases = vectors("crates/sortpath/tests/golden/path.txt", /\t/);
  assert.ok(cases.length >= 28, `only ${cases.length} vectors`);
  for (const [text, h] of cases) {
    const parsed = KeyPath.parse(text);
    assert.equal(hex(parsed.encode()), h, text);
    assert.equal(parsed.toString(), text, "the golden text is canonical");
    const decoded = KeyPath.decode(unhex(h));
    assert.equal(decoded.toString(), text, h);
    assert.ok(decoded.equals(parsed));
  }
});

test("int.txt: every integer vector, as the ID of /a-N", () => {
  const cases = vectors("crates/sortpath/tests/golden/int.txt", / /);
  assert.ok(cases.length >= 70, `only ${cases.length} vectors`);
  for (const [value, h] of cases) {
    const v = BigInt(value);
    const path = KeyPath.empty().push("a", v);
    const bytes = path.encode();
    // a 01 INT 00 08 (len << 3 | 1)
    const len = h.length / 2;
    const want = "6101" + h + "00" + "08" + ((len << 3) | 1).toString(16).padStart(2, "0");
    assert.equal(hex(bytes), want, value);
    assert.equal(path.toString(), `/a-${value}`);
    const back = KeyPath.decode(bytes).components()[0]!.id;
    assert.equal(BigInt(back as number | bigint), v);
    // Safe integers come back as numbers, others as bigints.
    const safe = v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER);
    assert.equal(typeof back, safe ? "number" : "bigint", value);
  }
});
