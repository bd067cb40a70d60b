// The cross-language test driver's JSON (test/driver.ts): what it reads and writes must mean
// what `sortpath db` means by the same text.

import assert from "node:assert/strict";
import test from "node:test";

import { Float } from "../dist/esm/dynamodb-table.js";
import { parseJson, toJson } from "./driver.js";

test("driver JSON: integers to 64 bits exactly, floats kept as floats, maps with sorted keys", () => {
  const v = parseJson(
    '{"b":18446744073709551615,"a":-9223372036854775808,"10":1.0,"2":2.5e300,"c":[1e-7,7,"x\\u0000y"]}',
  );
  assert.ok(v instanceof Map);
  assert.deepEqual([...v.keys()], ["10", "2", "a", "b", "c"]);
  assert.equal(v.get("b"), (1n << 64n) - 1n);
  assert.equal(v.get("a"), -(1n << 63n));
  assert.deepEqual(v.get("10"), new Float(1));
  assert.deepEqual(v.get("c"), [new Float(1e-7), 7, "x\0y"]);
  assert.equal(
    toJson(v),
    '{"10":1.0,"2":2.5e+300,"a":-9223372036854775808,"b":18446744073709551615,"c":[1e-7,7,"x\\u0000y"]}',
  );
  assert.deepEqual(
    JSON.parse(toJson(v)),
    JSON.parse(
      '{"10":1.0,"2":2.5e300,"a":-9223372036854775808,"b":18446744073709551615,"c":[1e-7,7,"x\\u0000y"]}',
    ),
  );
});

test('driver JSON: byte strings as {"$bytes": base64} both ways; bad input refused', () => {
  const v = parseJson('{"x":{"$bytes":"AP8="}}') as Map<unknown, unknown>;
  assert.deepEqual(v.get("x"), Uint8Array.of(0, 255));
  assert.equal(toJson(v), '{"x":{"$bytes":"AP8="}}');
  for (const bad of [
    '{"a":1',
    "[1,]",
    '{"x":{"$bytes":"AP8"}}',
    "18446744073709551616",
    "-9223372036854775809",
    "01",
    '"\\q"',
    "nul",
  ]) {
    assert.throws(() => parseJson(bad), /expected/, bad);
  }
});
