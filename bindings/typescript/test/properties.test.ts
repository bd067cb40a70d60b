// Property tests over seeded random paths full of traps: round trips, order, ranges, groups.

import assert from "node:assert/strict";
import test from "node:test";

import { KeyPath, KeyRange, type Bound, type Id } from "../dist/esm/index.js";
import {
  Rng,
  genId,
  genNamespace,
  genPath,
  hex,
  logicalCompare,
  sameComponents,
} from "./support.js";

const SEED = Number(process.env.SORTPATH_TEST_SEED ?? 0x6b657970);
const N = 20_000;

function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

test(`round trips: decode(encode(p)) == p, parse(print(p)) == p (seed ${SEED})`, () => {
  const r = new Rng(SEED);
  for (let i = 0; i < N; i++) {
    const p = genPath(r);
    const bytes = p.encode();
    const decoded = KeyPath.decode(bytes);
    assert.ok(sameComponents(decoded, p), `${p} decoded as ${decoded}`);
    assert.equal(hex(decoded.encode()), hex(bytes));
    const text = p.toString();
    const parsed = KeyPath.parse(text);
    assert.ok(sameComponents(parsed, p), `${text} parsed as ${parsed}`);
    assert.equal(parsed.toString(), text);
    assert.ok(parsed.equals(p) && decoded.equals(p));
  }
});

test(`order: compare(a, b) == byte order of encodings == the rules of FORMAT.md (seed ${SEED})`, () => {
  const r = new Rng(SEED + 1);
  let ruled = 0;
  let equal = 0;
  for (let i = 0; i < N * 2; i++) {
    const uuids = r.chance(0.3);
    const a = genPath(r, { uuids });
    // Often a close relative of a: a prefix, an extension, or a sibling.
    const b = r.chance(0.5)
      ? genPath(r, { uuids })
      : r.chance(0.3)
        ? (a.parent() ?? a)
        : a.length > 0 && a.components()[a.length - 1]!.id === undefined
          ? a
          : r.chance(0.5)
            ? a.push(genNamespace(r), genId(r, uuids))
            : (a.parent() ?? KeyPath.empty()).push(genNamespace(r), genId(r, uuids));
    const bytes = sign(Buffer.compare(Buffer.from(a.encode()), Buffer.from(b.encode())));
    assert.equal(KeyPath.compare(a, b), bytes, `${a} vs ${b}`);
    assert.equal(KeyPath.compare(b, a), 0 - bytes || 0);
    assert.equal(a.equals(b), bytes === 0);
    const logical = logicalCompare(a, b);
    if (logical !== undefined) {
      ruled++;
      assert.equal(bytes, logical, `${a} vs ${b}: bytes ${bytes}, rules ${logical}`);
    }
    if (bytes === 0) {
      equal++;
      assert.ok(sameComponents(a, b));
    }
  }
  assert.ok(ruled > N, `the rules decided only ${ruled} pairs`);
  assert.ok(equal > 100, `only ${equal} equal pairs`);
});

test("order: sorting by compare sorts the encodings and follows the rules", () => {
  const r = new Rng(SEED + 2);
  const paths = Array.from({ length: 3000 }, () => genPath(r, { uuids: false }));
  const sorted = [...paths].sort(KeyPath.compare);
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    assert.ok(Buffer.compare(Buffer.from(a.encode()), Buffer.from(b.encode())) <= 0);
    assert.ok(logicalCompare(a, b)! <= 0, `${a} before ${b}`);
  }
});

function idOf(p: KeyPath, index: number): Id | undefined {
  return p.components()[index]?.id;
}

function inBound<T>(c: number | undefined, bound: Bound<T> | undefined, lower: boolean): boolean {
  if (bound === undefined) return true;
  if (c === undefined) return false;
  const included = "included" in bound;
  return lower ? (included ? c >= 0 : c > 0) : included ? c <= 0 : c < 0;
}

