// The DynamoDB table client against docs/DYNAMODB_LAYOUT.md: every `<!-- check: NAME -->`
// example the client produces (keys, values, headers, shapes, cursors, the configuration's
// JSON, and the request bodies of writes and queries, captured by a stub in front of the SDK),
// read from the repository at test time.

import assert from "node:assert/strict";
import test from "node:test";

import { KeyPath } from "../dist/esm/index.js";
import { DynamoDbTable, TableError, type Value, encodeValue } from "../dist/esm/dynamodb-table.js";
import {
  CONFIG_KEY,
  configJson,
  cursorBytes,
  cursorText,
  encodeHeader,
  entryKey,
  fingerprint,
  itemKey,
  parseConfig,
  rootSortKey,
  toNative,
} from "../dist/esm/table-format.js";
import { StubTable } from "./stub.js";
import { hex, readRepoFile, unhex } from "./support.js";

const DOC = readRepoFile("docs/DYNAMODB_LAYOUT.md");

/** The block after each `<!-- check: NAME -->` marker. */
function checks(): Map<string, string> {
  const out = new Map<string, string>();
  const re = /<!-- check: ([A-Za-z0-9_.]+) -->\s*```[a-z]*\n([\s\S]*?)```/g;
  for (let m = re.exec(DOC); m !== null; m = re.exec(DOC)) out.set(m[1]!, m[2]!);
  return out;
}

const CHECKS = checks();

function block(name: string): string {
  const b = CHECKS.get(name);
  assert.ok(b !== undefined, `docs/DYNAMODB_LAYOUT.md has no check ${name}`);
  return b;
}

function bytes(name: string): string {
  return block(name).replace(/\s+/g, "");
}

const p = (s: string): KeyPath => KeyPath.parse(s);
const TICKET = { board: 1, title: "Fix", updated: 20 };

/** The examples this suite checks, and those the client does not produce (and why). */
const CHECKED = [
  "ticket.pk",
  "ticket.sk",
  "score.pk",
  "score.sk",
  "customer.root.sk",
  "org.root.sk",
  "entry.pk",
  "entry.sk",
  "entry.value",
  "projected.sk",
  "projected.value",
  "counter.pk",
  "counter.sk",
  "config.pk",
  "config.sk",
  "config.json",
  "config_roots.json",
  "config_counters.json",
  "ticket.value",
  "score.value",
  "native.hdr",
  "native.shape",
  "gsi.hdr",
  "gsi_put.request",
  "put_new.request",
  "put_moved.request",
  "put_same.request",
  "delete.request",
  "counter_put.request",
  "index_query.request",
  "gsi_query.request",
  "cursor.text",
  "cursor.bytes",
];
const NOT_PRODUCED: Record<string, string> = {
  "config.request":
    "the client declares no indexes: it creates a configuration record only listing a type",
  "score_new.request": "a type indexed by a program is refused",
  "list.request": "Query::children: the client lists by prefix and path bounds",
};

test("every example of the doc is checked here or named as not produced by the client", () => {
  const names = [...CHECKS.keys()].filter((n) => n !== "NAME").sort();
  assert.deepEqual(names, [...CHECKED, ...Object.keys(NOT_PRODUCED)].sort());
});

test("item, root and entry keys", () => {
  const ticket = itemKey(p("/board-1/ticket-7"));
  assert.equal(hex(ticket.pk), bytes("ticket.pk"));
  assert.equal(hex(ticket.sk), bytes("ticket.sk"));
  const score = itemKey(p("/player-3"));
  assert.equal(hex(score.pk), bytes("score.pk"));
  assert.equal(hex(score.sk), bytes("score.sk"));
  assert.equal(hex(itemKey(p("/customer-7"), "last").sk), bytes("customer.root.sk"));
  assert.equal(hex(rootSortKey({ before: "user" })), bytes("org.root.sk"));
  const entry = entryKey("by_updated", p("/board-1/updated-20"), p("/board-1/ticket-7"));
  assert.equal(hex(entry.pk), bytes("entry.pk"));
  assert.equal(hex(entry.sk), bytes("entry.sk"));
  const projected = entryKey("by_points", p("/scores-0/points--40"), p("/player-3"));
  assert.equal(hex(projected.sk), bytes("projected.sk"));
  assert.equal(hex(CONFIG_KEY.pk), bytes("config.pk"));
  assert.equal(hex(CONFIG_KEY.sk), bytes("config.sk"));
});

test("envelopes, payloads and the native form", () => {
  const header = encodeHeader("ticket", [{ name: "by_updated", path: p("/board-1/updated-20") }]);
  const payload = encodeValue(TICKET);
  assert.equal(hex(header) + hex(payload), bytes("ticket.value"));
  assert.equal(hex(header), bytes("native.hdr"));
  const native = toNative(payload);
  assert.ok(native !== undefined);
  assert.equal(hex(native.shape), bytes("native.shape"));
  assert.deepEqual(native.item, {
    M: { board: { N: "1" }, title: { S: "Fix" }, updated: { N: "20" } },
  });
  const score = encodeHeader("score", [{ name: "by_points", path: p("/scores-0/points--40") }]);
  assert.equal(hex(score) + hex(encodeValue([3, -40])), bytes("score.value"));
  const projected = Uint8Array.of(
    0x02,
    5,
    ...new TextEncoder().encode("score"),
    ...encodeValue([3, -40]),
  );
  assert.equal(hex(projected), bytes("projected.value"));
  assert.equal(bytes("entry.value"), "01");
});

