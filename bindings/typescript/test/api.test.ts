// The API: building, IDs, errors (worded and placed as the Rust crate's), ranges, and the
// DynamoDB key condition against a small model of DynamoDB's Query.

import assert from "node:assert/strict";
import test from "node:test";

import { KeyPath, KeyPathError, KeyRange, Uuid, keyCondition, type KeyCondition } from "../dist/esm/index.js";
import { hex } from "./support.js";

const EXAMPLE = "/user-4c9d36e5-6b19-4e6a-828c-226ed667458a/post-1234/comment-1678901234/react-42";

function throwsKind(f: () => unknown, kind: string, message?: string, position?: number): void {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof KeyPathError, String(e));
    assert.equal(e.kind, kind, e.message);
    if (message !== undefined) assert.equal(e.message, message);
    if (position !== undefined) assert.equal(e.position, position);
    return;
  }
  assert.fail(`expected a ${kind} error`);
}

test("building with push gives the parsed path", () => {
  const uuid = new Uuid("4c9d36e5-6b19-4e6a-828c-226ed667458a");
  const built = KeyPath.empty().push("user", uuid).push("post", 1234).push("comment", 1678901234n).push("react", 42);
  assert.equal(built.toString(), EXAMPLE);
  assert.equal(built.encode().length, 63);
  assert.ok(built.equals(KeyPath.parse(EXAMPLE)));
  assert.equal(KeyPath.empty().toString(), "/");
  assert.equal(hex(KeyPath.empty().encode()), "00");
  assert.equal(KeyPath.empty().pushNamespace("post").toString(), "/post");
  // Each ID type, printed canonically.
  const p = KeyPath.empty()
    .push("s", "")
    .push("t", "1234")
    .push("u", "a/b%c\n")
    .push("v", Uint8Array.of(0, 1))
    .push("w", new Uint8Array(0))
    .push("x", -(2n ** 64n - 1n));
  assert.equal(p.toString(), "/s-/t-%31234/u-a%/b%%c%0A/v-~AAE/w-~/x--18446744073709551615");
});

test("integers: safe numbers or bigints in, numbers when safe out; the range is ±(2^64-1)", () => {
  const ids = (p: KeyPath) => p.components().map((c) => c.id);
  const p = KeyPath.empty().push("a", 5n).push("b", 2 ** 53 - 1).push("c", 2n ** 53n).push("d", -0);
  assert.deepEqual(ids(p), [5, 2 ** 53 - 1, 2n ** 53n, 0]);
  assert.ok(Object.is(ids(p)[3], 0));
  assert.ok(KeyPath.empty().push("a", 7).equals(KeyPath.empty().push("a", 7n)));
  throwsKind(() => KeyPath.empty().push("a", 2 ** 53), "invalid-id");
  throwsKind(() => KeyPath.empty().push("a", 1.5), "invalid-id");
  throwsKind(() => KeyPath.empty().push("a", Number.NaN), "invalid-id");
  throwsKind(
    () => KeyPath.empty().push("a", 2n ** 64n),
    "int-range",
    "integer 18446744073709551616 is out of range: IDs take -(2^64-1) ..= 2^64-1",
  );
  throwsKind(() => KeyPath.empty().push("a", -(2n ** 64n)), "int-range");
  assert.equal(KeyPath.empty().push("a", 2n ** 64n - 1n).toString(), "/a-18446744073709551615");
});

test("building rejects what no path can hold", () => {
  throwsKind(
    () => KeyPath.empty().push("bad-name", 1),
    "invalid-namespace",
    'invalid namespace "bad-name": expected one or more ASCII letters or \'_\'',
  );
  throwsKind(() => KeyPath.empty().push("", 1), "invalid-namespace");
  throwsKind(() => KeyPath.empty().push("é", 1), "invalid-namespace");
  throwsKind(
    () => KeyPath.empty().pushNamespace("user").push("post", 1),
    "id-required",
    "cannot add /post after the namespace-only component /user: only the last component may lack an ID",
  );
  throwsKind(() => KeyPath.empty().push("a", "\uD800x"), "invalid-id");
  throwsKind(() => KeyPath.empty().push("a", {} as unknown as string), "invalid-id");
  throwsKind(() => KeyPath.empty().push("a", null as unknown as string), "invalid-id");
  // Bytes are copied in and out.
  const bytes = Uint8Array.of(1, 2);
  const p = KeyPath.empty().push("a", bytes);
  bytes[0] = 9;
  (p.components()[0]!.id as Uint8Array)[1] = 9;
  assert.equal(p.toString(), "/a-~AQI");
});

