// Writes what this package computes for random trap-heavy paths, for the Rust side
// (crates/sortpath-cli/tests/bindings_typescript.rs) to compare with the `sortpath` binary:
//
//   node dist-test/cross-gen.js SEED COUNT OUTDIR
//
// OUTDIR/texts.txt       canonical text of each path (input of `sortpath sort`)
// OUTDIR/encode_in.txt   those texts, then mutated texts this package accepts (input of `sortpath encode`)
// OUTDIR/encode_out.txt  the encoding of each in hex
// OUTDIR/decode_in.txt   the encodings of the paths, then mutated encodings this package accepts
//                        (input of `sortpath decode`)
// OUTDIR/decode_out.txt  the canonical text of each
// OUTDIR/split_texts.txt text of each path that has a group key
// OUTDIR/split.txt       GROUP<TAB>SORT hex of those (input of `sortpath decode --split`)
// OUTDIR/ranges.txt      range specs (input of `sortpath range`)
// OUTDIR/ranges_out.txt  START<TAB>END hex of each (END "-" when unbounded)
// OUTDIR/sorted.txt      texts.txt sorted by KeyPath.compare
// OUTDIR/errors.txt      MODE<TAB>INPUT<TAB>MESSAGE: inputs this package rejects, with its message

import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { KeyPath, KeyPathError, KeyRange, type Bound, type Id } from "../dist/esm/index.js";
import { Rng, genId, genNamespace, genPath, hex } from "./support.js";

const [seedArg, countArg, outDir] = process.argv.slice(2);
if (seedArg === undefined || countArg === undefined || outDir === undefined) {
  throw new Error("usage: node cross-gen.js SEED COUNT OUTDIR");
}
const r = new Rng(Number(seedArg));
const count = Number(countArg);

function idText(namespace: string, id: Id): string {
  return KeyPath.empty().push(namespace, id).toString().slice(namespace.length + 2);
}

function rangeSpec(p: KeyPath): [string, KeyRange] {
  // A parent whose last component has an ID.
  const parent = p.length > 0 && p.components()[p.length - 1]!.id === undefined ? p.parent()! : p;
  switch (r.below(5)) {
    case 0:
      return [`subtree\t${p}`, KeyRange.subtree(p)];
    case 1:
      return [`descendants\t${p}`, KeyRange.descendants(p)];
    case 2: {
      const ns = genNamespace(r);
      return [`children\t${parent}\t${ns}`, KeyRange.children(parent, ns)];
    }
    case 3: {
      const ns = genNamespace(r);
      const bound = (): [string, Bound<Id> | undefined] => {
        if (r.chance(0.2)) return ["*", undefined];
        const id = genId(r);
        return r.chance(0.5) ? ["[" + idText(ns, id), { included: id }] : ["(" + idText(ns, id), { excluded: id }];
      };
      const [lt, lower] = bound();
      const [ut, upper] = bound();
      return [`between\t${parent}\t${ns}\t${lt}\t${ut}`, KeyRange.between(parent, ns, lower, upper)];
    }
    default: {
      const bound = (): [string, Bound<KeyPath> | undefined] => {
        if (r.chance(0.2)) return ["*", undefined];
        const q = r.chance(0.5) ? p : genPath(r);
        return r.chance(0.5) ? ["[" + q, { included: q }] : ["(" + q, { excluded: q }];
      };
      const [lt, lower] = bound();
      const [ut, upper] = bound();
      return [`paths\t${lt}\t${ut}`, KeyRange.betweenPaths(lower, upper)];
    }
  }
}

const paths: KeyPath[] = [];
for (let i = 0; i < count; i++) {
  // Now and then a copy of an earlier path, a prefix of one or an extension of one.
  const earlier = paths.length > 0 ? paths[r.below(paths.length)]! : undefined;
  let p: KeyPath;
  if (earlier !== undefined && r.chance(0.1)) p = earlier;
  else if (earlier !== undefined && r.chance(0.1)) p = earlier.parent() ?? earlier;
  else if (earlier !== undefined && r.chance(0.1) && (earlier.length === 0 || earlier.components()[earlier.length - 1]!.id !== undefined)) {
    p = earlier.push(genNamespace(r), genId(r));
  } else p = genPath(r, { maxLen: 5 });
  paths.push(p);
}