test("the configuration's JSON reads and writes back byte for byte", () => {
  for (const name of ["config.json", "config_roots.json", "config_counters.json"]) {
    const text = block(name).trim();
    const config = parseConfig(new TextEncoder().encode(text));
    assert.equal(new TextDecoder().decode(configJson(config)), text, name);
  }
  const roots = parseConfig(new TextEncoder().encode(block("config_roots.json").trim()));
  assert.deepEqual(roots.roots.get("customer"), "last");
  assert.deepEqual(roots.roots.get("org"), { before: "user" });
  assert.equal(
    parseConfig(new TextEncoder().encode(block("config_counters.json").trim())).groupVersions,
    true,
  );
});

test("cursors: bytes and text", () => {
  const fp = fingerprint(undefined, false, p("/board-1").encode(), Uint8Array.of(0), undefined);
  const position = p("/ticket-7").encode();
  assert.equal(hex(cursorBytes(fp, position)), bytes("cursor.bytes"));
  assert.equal(cursorText(fp, position), block("cursor.text").trim());
});

function docRequest(name: string): { operation: string; body: unknown } {
  return JSON.parse(block(name)) as { operation: string; body: unknown };
}

function withoutToken(body: Record<string, unknown>): Record<string, unknown> {
  const { ClientRequestToken: _token, ...rest } = body;
  return rest;
}

function configRecord(
  json: string,
  version: number,
): Record<string, { B: Uint8Array } | { N: string }> {
  return {
    pk: { B: CONFIG_KEY.pk },
    sk: { B: CONFIG_KEY.sk },
    val: { B: new TextEncoder().encode(json) },
    ver: { N: String(version) },
  };
}

test("writes send the documented requests: put_new, put_moved, put_same, delete", async () => {
  const stub = new StubTable();
  stub.put(configRecord(block("config.json").trim(), 1));
  const table = new DynamoDbTable(stub.client, "sortpath");
  // Described once, as the Rust backend describes the table when it opens it.
  await table.loadIndexes();
  stub.sent.length = 0;
  const last = (): { operation: string; body: unknown } => {
    const s = stub.sent[stub.sent.length - 1]!;
    return { operation: s.operation, body: withoutToken(s.body) };
  };

  assert.equal(await table.put("/board-1/ticket-7", TICKET, { restore: 5 }), 5n);
  // The client's first write reads the configuration once (does the store keep group
  // counters?), as a Rust store's first write does.
  assert.deepEqual(stub.operations(), ["GetItem", "BatchGetItem", "TransactWriteItems"]);
  assert.deepEqual(last(), docRequest("put_new.request"));
  const read = stub.sent[1]!.body as {
    RequestItems: Record<string, { ConsistentRead: boolean; Keys: unknown[] }>;
  };
  assert.equal(read.RequestItems["sortpath"]!.ConsistentRead, true);
  assert.equal(read.RequestItems["sortpath"]!.Keys.length, 2, "the item and the configuration");

  assert.equal(await table.put("/board-1/ticket-7", { ...TICKET, updated: 30 }), 6n);
  assert.deepEqual(last(), docRequest("put_moved.request"));

  stub.sent.length = 0;
  assert.equal(
    await table.put("/board-1/ticket-7", { ...TICKET, title: "Fixed", updated: 30 }),
    7n,
  );
  assert.deepEqual(stub.operations(), ["BatchGetItem", "PutItem"]);
  assert.deepEqual(last(), docRequest("put_same.request"));

  stub.sent.length = 0;
  assert.equal(await table.delete("/board-1/ticket-7"), true);
  assert.deepEqual(stub.operations(), ["BatchGetItem", "TransactWriteItems"]);
  assert.deepEqual(last(), docRequest("delete.request"));
  const deleteRead = stub.sent[0]!.body as { RequestItems: Record<string, { Keys: unknown[] }> };
  assert.equal(deleteRead.RequestItems["sortpath"]!.Keys.length, 1, "a delete reads the item alone");

  stub.sent.length = 0;
  assert.equal(await table.delete("/board-1/ticket-7"), false);
  assert.deepEqual(stub.operations(), ["BatchGetItem"]);
});

test("an index query sends the documented Query", async () => {
  const stub = new StubTable();
  stub.put(configRecord(block("config.json").trim(), 1));
  const table = new DynamoDbTable(stub.client, "sortpath");
  await table.loadIndexes();
  stub.sent.length = 0;
  const page = await table.queryIndex("by_updated", "/board-1", { reverse: true, limit: 2 });
  assert.deepEqual(page.items, []);
  assert.deepEqual(stub.operations(), ["GetItem", "Query"]);
  assert.deepEqual(
    { operation: "Query", body: stub.sent[1]!.body },
    docRequest("index_query.request"),
  );
  // The index was checked once: the next query sends no GetItem.
  stub.sent.length = 0;
  await table.queryIndex("by_updated", "/board-1", { reverse: true, limit: 2 });
  assert.deepEqual(stub.operations(), ["Query"]);
});