test("Uuid: any case in, lowercase out, 16 bytes, validated", () => {
  const u = new Uuid("4C9D36E5-6B19-4E6A-828C-226ED667458A");
  assert.equal(u.toString(), "4c9d36e5-6b19-4e6a-828c-226ed667458a");
  assert.equal(hex(u.toBytes()), "4c9d36e56b194e6a828c226ed667458a");
  assert.ok(new Uuid(u.toBytes()).equals(u));
  throwsKind(() => new Uuid("4c9d36e5-6b19-4e6a-828c-226ed667458"), "invalid-uuid");
  throwsKind(() => new Uuid("4c9d36e5x6b19-4e6a-828c-226ed667458a"), "invalid-uuid");
  throwsKind(() => new Uuid("4c9d36e5-6b19-4e6a-828c-226ed667458g"), "invalid-uuid");
  throwsKind(() => new Uuid(new Uint8Array(15)), "invalid-uuid");
  const id = KeyPath.parse("/a-4C9D36E5-6B19-4E6A-828C-226ED667458A").components()[0]!.id;
  assert.ok(id instanceof Uuid && id.equals(u));
  // A UUID-shaped string is a string ID, printed so that it reads back as one.
  const s = KeyPath.empty().push("a", u.toString());
  assert.equal(s.toString(), "/a-%34c9d36e5-6b19-4e6a-828c-226ed667458a");
  assert.equal(typeof KeyPath.parse(s.toString()).components()[0]!.id, "string");
});

test("parse errors say what and where, as the Rust crate does", () => {
  const cases: [string, string, number, string][] = [
    ["/user-1/post-%zz", "percent", 13, "expected '%/', '%%' or '%' and two hex digits 00-7F, found \"%zz\""],
    ["user-1", "missing-slash", 0, "expected '/' at the start of a key path"],
    ["", "missing-slash", 0, "expected '/' at the start of a key path"],
    ["/a-1/b-2/", "namespace", 9, 'expected a namespace of ASCII letters or \'_\', found ""'],
    ["/a/b-1", "id-required", 1, 'expected an ID after namespace "a": only the last component may lack one'],
    ["/a-~AB", "base64-not-canonical", 4, 'expected base64url whose last digit has its unused low bits zero, found "AB" (the same bytes are written "AA")'],
    ["/a-~A", "base64", 4, 'expected base64url without padding after \'~\', found "A"'],
    ["/a-~AA=", "base64", 4, 'expected base64url without padding after \'~\', found "AA="'],
    ["/a-18446744073709551616", "int-range", 3, "integer ID 18446744073709551616 is out of range -(2^64-1) ..= 2^64-1"],
    ["/é-1", "namespace", 1, 'expected a namespace of ASCII letters or \'_\', found "é"'],
    // Positions are UTF-8 byte offsets.
    ["/a-é%8", "percent", 5, 'expected \'%/\', \'%%\' or \'%\' and two hex digits 00-7F, found "%8"'],
    ["/a-x%80", "percent", 4, 'expected \'%/\', \'%%\' or \'%\' and two hex digits 00-7F, found "%80"'],
    ["/a-😀/\uD800", "lone-surrogate", 8, "expected Unicode text, found a lone surrogate U+D800"],
  ];
  for (const [text, kind, position, problem] of cases) {
    throwsKind(() => KeyPath.parse(text), kind, `at byte ${position}: ${problem}`, position);
  }
});

