//! What the stored bytes of the embedded comparison (`benches/embedded.rs`) are made of, per
//! item, for sortpath-store: loads the 100,000 items of the large fixture, closes the store,
//! opens its redb file directly and sorts every record's bytes into parts:
//!
//! ```text
//! cargo run --release -p sortpath-bench --example embedded_bytes
//! ```
//!
//! The parts add up to redb's `DatabaseStats::stored_bytes` (the key and value bytes of the
//! tables' leaves, as redb encodes them: a tuple adds a length varint for each element but
//! the last), printed beside them.

#[path = "../benches/embedded_support/mod.rs"]
mod support;

use redb::{ReadableDatabase, ReadableTable, TableDefinition, Value};
use sortpath_store::backend::redb::DATA_FILE_NAME;
use support::*;

/// `(group, sort)`, the store's record key.
type RecordKey = (&'static [u8], &'static [u8]);
/// `(version, value)`, the store's record value.
type RecordValue = (u64, &'static [u8]);

/// The store's one table, as `sortpath_store::backend::redb` defines it.
const RECORDS: TableDefinition<RecordKey, RecordValue> = TableDefinition::new("records");

/// Which records a sum counts: items, index entries, the rest (configuration).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Item,
    Entry,
    Other,
}

/// Byte counts summed over the records of one kind.
#[derive(Default)]
struct Sum {
    records: u64,
    parts: Vec<(&'static str, u64)>,
}

impl Sum {
    fn add(&mut self, part: &'static str, bytes: usize) {
        match self.parts.iter_mut().find(|(p, _)| *p == part) {
            Some((_, n)) => *n += bytes as u64,
            None => self.parts.push((part, bytes as u64)),
        }
    }

    fn total(&self) -> u64 {
        self.parts.iter().map(|(_, n)| n).sum()
    }
}

/// Sums the parts of an item's value: `01`, type name, index keys, payload (see
/// `sortpath_store`'s envelope module).
fn envelope(sum: &mut Sum, value: &[u8]) {
    let type_len = usize::from(value[1]);
    let mut at = 2 + type_len;
    let n = value[at];
    at += 1;
    sum.add("envelope: format byte, type name and its length", at - 1);
    sum.add("envelope: number of index keys", 1);
    for _ in 0..n {
        let name_len = usize::from(value[at]);
        let path_len = usize::from(u16::from_be_bytes([
            value[at + 1 + name_len],
            value[at + 2 + name_len],
        ]));
        sum.add("envelope: index name and its length", 1 + name_len);
        sum.add("envelope: index key path length (u16)", 2);
        sum.add("envelope: index key path", path_len);
        at += 1 + name_len + 2 + path_len;
    }
    sum.add("payload (compact MessagePack)", value.len() - at);
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let items = large_items();
    let (store, footprint) = load_sortpath(dir.path(), &items);
    drop(store);
    let db = redb::Database::open(dir.path().join("sortpath").join(DATA_FILE_NAME)).unwrap();
    let txn = db.begin_read().unwrap();
    let table = txn.open_table(RECORDS).unwrap();
    let (mut item, mut entry, mut other) = (Sum::default(), Sum::default(), Sum::default());
    for record in table.iter().unwrap() {
        let (k, v) = record.unwrap();
        let (group, sort) = k.value();
        let (_, value) = v.value();
        let key_bytes = <(&[u8], &[u8])>::as_bytes(&(group, sort)).len();
        let value_bytes = <(u64, &[u8])>::as_bytes(&(0, value)).len();
        let kind = match group.first() {
            Some(0x00) if group.get(1) == Some(&0x02) => Kind::Entry,
            Some(0x00) => Kind::Other,
            _ => Kind::Item,
        };
        let sum = match kind {
            Kind::Item => &mut item,
            Kind::Entry => &mut entry,
            Kind::Other => &mut other,
        };
        sum.records += 1;
        if kind == Kind::Item {
            sum.add("key: group (board key path)", group.len());
            sum.add("key: sort (item key path after the group)", sort.len());
            sum.add(
                "redb: tuple key's length varint",
                key_bytes - group.len() - sort.len(),
            );
            sum.add("record version (u64)", 8);
            envelope(sum, value);
        } else if kind == Kind::Entry {
            sum.add("key: group (00 02, index name, index group)", group.len());
            sum.add(
                "key: sort (index path's rest, 00 00, item path)",
                sort.len(),
            );
            sum.add(
                "redb: tuple key's length varint",
                key_bytes - group.len() - sort.len(),
            );
            sum.add("record version (u64)", 8);
            sum.add("value (entry format byte)", value.len());
        } else {
            sum.add("key", key_bytes);
            sum.add("record version (u64)", 8);
            sum.add("value", value.len());
        }
        assert_eq!(
            value_bytes,
            8 + value.len(),
            "a fixed-width first element adds no length"
        );
    }
    let n = items.len() as f64;
    let per_item = |bytes: u64| bytes as f64 / n;
    for (name, sum) in [
        ("item record", &item),
        ("index entry", &entry),
        ("other", &other),
    ] {
        println!(
            "{name}s: {} records, {:.1} B per item",
            sum.records,
            per_item(sum.total())
        );
        for (part, bytes) in &sum.parts {
            println!("  {part:<50} {:>6.1}", per_item(*bytes));
        }
    }
    let counted = item.total() + entry.total() + other.total();
    println!(
        "all records: {:.1} B per item; redb stored_bytes {:.1} B per item (file {:.1} B)",
        per_item(counted),
        per_item(footprint.stored),
        per_item(footprint.file)
    );
}