test("a list's first page gives the documented cursor, and the cursor resumes it", async () => {
  const stub = new StubTable();
  const table = new DynamoDbTable(stub.client, "sortpath");
  await table.put("/board-1/ticket-7", { title: "a" });
  await table.put("/board-1/ticket-8", { title: "b" });
  stub.sent.length = 0;
  const first = await table.list("/board-1", { limit: 1 });
  assert.deepEqual(stub.operations(), ["Query"]);
  assert.equal((stub.sent[0]!.body as { Limit: number }).Limit, 2, "a scan of limit + 1");
  assert.deepEqual(
    first.items.map((i) => i.key.toString()),
    ["/board-1/ticket-7"],
  );
  assert.equal(first.cursor, block("cursor.text").trim());
  const second = await table.list("/board-1", { limit: 1, cursor: first.cursor });
  assert.deepEqual(
    second.items.map((i) => [i.key.toString(), i.value]),
    [["/board-1/ticket-8", { title: "b" }]],
  );
  assert.equal(second.cursor, undefined);
  // A range no key can be in sends nothing.
  stub.sent.length = 0;
  const none = await table.list("/board-1", { gt: "/board-1/ticket-7", lt: "/board-1/ticket-7" });
  assert.deepEqual([none.items, none.cursor, stub.operations()], [[], undefined, []]);
  const one = await table.list("/board-1", { gte: "/board-1/ticket-8", lte: "/board-1/ticket-8" });
  assert.deepEqual(
    one.items.map((i) => i.key.toString()),
    ["/board-1/ticket-8"],
  );
  await assert.rejects(
    table.list("/board-1", { limit: 1, reverse: true, cursor: first.cursor }),
    (e: unknown) => {
      return e instanceof TableError && e.kind === "invalid" && /different query/.test(e.message);
    },
  );
});

test("writes of a type indexed by a program are refused before anything is written", async () => {
  const stub = new StubTable();
  stub.put(
    configRecord(
      '{"format":1,"indexes":[{"name":"by_points","type":"score","kind":"program"}],"types":["score"]}',
      3,
    ),
  );
  const table = new DynamoDbTable(stub.client, "sortpath");
  // A "player" is not indexed by a program: written; a "score" is: refused.
  await table.put("/player-3", { points: 1 });
  stub.sent.length = 0;
  await assert.rejects(
    table.put("/board-1/score-3", [3, -40]),
    (e: unknown) => e instanceof TableError && e.kind === "unsupported",
  );
  assert.deepEqual(stub.operations(), ["BatchGetItem"]);
});

test("a store with group counters: the documented counter_put request, and a delete", async () => {
  const stub = new StubTable();
  stub.put(configRecord(block("config_counters.json").trim(), 1));
  const table = new DynamoDbTable(stub.client, "sortpath");
  assert.equal(await table.put("/board-1/ticket-7", { title: "Fix" }), 1n);
  assert.deepEqual(stub.operations(), ["GetItem", "BatchGetItem", "TransactWriteItems"]);
  const read = stub.sent[1]!.body as {
    RequestItems: Record<string, { Keys: { pk: { B: string } }[] }>;
  };
  assert.deepEqual(
    read.RequestItems["sortpath"]!.Keys.map((k) => Buffer.from(k.pk.B, "base64").toString("hex")),
    [bytes("counter.pk"), bytes("ticket.pk"), "0003"],
    "the counter, the item, the configuration",
  );
  const sorts = read.RequestItems["sortpath"]!.Keys.map((k) =>
    Buffer.from((k as unknown as { sk: { B: string } }).sk.B, "base64").toString("hex"),
  );
  assert.equal(sorts[0], bytes("counter.sk"));
  const last = stub.sent[stub.sent.length - 1]!;
  assert.deepEqual(
    { operation: last.operation, body: withoutToken(last.body) },
    docRequest("counter_put.request"),
  );
  // The next write of the group: the counter's next value is the item's version.
  assert.equal(await table.put("/board-1/ticket-8", { title: "b" }), 2n);
  stub.sent.length = 0;
  assert.equal(await table.delete("/board-1/ticket-7"), true);
  assert.deepEqual(stub.operations(), ["BatchGetItem", "TransactWriteItems"]);
  const del = stub.sent[1]!.body as {
    TransactItems: Record<
      string,
      { ConditionExpression?: string; Item?: { ver: { N: string } } }
    >[];
  };
  assert.deepEqual(Object.keys(del.TransactItems[0]!), ["Delete"]);
  assert.equal(del.TransactItems[1]!["Put"]!.Item!.ver.N, "3");
  assert.equal(del.TransactItems[1]!["Put"]!.ConditionExpression, "ver = :kp_ver");
});