test("decode errors say what and where, as the Rust crate does", () => {
  const cases: [number[], string, number, string][] = [
    [[], "empty", 0, "expected a key path encoding, found no bytes"],
    [[0x2d, 0x00, 0x08], "namespace", 0, 'expected a namespace of ASCII letters or \'_\', found "-"'],
    [[0x61, 0x01, 0x2d, 0x00, 0x08, 0x09], "int", 2, "invalid integer ID: expected an integer sort byte 0x00..=0x0F, found 0x2D"],
    [[0x01], "metadata", 0, "expected segment metadata (varints) that accounts for every byte, found lengths that do not add up to the input length"],
    [[0x61, 0x80], "metadata", 1, "expected segment metadata (varints) that accounts for every byte, found a varint whose last byte has the continuation bit"],
    [[0x61, 0x01, 0x08, 0x01, 0x01, 0x08, 0x11], "separator", 4, "expected separator 0x00 after a segment, found 0x01"],
    [[0x61, 0x01, 0x09, 0x00, 0x01, 0x00, 0x08, 0x19], "int", 2, "invalid integer ID: integer magnitude is not minimal (leading zero byte)"],
    [[0x61, 0x01, 0x10, 0x01, 0x00, 0x08, 0x12], "escape", 2, "expected an escaped ID byte (0x10 then 0x02..=0x12, or a byte >= 0x11), found 0x01"],
    [[0x61, 0x01, 0xfe, 0x00, 0x08, 0x0b], "bytes-marker", 2, "expected the byte-string marker 0xFF, found 0xFE"],
    [[0x61, 0x01, 0x12, 0x00, 0x08, 0x0c], "uuid-length", 2, "expected a 16-byte UUID, found 1 bytes"],
    [[0x61, 0x01, 0x12, 0x00, 0x08, 0x0d], "segment-type", 2, "expected an ID segment, found type code 5"],
    [[0x61, 0x00, 0x09], "segment-type", 0, "expected a namespace segment, found type code 1"],
    [[0x61, 0x01, 0xc3, 0x00, 0x08, 0x0a], "utf8", 2, "expected a UTF-8 string ID, found invalid UTF-8"],
  ];
  for (const [bytes, kind, position, problem] of cases) {
    throwsKind(() => KeyPath.decode(Uint8Array.from(bytes)), kind, `at byte ${position}: ${problem}`, position);
  }
  throwsKind(
    () => KeyPath.fromGroup(KeyPath.parse("/a-1/b-2").encode(), Uint8Array.of(0)),
    "not-a-group-key",
    "at byte 0: expected a group key (one component with an ID)",
  );
  throwsKind(() => KeyPath.fromGroup(KeyPath.parse("/a-1").encode(), Uint8Array.of()), "empty");
});

test("parent, startsWith, join, length", () => {
  const p = KeyPath.parse("/user-1/post-ab/comment-3");
  assert.equal(p.parent()!.toString(), "/user-1/post-ab");
  assert.equal(KeyPath.empty().parent(), undefined);
  assert.equal(p.length, 3);
  assert.ok(p.startsWith(KeyPath.parse("/user-1/post-ab")));
  assert.ok(p.startsWith(KeyPath.parse("/user-1/post")));
  assert.ok(p.startsWith(KeyPath.empty()));
  assert.ok(!p.startsWith(KeyPath.parse("/user-1/post-a")));
  assert.ok(!p.startsWith(KeyPath.parse("/user-1/pos")));
  assert.ok(!KeyPath.parse("/user-1/post").startsWith(KeyPath.parse("/user-1/post-1")));
  assert.equal(KeyPath.parse("/a-1").join(KeyPath.parse("/b-2/c")).toString(), "/a-1/b-2/c");
  throwsKind(() => KeyPath.parse("/a").join(KeyPath.parse("/b-2")), "id-required");
  assert.equal(JSON.stringify({ key: p }), `{"key":"${p}"}`);
});

test("ranges: the bytes of docs/FORMAT.md's table", () => {
  const r = (range: KeyRange) => [hex(range.start), range.end && hex(range.end)];
  assert.deepEqual(r(KeyRange.subtree(KeyPath.parse("/a-1"))), ["6101080100", "6101080102"]);
  assert.deepEqual(r(KeyRange.descendants(KeyPath.parse("/a-1"))), ["6101080101", "6101080102"]);
  assert.deepEqual(r(KeyRange.subtree(KeyPath.empty())), ["00", undefined]);
  assert.deepEqual(r(KeyRange.descendants(KeyPath.empty())), ["01", undefined]);
  assert.deepEqual(r(KeyRange.children(KeyPath.parse("/a-1"), "b")), ["61010801016201", "61010801016202"]);
  assert.deepEqual(r(KeyRange.children(KeyPath.empty(), "b")), ["6201", "6202"]);
  assert.deepEqual(r(KeyRange.between(KeyPath.empty(), "b", { included: 1 }, { excluded: 2 })), ["6201080100", "6201080200"]);
  assert.deepEqual(r(KeyRange.between(KeyPath.empty(), "b", { excluded: "" }, { included: "" })), ["62011002", "62011002"]);
  assert.deepEqual(r(KeyRange.betweenPaths(undefined, undefined)), ["", undefined]);
  assert.deepEqual(r(KeyRange.betweenPaths({ excluded: KeyPath.empty() }, { included: KeyPath.empty() })), ["0000", "0000"]);
  assert.ok(KeyRange.between(KeyPath.empty(), "a", { included: 5 }, { excluded: 5 }).isEmpty());
  throwsKind(() => KeyRange.children(KeyPath.parse("/a"), "b"), "id-required");
  throwsKind(() => KeyRange.children(KeyPath.empty(), "b-c"), "invalid-namespace");
  throwsKind(() => KeyRange.between(KeyPath.empty(), "b", { at: 1 } as never, undefined), "invalid-bound");
});

