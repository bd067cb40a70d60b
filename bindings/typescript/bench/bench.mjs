// Encode and decode of the example path, per second, against fdb-tuple on the same 8 values:
//
//   cd bindings/typescript && npm ci && npm run build && cd bench && npm ci && node bench.mjs
//
// Each case runs in rounds of a fixed number of operations after a warm-up; medians are
// reported. Results are consumed (summed lengths) so no work is optimized away.

import { pack, unpack } from "fdb-tuple";

import { KeyPath, Uuid } from "../dist/index.js";

const UUID_TEXT = "4c9d36e5-6b19-4e6a-828c-226ed667458a";
const EXAMPLE = `/user-${UUID_TEXT}/post-1234/comment-1678901234/react-42`;

const uuid = new Uuid(UUID_TEXT);
const uuidBuffer = Buffer.from(uuid.toBytes());
const values = ["user", { type: "uuid", value: uuidBuffer }, "post", 1234, "comment", 1678901234, "react", 42];

const sortpathBytes = KeyPath.parse(EXAMPLE).encode();
const tupleBytes = pack(values);

// Both sides read back what they wrote.
if (KeyPath.decode(sortpathBytes).toString() !== EXAMPLE) throw new Error("sortpath round trip");
const back = unpack(tupleBytes);
if (back.length !== 8 || back[3] !== 1234 || !Buffer.from(back[1].value).equals(uuidBuffer)) {
  throw new Error("fdb-tuple round trip");
}

const pairs = [
  [
    "encode",
    ["sortpath: push 4 components, encode", () =>
      KeyPath.empty().push("user", uuid).push("post", 1234).push("comment", 1678901234).push("react", 42).encode().length],
    ["fdb-tuple: pack the 8 values", () => pack(values).length],
  ],
  [
    "decode",
    ["sortpath: KeyPath.decode", () => KeyPath.decode(sortpathBytes).length],
    ["fdb-tuple: unpack", () => unpack(tupleBytes).length],
  ],
];

const OPS = 100_000;
const ROUNDS = Number(process.env.ROUNDS ?? 15);

function round(f) {
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < OPS; i++) sink += f();
  const ns = Number(process.hrtime.bigint() - t0);
  if (sink === 0) throw new Error("no work");
  return (OPS / ns) * 1e9;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => Math.round(n).toLocaleString("en-US").padStart(11);

// The machine may be shared: the two sides of a pair run in alternating rounds, so that both
// see the same load, and the ratio is taken round by round.
console.log(`node ${process.version}, ${OPS.toLocaleString("en-US")} operations a round, ${ROUNDS} rounds each, medians`);
console.log(`encodings: sortpath ${sortpathBytes.length} bytes, fdb-tuple ${tupleBytes.length} bytes`);
for (const [what, [nameA, a], [nameB, b]] of pairs) {
  for (let i = 0; i < 5; i++) {
    round(a);
    round(b);
  }
  const ra = [];
  const rb = [];
  const ratio = [];
  for (let i = 0; i < ROUNDS; i++) {
    let x, y;
    if (i % 2 === 0) {
      x = round(a);
      y = round(b);
    } else {
      y = round(b);
      x = round(a);
    }
    ra.push(x);
    rb.push(y);
    ratio.push(x / y);
  }
  console.log(`${what}:`);
  console.log(`  ${nameA.padEnd(38)} ${fmt(median(ra))} ops/s`);
  console.log(`  ${nameB.padEnd(38)} ${fmt(median(rb))} ops/s`);
  console.log(`  sortpath / fdb-tuple, median of rounds  ${median(ratio).toFixed(2).padStart(10)}x`);
}