test("conditions: if absent, if version, and a concurrent write retried", async () => {
  const stub = new StubTable();
  stub.put(configRecord(block("config.json").trim(), 1));
  const table = new DynamoDbTable(stub.client, "sortpath");
  const v = await table.put("/board-1/ticket-7", TICKET, { ifAbsent: true });
  assert.ok(v >= 1n && v < 1n << 52n);
  await assert.rejects(
    table.put("/board-1/ticket-7", TICKET, { ifAbsent: true }),
    (e: unknown) => e instanceof TableError && e.kind === "condition_failed",
  );
  await assert.rejects(
    table.put("/board-1/ticket-7", TICKET, { ifVersion: v + 1n }),
    (e: unknown) => e instanceof TableError && e.kind === "condition_failed",
  );
  await assert.rejects(
    table.put("/board-1/ticket-8", TICKET, { ifVersion: 1 }),
    (e: unknown) => e instanceof TableError && e.kind === "condition_failed",
  );
  // A write that loses to a concurrent one reads again and retries.
  const lost = Object.assign(new Error("The conditional request failed"), {
    name: "ConditionalCheckFailedException",
  });
  stub.failures.push(lost);
  stub.sent.length = 0;
  assert.equal(await table.put("/board-1/ticket-7", { ...TICKET, title: "x" }), v + 1n);
  assert.deepEqual(stub.operations(), ["BatchGetItem", "PutItem", "BatchGetItem", "PutItem"]);
  // update: read, function, write at the version read.
  stub.sent.length = 0;
  const u = await table.update("/board-1/ticket-7", (value) => ({
    ...(value as object),
    title: "y",
  }));
  assert.equal(u, v + 2n);
  assert.deepEqual(stub.operations(), ["BatchGetItem", "BatchGetItem", "PutItem"]);
  assert.deepEqual((await table.get("/board-1/ticket-7"))?.value, { ...TICKET, title: "y" });
  await assert.rejects(
    table.update("/board-1/ticket-9", (x) => x),
    (e: unknown) => e instanceof TableError && e.kind === "not_found",
  );
});

test("a write applied but answered as a failed condition (its answer lost, sent again) is done once", async () => {
  const stub = new StubTable();
  stub.put(
    configRecord(
      '{"format":1,"indexes":[{"name":"by_u","type":"ticket","kind":"field","field":"u","group":"/board-{board}"}],"types":[]}',
      1,
    ),
  );
  const table = new DynamoDbTable(stub.client, "sortpath");
  // One PutItem (no index key): an update adding 1 adds 1.
  await table.put("/board-1/note-1", { n: 0 });
  stub.lostAnswers = 1;
  await table.update("/board-1/note-1", (v) => ({ n: (v as { n: number }).n + 1 }));
  assert.equal(stub.lostAnswers, 0);
  assert.deepEqual((await table.get("/board-1/note-1"))?.value, { n: 1 });
  // An only-if-absent put that wrote its item is not refused.
  stub.lostAnswers = 1;
  await table.put("/board-1/note-2", { n: 5 }, { ifAbsent: true });
  assert.deepEqual((await table.get("/board-1/note-2"))?.value, { n: 5 });
  // A transaction (the item and its index entry): applied once, the entry moved once.
  await table.put("/board-1/ticket-7", { board: 1, u: 1 });
  stub.lostAnswers = 1;
  stub.sent.length = 0;
  await table.update("/board-1/ticket-7", (v) => ({ board: 1, u: (v as { u: number }).u + 1 }));
  assert.deepEqual(stub.operations(), ["BatchGetItem", "BatchGetItem", "TransactWriteItems"]);
  assert.deepEqual((await table.get("/board-1/ticket-7"))?.value, { board: 1, u: 2 });
  const page = await table.queryIndex("by_u", "/board-1");
  assert.deepEqual(
    page.items.map((i) => i.value),
    [{ board: 1, u: 2 }],
  );
  // The same failure without a retry is another writer's equal record (two increments from
  // the same version): read again and apply the function again.
  stub.lostAnswers = 1;
  stub.lostAnswerAttempts = 1;
  await table.update("/board-1/note-2", (v) => ({ n: (v as { n: number }).n + 1 }));
  assert.deepEqual((await table.get("/board-1/note-2"))?.value, { n: 7 });
  stub.lostAnswers = 1;
  await table.update("/board-1/ticket-7", (v) => ({ board: 1, u: (v as { u: number }).u + 1 }));
  assert.deepEqual((await table.get("/board-1/ticket-7"))?.value, { board: 1, u: 4 });
  // A condition that fails against another record still reads again and retries.
  const lost = Object.assign(new Error("The conditional request failed"), {
    name: "ConditionalCheckFailedException",
    Item: stub.records.values().next().value,
    $metadata: { attempts: 2 },
  });
  stub.failures.push(lost);
  await table.update("/board-1/note-1", (v) => ({ n: (v as { n: number }).n + 1 }));
  assert.deepEqual((await table.get("/board-1/note-1"))?.value, { n: 2 });
});

test("field index values: integers and ID text, refusals", async () => {
  const stub = new StubTable();
  stub.put(
    configRecord(
      '{"format":1,"indexes":[{"name":"by_u","type":"ticket","kind":"field","field":"u","group":"/board-{board}"}],"types":[]}',
      1,
    ),
  );
  const table = new DynamoDbTable(stub.client, "sortpath");
  const entryOf = async (value: Record<string, unknown>): Promise<string[]> => {
    stub.sent.length = 0;
    await table.put("/board-1/ticket-7", value as never);
    const got = await table.get("/board-1/ticket-7");
    assert.ok(got !== undefined);
    return [...stub.records.values()]
      .filter((r) => r["pk"]!.B![0] === 0 && r["pk"]!.B![1] === 2)
      .map((r) => hex(r["sk"]!.B!));
  };
  const expect = (index: KeyPath | string): string =>
    hex(entryKey("by_u", typeof index === "string" ? p(index) : index, p("/board-1/ticket-7")).sk);
  assert.deepEqual(await entryOf({ board: 1, u: 7 }), [expect("/board-1/u-7")]);
  assert.deepEqual(await entryOf({ board: "1", u: "7" }), [expect("/board-1/u-7")]);
  assert.deepEqual(await entryOf({ board: 1, u: "007" }), [
    expect(KeyPath.empty().push("board", 1).push("u", "007")),
  ]);
  assert.deepEqual(await entryOf({ board: 1, u: "-3" }), [expect("/board-1/u--3")]);
  assert.deepEqual(await entryOf({ board: 1, u: null }), []);
  assert.deepEqual(await entryOf({ board: 1 }), []);
  for (const bad of [true, [1], { a: 1 }, 1.5, new Uint8Array(1)]) {
    await assert.rejects(
      table.put("/board-1/ticket-7", { board: 1, u: bad } as never),
      (e: unknown) => e instanceof TableError && e.kind === "invalid",
      String(bad),
    );
  }
});