const texts = paths.map((p) => p.toString());
const lines = (xs: string[]) => xs.map((x) => x + "\n").join("");
writeFileSync(join(outDir, "texts.txt"), lines(texts));

const grouped = paths.filter((p) => p.length > 0 && p.components()[0]!.id !== undefined);
writeFileSync(join(outDir, "split_texts.txt"), lines(grouped.map((p) => p.toString())));
writeFileSync(
  join(outDir, "split.txt"),
  lines(grouped.map((p) => {
    const { group, sort } = p.splitGroup();
    return `${hex(group)}\t${hex(sort)}`;
  })),
);

const specs = paths.map(rangeSpec);
writeFileSync(join(outDir, "ranges.txt"), lines(specs.map(([s]) => s)));
writeFileSync(
  join(outDir, "ranges_out.txt"),
  lines(specs.map(([, range]) => `${hex(range.start)}\t${range.end === undefined ? "-" : hex(range.end)}`)),
);

writeFileSync(join(outDir, "sorted.txt"), lines([...paths].sort(KeyPath.compare).map((p) => p.toString())));

// Mutated texts and encodings: the accepted ones join the encode and decode batches (the
// binary must accept them too, with the same result); rejected ones, one line each, with
// messages holding printable ASCII and a few characters that Rust's `{:?}` prints as they are
// (it escapes some others by Unicode tables), are checked one by one for the same message.
const encodeIn = [...texts];
const encodeOut = paths.map((p) => hex(p.encode()));
const decodeIn = [...encodeOut];
const decodeOut = [...texts];
const errors: string[] = [];
const printable = (s: string) => /^[\x20-\x7e\u00e9\ufffd\u{1f600}]*$/u.test(s);
const pieces = ["%", "%z", "%é", "%41", "%2F", "-", "/", "~A", "~AB", "~AA", "é", "😀", "1", "0", "-0", "99999999999999999999", "/-", "//", "/é", "/a", "/a-", ""];
for (let tries = 0; tries < 40_000; tries++) {
  if (tries % 2 === 0) {
    const t = texts[r.below(texts.length)]!;
    const at = r.below(t.length + 1);
    const text = t.slice(0, at) + r.pick(pieces) + t.slice(at + r.below(3));
    if (text.includes("\n") || text.endsWith("\r")) continue;
    try {
      const p = KeyPath.parse(text);
      encodeIn.push(text);
      encodeOut.push(hex(p.encode()));
    } catch (e) {
      if (errors.length < 300 && e instanceof KeyPathError && printable(text) && printable(e.message)) {
        errors.push(`encode\t${text}\t${e.message}`);
      }
    }
  } else {
    const b = Array.from(paths[r.below(paths.length)]!.encode());
    const at = r.below(b.length + 1);
    const k = r.below(3);
    if (k === 0) b.splice(at, 1);
    else if (k === 1) b.splice(at, 0, r.u32() & 0xff);
    else if (b.length > 0) b[at % b.length] = r.u32() & 0xff;
    const bytes = Uint8Array.from(b);
    try {
      const p = KeyPath.decode(bytes);
      decodeIn.push(hex(bytes));
      decodeOut.push(p.toString());
    } catch (e) {
      if (errors.length < 300 && e instanceof KeyPathError && printable(e.message)) {
        errors.push(`decode\t${hex(bytes)}\t${e.message}`);
      }
    }
  }
}
writeFileSync(join(outDir, "encode_in.txt"), lines(encodeIn));
writeFileSync(join(outDir, "encode_out.txt"), lines(encodeOut));
writeFileSync(join(outDir, "decode_in.txt"), lines(decodeIn));
writeFileSync(join(outDir, "decode_out.txt"), lines(decodeOut));
writeFileSync(join(outDir, "errors.txt"), lines(errors));
