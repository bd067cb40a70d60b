// Lists and their pages against a model: random paths (UUIDs mixed with other ID types, so
// that byte ranges hold records a list must pass over), random prefixes, path bounds,
// directions and limits, through the client's scans and cursors over a stub table that keeps
// DynamoDB's order, Limit and LastEvaluatedKey. Every walk of pages must give exactly the
// paths the model selects (by component prefix and by the bounds' byte order), in order.

import assert from "node:assert/strict";
import test from "node:test";

import { KeyPath, Uuid, compareBytes } from "../dist/esm/index.js";
import { DynamoDbTable } from "../dist/esm/dynamodb-table.js";
import { entryKey, itemKey } from "../dist/esm/table-format.js";
import { StubTable } from "./stub.js";
import { Rng, genPath } from "./support.js";

/** An item envelope: type "a", no index keys, payload nil. */
const ENVELOPE = Uint8Array.of(0x01, 0x01, 0x61, 0x00, 0xc0);

function withIds(p: KeyPath): boolean {
  return p.components().every((c) => c.id !== undefined);
}

test("list pages select exactly the model's paths, in order, across cursors", async () => {
  const r = new Rng(0x11575);
  for (let round = 0; round < 12; round++) {
    const stub = new StubTable();
    const table = new DynamoDbTable(stub.client, "sortpath");
    const group = KeyPath.parse("/g-1");
    const rests: KeyPath[] = [];
    const add = (rest: KeyPath): void => {
      if (rests.some((x) => x.equals(rest))) return;
      rests.push(rest);
      const key = itemKey(group.join(rest));
      stub.put({
        pk: { B: key.pk },
        sk: { B: key.sk },
        ver: { N: String(rests.length) },
        val: { B: ENVELOPE },
      });
    };
    while (rests.length < 60) {
      const rest = genPath(r, { maxLen: 3 });
      if (rest.isEmpty() || !withIds(rest)) continue;
      add(rest);
      // A trap: a UUID whose raw bytes begin with the first ID's segment and 00 or 01, so
      // that its path falls inside that ID's byte range (FORMAT.md rule 6) and lists of the
      // ID's subtree must pass it over.
      const first = rest.components()[0]!;
      if (first.id instanceof Uuid || !r.chance(0.5)) continue;
      const enc = KeyPath.empty().push(first.namespace, first.id!).encode();
      const start = first.namespace.length + 1;
      const end = enc.indexOf(0x00, start);
      if (end < 0 || end - start > 15) continue;
      const raw = new Uint8Array(16);
      raw.set(enc.subarray(start, end));
      raw[end - start] = r.below(2);
      let trap = KeyPath.empty().push(first.namespace, new Uuid(raw));
      if (r.chance(0.5)) trap = trap.push("b", r.below(3));
      add(trap);
    }
    for (let q = 0; q < 25; q++) {
      // A prefix: a stored path cut short, sometimes ending in a namespace only.
      const base = r.pick(rests).components();
      const keep = r.below(base.length + 1);
      let prefixRest = KeyPath.empty();
      for (let i = 0; i < keep; i++) {
        const c = base[i]!;
        prefixRest =
          i === keep - 1 && r.chance(0.3)
            ? prefixRest.pushNamespace(c.namespace)
            : prefixRest.push(c.namespace, c.id!);
      }
      const prefix = group.join(prefixRest);
      const bounds: Record<string, string> = {};
      const boundBytes: [string, Uint8Array][] = [];
      for (const op of ["gt", "gte", "lt", "lte"]) {
        if (!r.chance(0.25)) continue;
        const b = r.pick(rests);
        bounds[op] = group.join(b).toString();
        boundBytes.push([op, b.encode()]);
      }
      const reverse = r.chance(0.5);
      const limit = 1 + r.below(4);
      const want = rests
        .filter((p) => p.startsWith(prefixRest))
        .filter((p) =>
          boundBytes.every(([op, b]) => {
            const c = compareBytes(p.encode(), b);
            return op === "gt" ? c > 0 : op === "gte" ? c >= 0 : op === "lt" ? c < 0 : c <= 0;
          }),
        )
        .sort((a, b) => compareBytes(a.encode(), b.encode()) * (reverse ? -1 : 1))
        .map((p) => group.join(p).toString());
      const got: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; ; pages++) {
        assert.ok(pages <= want.length + 1, "pages never end");
        const page = await table.list(prefix, { ...bounds, reverse, limit, cursor });
        assert.ok(page.items.length <= limit);
        got.push(...page.items.map((i) => i.key.toString()));
        cursor = page.cursor;
        if (cursor === undefined) break;
      }
      assert.deepEqual(
        got,
        want,
        `round ${round}: list ${prefix} ${JSON.stringify(bounds)} reverse ${reverse} limit ${limit}`,
      );
      const all = await table.list(prefix, { ...bounds, reverse });
      assert.deepEqual(
        all.items.map((i) => i.key.toString()),
        want,
      );
      assert.equal(all.cursor, undefined);
    }
  }
});