test("indexes kept by a GSI: the documented header, put and query", async () => {
  const stub = new StubTable();
  stub.description = {
    KeySchema: [
      { AttributeName: "pk", KeyType: "HASH" },
      { AttributeName: "sk", KeyType: "RANGE" },
    ],
    AttributeDefinitions: ["pk", "sk", "gp1", "gs1"].map((a) => ({
      AttributeName: a,
      AttributeType: "B",
    })),
    GlobalSecondaryIndexes: [
      {
        IndexName: "kp_by_updated",
        KeySchema: [
          { AttributeName: "gp1", KeyType: "HASH" },
          { AttributeName: "gs1", KeyType: "RANGE" },
        ],
        Projection: { ProjectionType: "ALL" },
      },
      {
        IndexName: "app_index",
        KeySchema: [{ AttributeName: "x", KeyType: "HASH" }],
        Projection: { ProjectionType: "ALL" },
      },
    ],
  };
  const config = JSON.parse(block("config.json")) as { types: string[] };
  config.types = ["ticket"];
  stub.put(configRecord(JSON.stringify(config), 2));
  const table = new DynamoDbTable(stub.client, "sortpath");
  assert.deepEqual(await table.loadIndexes(), [
    { name: "by_updated", pk: "gp1", sk: "gs1", keysOnly: false },
  ]);
  assert.equal(
    hex(
      encodeHeader(
        "ticket",
        [{ name: "by_updated", path: p("/board-1/updated-20") }],
        new Set(["by_updated"]),
      ),
    ),
    bytes("gsi.hdr"),
  );
  stub.sent.length = 0;
  assert.equal(await table.put("/board-1/ticket-7", TICKET, { restore: 5 }), 5n);
  assert.deepEqual(stub.operations(), ["GetItem", "BatchGetItem", "PutItem"]);
  const put = stub.sent[2]!;
  assert.deepEqual({ operation: put.operation, body: put.body }, docRequest("gsi_put.request"));
  // Read back: the header's elided path is restored from gp1/gs1.
  const item = await table.get("/board-1/ticket-7");
  assert.deepEqual(item?.value, TICKET);
  stub.sent.length = 0;
  await table.queryIndex("by_updated", "/board-1", { reverse: true, limit: 2 });
  assert.deepEqual(stub.operations(), ["GetItem", "Query"]);
  assert.deepEqual(
    { operation: "Query", body: stub.sent[1]!.body },
    docRequest("gsi_query.request"),
  );
  await assert.rejects(
    table.queryIndex("by_updated", "/board-1", { consistentRead: true }),
    (e: unknown) => e instanceof TableError && e.kind === "invalid",
  );
  // A header whose path is elided for an index the table keeps no GSI for is refused.
  const other = new StubTable();
  other.put({
    ...stub.records.get(
      [...stub.records.keys()].find((k) => k.startsWith(hex(itemKey(p("/board-1/ticket-7")).pk)))!,
    )!,
  });
  await assert.rejects(
    new DynamoDbTable(other.client, "sortpath").get("/board-1/ticket-7"),
    (e: unknown) =>
      e instanceof TableError && e.kind === "foreign" && /keeps no GSI/.test(e.message),
  );
});

