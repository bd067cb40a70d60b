// Encode and decode of the example path, per second, against fdb-tuple on the same 8 values:
//
//   cd bindings/typescript && npm ci && npm run build && cd bench && npm ci && node bench.mjs
//
// Each case runs in rounds of a fixed number of operations after a warm-up; the median round
// is reported. Results are consumed (summed lengths) so no work is optimized away.

import { pack, unpack } from "fdb-tuple";

import { KeyPath, Uuid } from "../dist/index.js";

const UUID_TEXT = "4c9d36e5-6b19-4e6a-828c-226ed667458a";
const EXAMPLE = `/user-${UUID_TEXT}/post-1234/comment-1678901234/react-42`;

const uuid = new Uuid(UUID_TEXT);
const uuidBuffer = Buffer.from(uuid.toBytes());
const values = ["user", { type: "uuid", value: uuidBuffer }, "post", 1234, "comment", 1678901234, "react", 42];

const keypathBytes = KeyPath.parse(EXAMPLE).encode();
const tupleBytes = pack(values);

// Both sides read back what they wrote.
if (KeyPath.decode(keypathBytes).toString() !== EXAMPLE) throw new Error("keypath round trip");
const back = unpack(tupleBytes);
if (back.length !== 8 || back[3] !== 1234 || !Buffer.from(back[1].value).equals(uuidBuffer)) {
  throw new Error("fdb-tuple round trip");
}

const cases = {
  "keypath encode (push 4 components, encode)": () =>
    KeyPath.empty().push("user", uuid).push("post", 1234).push("comment", 1678901234).push("react", 42).encode().length,
  "fdb-tuple encode (pack 8 values)": () => pack(values).length,
  "keypath decode (KeyPath.decode)": () => KeyPath.decode(keypathBytes).length,
  "fdb-tuple decode (unpack)": () => unpack(tupleBytes).length,
};

const OPS = 200_000;
const ROUNDS = Number(process.env.ROUNDS ?? 9);

function round(f) {
  let sink = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < OPS; i++) sink += f();
  const ns = Number(process.hrtime.bigint() - t0);
  if (sink === 0) throw new Error("no work");
  return (OPS / ns) * 1e9;
}

console.log(`node ${process.version}, ${OPS} operations a round, median of ${ROUNDS} rounds`);
console.log(`encodings: keypath ${keypathBytes.length} bytes, fdb-tuple ${tupleBytes.length} bytes`);
for (const [name, f] of Object.entries(cases)) {
  for (let i = 0; i < 3; i++) round(f); // warm-up
  const rates = Array.from({ length: ROUNDS }, () => round(f)).sort((a, b) => a - b);
  const median = rates[Math.floor(ROUNDS / 2)];
  console.log(`${name.padEnd(46)} ${Math.round(median).toLocaleString("en-US").padStart(12)} ops/s`);
}