test("ranges hold exactly the paths that logically match", () => {
  const r = new Rng(SEED + 3);
  let hits = 0;
  for (let round = 0; round < 300; round++) {
    // Without UUIDs mixed in (docs/FORMAT.md rule 6): byte ranges are then exact.
    const keys = Array.from({ length: 60 }, () => genPath(r, { uuids: false }));
    const base = keys[r.below(keys.length)]!;
    const prefix = base.parent() ?? base;
    const parent = prefix.length > 0 && idOf(prefix, prefix.length - 1) === undefined ? prefix.parent()! : prefix;
    const ns = r.chance(0.7) && base.length > parent.length ? base.components()[parent.length]!.namespace : genNamespace(r);
    const someId = (): Id => {
      const other = keys[r.below(keys.length)]!;
      const id = idOf(other, parent.length);
      return id !== undefined && r.chance(0.6) ? id : genId(r, false);
    };
    const bound = (): Bound<Id> | undefined =>
      r.chance(0.2) ? undefined : r.chance(0.5) ? { included: someId() } : { excluded: someId() };
    const lower = bound();
    const upper = bound();
    const idProbe = (id: Id) => KeyPath.empty().push("x", id);
    const cases: [KeyRange, (k: KeyPath) => boolean][] = [
      [KeyRange.subtree(prefix), (k) => k.startsWith(prefix)],
      [KeyRange.descendants(prefix), (k) => k.startsWith(prefix) && !k.equals(prefix)],
      [
        KeyRange.children(parent, ns),
        (k) => k.startsWith(parent) && k.length > parent.length && k.components()[parent.length]!.namespace === ns && idOf(k, parent.length) !== undefined,
      ],
      [
        KeyRange.between(parent, ns, lower, upper),
        (k) => {
          if (!(k.startsWith(parent) && k.length > parent.length)) return false;
          const c = k.components()[parent.length]!;
          if (c.namespace !== ns || c.id === undefined) return false;
          const id = idProbe(c.id);
          const lo = lower && logicalCompare(id, idProbe("included" in lower ? lower.included : lower.excluded));
          const hi = upper && logicalCompare(id, idProbe("included" in upper ? upper.included : upper.excluded));
          return inBound(lo, lower, true) && inBound(hi, upper, false);
        },
      ],
    ];
    const a = keys[r.below(keys.length)]!;
    const b = keys[r.below(keys.length)]!;
    const pathBound = (p: KeyPath): Bound<KeyPath> | undefined =>
      r.chance(0.2) ? undefined : r.chance(0.5) ? { included: p } : { excluded: p };
    const pl = pathBound(a);
    const pu = pathBound(b);
    cases.push([
      KeyRange.betweenPaths(pl, pu),
      (k) => {
        const lo = pl && logicalCompare(k, "included" in pl ? pl.included : pl.excluded);
        const hi = pu && logicalCompare(k, "included" in pu ? pu.included : pu.excluded);
        return inBound(lo, pl, true) && inBound(hi, pu, false);
      },
    ]);
    for (const [range, matches] of cases) {
      for (const k of [...keys, parent, prefix, base]) {
        const want = matches(k);
        if (want) hits++;
        assert.equal(range.contains(k.encode()), want, `${k} in [${hex(range.start)}, ${range.end && hex(range.end)})`);
      }
    }
  }
  assert.ok(hits > 1000, `only ${hits} keys matched`);
});

test("group split: fromGroup(splitGroup(p)) == p, the sort keys of a group sort as the paths", () => {
  const r = new Rng(SEED + 4);
  let split = 0;
  for (let i = 0; i < N; i++) {
    const p = genPath(r);
    const first = p.components()[0];
    if (first === undefined || first.id === undefined) {
      assert.throws(() => p.splitGroup(), { name: "KeyPathError", kind: "no-group-key" });
      continue;
    }
    split++;
    const { group, sort } = p.splitGroup();
    assert.equal(hex(group), hex(KeyPath.empty().push(first.namespace, first.id).encode()));
    const rest = KeyPath.decode(sort);
    assert.equal(rest.length, p.length - 1);
    assert.ok(KeyPath.fromGroup(group, sort).equals(p));
    // Same group: sort keys order as the whole paths.
    const q = KeyPath.empty().push(first.namespace, first.id).join(genPath(r, { maxLen: 3 }));
    const qs = q.splitGroup().sort;
    assert.equal(sign(Buffer.compare(Buffer.from(sort), Buffer.from(qs))), KeyPath.compare(p, q), `${p} vs ${q}`);
  }
  assert.ok(split > N / 2);
});