test("a table without a configuration record: created with the first item if the table is empty", async () => {
  const stub = new StubTable();
  const table = new DynamoDbTable(stub.client, "sortpath");
  await table.loadIndexes();
  stub.sent.length = 0;
  await table.put("/board-1/ticket-7", TICKET);
  assert.deepEqual(stub.operations(), ["GetItem", "Scan", "BatchGetItem", "TransactWriteItems"]);
  const write = stub.sent[3]!.body as {
    TransactItems: {
      Put: { ConditionExpression: string; Item: { val?: { B: string }; ver: { N: string } } };
    }[];
  };
  const config = write.TransactItems[1]!.Put;
  assert.equal(config.ConditionExpression, "attribute_not_exists(pk)");
  assert.equal(config.Item.ver.N, "1");
  assert.equal(
    Buffer.from(config.Item.val!.B, "base64").toString(),
    '{"format":1,"indexes":[],"types":["ticket"]}',
  );
  // A table holding items but no record (lost, or an earlier release wrote none): a write is
  // refused, writing nothing (the Rust store's ConfigError::Unrecorded); the explicit
  // take-over records a configuration whose types are unknown, and writes then go through.
  const other = new StubTable();
  other.put({
    pk: { B: itemKey(p("/a-1")).pk },
    sk: { B: Uint8Array.of(0) },
    ver: { N: "1" },
    val: { B: Uint8Array.of(1, 1, 0x61, 0, 0xc0) },
  });
  const before = [...other.records.entries()];
  const t2 = new DynamoDbTable(other.client, "sortpath");
  await t2.loadIndexes();
  other.sent.length = 0;
  const unrecorded = (e: unknown): boolean =>
    e instanceof TableError &&
    e.kind === "unrecorded" &&
    e.message.includes("holds items but no configuration record") &&
    e.message.includes("createConfigOverItems") &&
    e.message.includes("/board-1/ticket-7");
  await assert.rejects(t2.put("/board-1/ticket-7", TICKET), unrecorded);
  assert.deepEqual(other.operations(), ["GetItem", "Scan", "BatchGetItem"]);
  assert.deepEqual([...other.records.entries()], before);
  assert.equal(await t2.createConfigOverItems(), true);
  const taken = other.records.get(hex(CONFIG_KEY.pk) + "|" + hex(CONFIG_KEY.sk));
  assert.ok(taken !== undefined, "the take-over writes the record");
  assert.equal(
    Buffer.from(taken["val"]!.B as Uint8Array).toString(),
    '{"format":1,"indexes":[]}',
  );
  // Another client recorded one first: its conditional PutItem fails, nothing changes.
  other.failures.push(
    Object.assign(new Error("The conditional request failed"), {
      name: "ConditionalCheckFailedException",
    }),
  );
  assert.equal(await t2.createConfigOverItems(), false);
  assert.equal(other.records.get(hex(CONFIG_KEY.pk) + "|" + hex(CONFIG_KEY.sk)), taken);
  await t2.put("/board-1/ticket-7", TICKET);
  // On an empty table the take-over is the record the first write would create.
  const empty = new StubTable();
  const t3 = new DynamoDbTable(empty.client, "sortpath");
  assert.equal(await t3.createConfigOverItems({ groupVersions: true }), true);
  assert.equal(
    Buffer.from(
      empty.records.get(hex(CONFIG_KEY.pk) + "|" + hex(CONFIG_KEY.sk))!["val"]!.B as Uint8Array,
    ).toString(),
    '{"format":1,"indexes":[],"group_versions":true,"types":[]}',
  );
});

test("lists from or up to a placed root item: the root's sort key bounds the Query", async () => {
  const stub = new StubTable();
  stub.put(configRecord(block("config_roots.json").trim(), 1));
  const table = new DynamoDbTable(stub.client, "sortpath");
  await table.list("/customer-7", { fromRoot: true, reverse: true, limit: 2 });
  await table.list("/customer-7", { toRoot: true });
  await table.list("/org-1", { fromRoot: true });
  assert.deepEqual(
    stub.operations(),
    ["GetItem", "Query", "Query", "Query"],
    "the configuration read once",
  );
  const bodies = stub.sent.slice(1).map(
    (s) =>
      s.body as {
        KeyConditionExpression: string;
        ExpressionAttributeValues: Record<string, { B: string }>;
      },
  );
  const b64 = (h: string): string => Buffer.from(h.replace(/\s+/g, ""), "hex").toString("base64");
  assert.equal(bodies[0]!.KeyConditionExpression, "pk = :g AND sk >= :lo");
  assert.equal(bodies[0]!.ExpressionAttributeValues[":lo"]!.B, b64(bytes("customer.root.sk")));
  // Every item sort key is at least 00: the range is [00, FF 00).
  assert.equal(bodies[1]!.KeyConditionExpression, "pk = :g AND sk BETWEEN :lo AND :hi");
  assert.equal(bodies[1]!.ExpressionAttributeValues[":lo"]!.B, b64("00"));
  assert.equal(
    bodies[1]!.ExpressionAttributeValues[":hi"]!.B,
    b64(bytes("customer.root.sk") + "00"),
  );
  assert.equal(bodies[2]!.ExpressionAttributeValues[":lo"]!.B, b64(bytes("org.root.sk")));
  await assert.rejects(
    table.queryIndex("by_x", "/g-1", { fromRoot: true }),
    (e: unknown) => e instanceof TableError && e.kind === "invalid",
  );
});

test("an index the configuration does not declare is refused, not answered as empty", async () => {
  const stub = new StubTable();
  stub.put(
    configRecord(
      '{"format":1,"indexes":[{"name":"by_u","type":"ticket","kind":"field","field":"u","group":"/board-{board}"}],"types":[]}',
      1,
    ),
  );
  const table = new DynamoDbTable(stub.client, "sortpath");
  await table.put("/board-1/ticket-7", { board: 1, u: 7 });
  stub.sent.length = 0;
  await assert.rejects(
    table.queryIndex("by_x", "/board-1"),
    (e: unknown) =>
      e instanceof TableError &&
      e.kind === "invalid" &&
      e.message ===
        'unknown index "by_x": expected an index the table\'s configuration declares, one of "by_u"',
  );
  assert.deepEqual(
    stub.sent.map((s) => s.operation),
    ["GetItem"],
    "only the configuration is read",
  );
  const page = await table.queryIndex("by_u", "/board-1");
  assert.deepEqual(
    page.items.map((i) => i.key.toString()),
    ["/board-1/ticket-7"],
  );
  // A table without a configuration record declares no index.
  const bare = new DynamoDbTable(new StubTable().client, "sortpath");
  await assert.rejects(
    bare.queryIndex("by_u", "/board-1"),
    (e: unknown) =>
      e instanceof TableError &&
      e.kind === "invalid" &&
      e.message.endsWith("configuration declares, and it declares none"),
  );
});