test("index query pages give the items whose header has the entry, in index order; stale entries are passed over", async () => {
  const r = new Rng(0x1dc5);
  for (let round = 0; round < 6; round++) {
    const stub = new StubTable();
    const config =
      '{"format":1,"indexes":[{"name":"by_u","type":"t","kind":"field","field":"u","group":"/us-0"}],"types":[]}';
    stub.put({
      pk: { B: Uint8Array.of(0, 3) },
      sk: { B: Uint8Array.of(0) },
      ver: { N: "1" },
      val: { B: new TextEncoder().encode(config) },
    });
    const table = new DynamoDbTable(stub.client, "sortpath");
    const values = [0, 1, 2, -5, "a", "b", "7", "x\u0000y", 2n ** 64n - 1n];
    const current = new Map<string, number | bigint | string | undefined>();
    for (let i = 0; i < 30; i++) {
      const key = `/g-${r.below(3)}/t-${r.below(10)}`;
      const u = r.chance(0.15) ? undefined : r.pick(values);
      await table.put(key, u === undefined ? { n: i } : { n: i, u });
      current.set(key, u);
    }
    // Stale entries: keys-only entries of values the items no longer have, and of absent items.
    for (let i = 0; i < 10; i++) {
      const item = KeyPath.parse(r.chance(0.8) ? r.pick([...current.keys()]) : `/g-9/t-${i}`);
      const u = r.pick(values);
      if (current.get(item.toString()) === u) continue;
      const indexPath = KeyPath.parse("/us-0").push(
        "u",
        typeof u === "string" && /^-?\d+$/.test(u) ? Number(u) : u,
      );
      const k = entryKey("by_u", indexPath, item);
      stub.put({ pk: { B: k.pk }, sk: { B: k.sk }, ver: { N: "1" }, val: { B: Uint8Array.of(1) } });
    }
    const idOf = (u: number | bigint | string): number | bigint | string =>
      typeof u === "string" && /^-?\d+$/.test(u) ? Number(u) : u;
    for (let q = 0; q < 12; q++) {
      const reverse = r.chance(0.5);
      const limit = 1 + r.below(4);
      const bound = r.chance(0.5) ? r.pick(values) : undefined;
      const op = r.pick(["gt", "gte", "lt", "lte"] as const);
      const boundPath =
        bound === undefined ? undefined : KeyPath.parse("/us-0").push("u", idOf(bound));
      const options = boundPath === undefined ? {} : { [op]: boundPath.toString() };
      const want = [...current.entries()]
        .filter((e): e is [string, number | bigint | string] => e[1] !== undefined)
        .map(([key, u]) => ({
          key,
          rest: KeyPath.empty().push("u", idOf(u)).encode(),
          path: KeyPath.parse(key).encode(),
        }))
        .filter((e) => {
          if (boundPath === undefined) return true;
          const c = compareBytes(e.rest, KeyPath.empty().push("u", idOf(bound!)).encode());
          return op === "gt" ? c > 0 : op === "gte" ? c >= 0 : op === "lt" ? c < 0 : c <= 0;
        })
        .sort(
          (a, b) =>
            (compareBytes(a.rest, b.rest) || compareBytes(a.path, b.path)) * (reverse ? -1 : 1),
        )
        .map((e) => e.key);
      const got: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; ; pages++) {
        assert.ok(pages <= want.length + 12, "pages never end");
        const page = await table.queryIndex("by_u", "/us-0", {
          ...options,
          reverse,
          limit,
          cursor,
        });
        got.push(...page.items.map((i) => i.key.toString()));
        cursor = page.cursor;
        if (cursor === undefined) break;
      }
      assert.deepEqual(
        got,
        want,
        `round ${round}: ${JSON.stringify(options)} reverse ${reverse} limit ${limit}`,
      );
    }
  }
});