/** DynamoDB's Query on a table of binary keys: the key condition forms keyCondition writes. */
function query(items: { pk: Uint8Array; sk: Uint8Array }[], c: KeyCondition): Uint8Array[] {
  const v = (name: string) => c.ExpressionAttributeValues[name]!.B;
  const cmp = (a: Uint8Array, b: Uint8Array) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const e = c.KeyConditionExpression;
  const sk: (s: Uint8Array) => boolean =
    e === "#pk = :pk"
      ? () => true
      : e === "#pk = :pk AND #sk >= :start"
        ? (s) => cmp(s, v(":start")) >= 0
        : e === "#pk = :pk AND #sk < :end"
          ? (s) => cmp(s, v(":end")) < 0
          : e === "#pk = :pk AND #sk BETWEEN :start AND :end"
            ? (s) => cmp(s, v(":start")) >= 0 && cmp(s, v(":end")) <= 0
            : assert.fail(`unexpected ${e}`);
  return items
    .filter((i) => cmp(i.pk, v(":pk")) === 0 && sk(i.sk))
    .map((i) => i.sk)
    .sort(cmp);
}

test("keyCondition lists a user's posts in order, as DynamoDB would", () => {
  const alice = new Uuid("4c9d36e5-6b19-4e6a-828c-226ed667458a");
  const bob = new Uuid("00000000-0000-4000-8000-000000000001");
  const paths = [
    KeyPath.empty().push("user", alice),
    KeyPath.empty().push("user", alice).push("post", 100),
    KeyPath.empty().push("user", alice).push("post", 9),
    KeyPath.empty().push("user", alice).push("post", 42).push("comment", 1),
    KeyPath.empty().push("user", alice).push("post", 42),
    KeyPath.empty().push("user", alice).push("posts", 1),
    KeyPath.empty().push("user", alice).push("photo", 1),
    KeyPath.empty().push("user", alice).pushNamespace("post"),
    KeyPath.empty().push("user", bob).push("post", 1),
  ];
  const items = paths.map((p) => {
    const { group, sort } = p.splitGroup();
    return { pk: group, sk: sort };
  });
  const user = KeyPath.empty().push("user", alice);
  const text = (keys: Uint8Array[]) => keys.map((sk) => KeyPath.fromGroup(user.encode(), sk).toString());
  const u = `/user-${alice}`;

  const posts = keyCondition(user, KeyRange.children(KeyPath.empty(), "post"));
  assert.equal(posts.KeyConditionExpression, "#pk = :pk AND #sk BETWEEN :start AND :end");
  assert.deepEqual(posts.ExpressionAttributeNames, { "#pk": "pk", "#sk": "sk" });
  assert.deepEqual(text(query(items, posts)), [`${u}/post-9`, `${u}/post-42`, `${u}/post-42/comment-1`, `${u}/post-100`]);

  const from42 = keyCondition(user.splitGroup().group, KeyRange.between(KeyPath.empty(), "post", { included: 42 }, undefined));
  assert.deepEqual(text(query(items, from42)), [`${u}/post-42`, `${u}/post-42/comment-1`, `${u}/post-100`]);

  const all = keyCondition(user, KeyRange.subtree(KeyPath.empty()), { partitionKey: "PK", sortKey: "SK" });
  assert.equal(all.KeyConditionExpression, "#pk = :pk AND #sk >= :start");
  assert.deepEqual(all.ExpressionAttributeNames, { "#pk": "PK", "#sk": "SK" });
  assert.equal(query(items, all).length, 8);

  const before = keyCondition(user, KeyRange.betweenPaths(undefined, { excluded: KeyPath.parse("/post-42") }));
  assert.equal(before.KeyConditionExpression, "#pk = :pk AND #sk < :end");
  assert.deepEqual(text(query(items, before)), [u, `${u}/photo-1`, `${u}/post`, `${u}/post-9`]);

  assert.equal(keyCondition(user).KeyConditionExpression, "#pk = :pk");
  throwsKind(
    () => keyCondition(user, KeyRange.betweenPaths({ included: KeyPath.parse("/post-9") }, { excluded: KeyPath.parse("/post-42") })),
    "not-a-key-condition",
  );
  throwsKind(() => keyCondition(user, KeyRange.between(KeyPath.empty(), "post", { included: 5 }, { excluded: 5 })), "not-a-key-condition");
  throwsKind(() => keyCondition(KeyPath.parse("/user-1/post-2")), "not-a-group-key");
  throwsKind(() => keyCondition(KeyPath.parse("/user-1/post-2").encode()), "not-a-group-key");
});