test("an index entry over DynamoDB's key limits is refused naming the item and the index", async () => {
  const stub = new StubTable();
  stub.put(
    configRecord(
      '{"format":1,"indexes":[{"name":"by_u","type":"ticket","kind":"field","field":"u","group":"/board-{board}"}],"types":["ticket"]}',
      1,
    ),
  );
  const table = new DynamoDbTable(stub.client, "sortpath");
  const before = [...stub.records.keys()];
  for (const [value, sizes] of [
    [{ board: "q".repeat(2500), u: 1 }, /found 25\d\d and \d\d /],
    [{ board: 1, u: "q".repeat(1500) }, /found \d\d and 15\d\d /],
    [{ board: 1, u: "q".repeat(300 * 1024) }, /found \d\d and 30\d{4} /],
  ] as const) {
    stub.sent.length = 0;
    await assert.rejects(
      table.put("/board-1/ticket-7", value),
      (e: unknown) =>
        e instanceof TableError &&
        e.kind === "invalid" &&
        e.message.startsWith(
          "/board-1/ticket-7: index by_u's entry key is over DynamoDB's key limits: expected a partition key of at most 2048 bytes and a sort key of at most 1024, found ",
        ) &&
        sizes.test(e.message),
    );
    assert.deepEqual(
      stub.sent.filter((s) => !["GetItem", "BatchGetItem", "DescribeTable"].includes(s.operation)),
      [],
      "nothing is written",
    );
  }
  assert.deepEqual([...stub.records.keys()], before);
});

test("a table whose keys are not pk and sk of type B is refused, naming what it has", async () => {
  const cases: [unknown[], unknown[], string][] = [
    [
      [
        { AttributeName: "pk", KeyType: "HASH" },
        { AttributeName: "sk", KeyType: "RANGE" },
      ],
      [
        { AttributeName: "pk", AttributeType: "S" },
        { AttributeName: "sk", AttributeType: "S" },
      ],
      "pk (string, HASH) and sk (string, RANGE)",
    ],
    [
      [{ AttributeName: "pk", KeyType: "HASH" }],
      [{ AttributeName: "pk", AttributeType: "B" }],
      "pk (binary, HASH)",
    ],
    [
      [
        { AttributeName: "id", KeyType: "HASH" },
        { AttributeName: "sort", KeyType: "RANGE" },
      ],
      [
        { AttributeName: "id", AttributeType: "B" },
        { AttributeName: "sort", AttributeType: "N" },
      ],
      "id (binary, HASH) and sort (number, RANGE)",
    ],
  ];
  for (const [keys, attrs, found] of cases) {
    const stub = new StubTable();
    stub.description = { KeySchema: keys, AttributeDefinitions: attrs };
    await assert.rejects(
      new DynamoDbTable(stub.client, "sortpath").loadIndexes(),
      (e: unknown) =>
        e instanceof TableError &&
        e.kind === "unsupported" &&
        e.message ===
          `DynamoDB table sortpath: expected the key schema pk (binary, HASH) and sk (binary, RANGE), found ${found}`,
    );
  }
});

test("maxAttempts is an integer of 1 or more, and bounds the attempts of a contended write", async () => {
  const stub = new StubTable();
  for (const maxAttempts of [0, -1, Number.NaN, 1.5, Number.POSITIVE_INFINITY]) {
    assert.throws(
      () => new DynamoDbTable(stub.client, "sortpath", { maxAttempts }),
      (e: unknown) =>
        e instanceof TableError &&
        e.kind === "invalid" &&
        e.message === `maxAttempts: expected an integer of 1 or more, found ${String(maxAttempts)}`,
    );
  }
  const table = new DynamoDbTable(stub.client, "sortpath", { maxAttempts: 2 });
  await table.put("/board-1/note-1", { a: 1 });
  const lost = (): Error =>
    Object.assign(new Error("The conditional request failed"), {
      name: "ConditionalCheckFailedException",
    });
  stub.failures.push(lost(), lost());
  stub.sent.length = 0;
  await assert.rejects(
    table.put("/board-1/note-1", { a: 2 }),
    (e: unknown) =>
      e instanceof TableError &&
      e.kind === "other" &&
      e.message === "/board-1/note-1: still contended after 2 attempts",
  );
  assert.deepEqual(stub.operations(), ["BatchGetItem", "PutItem", "BatchGetItem", "PutItem"]);
});

test("arguments of the wrong type from JavaScript are invalid, not a TypeError", async () => {
  const stub = new StubTable();
  const table = new DynamoDbTable(stub.client, "sortpath");
  const any = (x: unknown): never => x as never;
  const cases: [string, () => Promise<unknown>, string][] = [
    ["batchGet of a string", () => table.batchGet(any("/board-1/ticket-1")), 'batchGet: expected an array of keys (KeyPaths or their text), found the string "/board-1/ticket-1"'],
    ["batchGet of null", () => table.batchGet(any(null)), "batchGet: expected an array of keys (KeyPaths or their text), found null"],
    ["list options null", () => table.list("/board-1", any(null)), "expected options as an object, found null"],
    ["queryIndex options a string", () => table.queryIndex("by_u", "/board-1", any("reverse")), 'expected options as an object, found the string "reverse"'],
    ["put options an array", () => table.put("/board-1/note-1", {}, any([])), "expected options as an object, found an array"],
    ["limit a string", () => table.list("/board-1", { limit: any("2") }), 'expected a limit of 0 or more, found the string "2"'],
    ["limit a bigint", () => table.list("/board-1", { limit: any(2n) }), "expected a limit of 0 or more, found the bigint 2n"],
  ];
  for (const [what, call, message] of cases) {
    await assert.rejects(
      call(),
      (e: unknown) => e instanceof TableError && e.kind === "invalid" && e.message === message,
      what,
    );
  }
  assert.deepEqual(stub.operations(), [], "nothing is sent");
});

test("update refuses a function that returns undefined, saying it must return the new value", async () => {
  const stub = new StubTable();
  stub.put(
    configRecord(
      '{"format":1,"indexes":[{"name":"by_u","type":"ticket","kind":"field","field":"u","group":"/board-{board}"}],"types":[]}',
      1,
    ),
  );
  const table = new DynamoDbTable(stub.client, "sortpath");
  await table.put("/board-1/ticket-7", { board: 1, u: 1 });
  const before = new Map(stub.records);
  stub.sent.length = 0;
  await assert.rejects(
    table.update("/board-1/ticket-7", (v) => {
      (v as { u: number }).u = 2; // edits in place and returns nothing
      return undefined as unknown as Value;
    }),
    (e: unknown) =>
      e instanceof TableError &&
      e.kind === "invalid" &&
      e.message ===
        "/board-1/ticket-7: the update function returned undefined; it must return the item's new value (a function that changes the value in place must also return it); nothing was written",
  );
  // Nothing written: only the read.
  assert.deepEqual(stub.operations(), ["BatchGetItem"]);
  assert.deepEqual(stub.records, before);
  assert.deepEqual((await table.get("/board-1/ticket-7"))?.value, { board: 1, u: 1 });
  // null is a value: returned, it is stored.
  await table.update("/board-1/ticket-7", () => null);
  assert.equal((await table.get("/board-1/ticket-7"))?.value, null);
});

test("field indexes take the items of their stored type; an update keeps the type", async () => {
  const stub = new StubTable();
  stub.put(
    configRecord(
      '{"format":1,"indexes":[{"name":"by_u","type":"ticket","kind":"field","field":"u","group":"/all-0"}],"types":["ticket","zzz"]}',
      1,
    ),
  );
  // As `sortpath db import` writes {"key":"/zzz-3","type":"ticket",...} and
  // {"key":"/ticket-1","type":"zzz",...}: the ticket has its entry, the zzz item none.
  const stored = (key: string, type: string, value: Value, indexed: boolean): void => {
    const path = p(key);
    const entries = indexed ? [{ name: "by_u", path: p(`/all-0/u-${(value as { u: number }).u}`) }] : [];
    const header = encodeHeader(type, entries);
    const payload = encodeValue(value);
    const val = new Uint8Array(header.length + payload.length);
    val.set(header);
    val.set(payload, header.length);
    const k = itemKey(path);
    stub.put({ pk: { B: k.pk }, sk: { B: k.sk }, val: { B: val }, ver: { N: "1" } });
    for (const e of entries) {
      const ek = entryKey(e.name, e.path, path);
      stub.put({ pk: { B: ek.pk }, sk: { B: ek.sk }, val: { B: Uint8Array.of(1) }, ver: { N: "1" } });
    }
  };
  stored("/zzz-3", "ticket", { u: 7 }, true);
  stored("/ticket-1", "zzz", { u: 5 }, false);
  const table = new DynamoDbTable(stub.client, "sortpath");
  const indexed = async (): Promise<string[]> =>
    (await table.queryIndex("by_u", "/all-0")).items.map((i) => i.key.toString());
  assert.deepEqual(await indexed(), ["/zzz-3"]);
  // Identity updates keep each item's type and entries.
  await table.update("/zzz-3", (v) => v);
  await table.update("/ticket-1", (v) => v);
  assert.equal((await table.get("/zzz-3"))?.type, "ticket");
  assert.equal((await table.get("/ticket-1"))?.type, "zzz");
  assert.deepEqual(await indexed(), ["/zzz-3"]);
  // Changing the field moves the ticket's entry; the zzz item still gets none.
  await table.update("/zzz-3", () => ({ u: 8 }));
  await table.update("/ticket-1", () => ({ u: 6 }));
  const page = await table.queryIndex("by_u", "/all-0");
  assert.deepEqual(
    page.items.map((i) => [i.key.toString(), i.type, i.value]),
    [["/zzz-3", "ticket", { u: 8 }]],
  );
  const entries = [...stub.records.values()].filter((r) => r["pk"]!.B![0] === 0 && r["pk"]!.B![1] === 2);
  assert.equal(entries.length, 1);
  // A put gives the key's namespace as the type, as `sortpath db put` does.
  await table.put("/ticket-1", { u: 6 });
  assert.equal((await table.get("/ticket-1"))?.type, "ticket");
  assert.deepEqual(await indexed(), ["/ticket-1", "/zzz-3"]);
});
