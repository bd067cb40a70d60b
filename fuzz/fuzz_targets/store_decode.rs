//! Whatever bytes sit in a store's backend (a damaged file, another program's records) and
//! whatever cursor text a caller passes, the store answers with `Ok` or a clear error, never
//! a panic. The input is split into a cursor text, an item record's value, an index entry's
//! sort key and value.
#![no_main]

use sortpath::KeyPath;
use sortpath_store::backend::{memory::MemoryBackend, Backend, Condition, Key, Record, Write};
use sortpath_store::layout::{RESERVED_GROUP, TAG_INDEX};
use sortpath_store::{Cursor, PutMode, Query, Store};
use libfuzzer_sys::fuzz_target;

fn parts(data: &[u8]) -> [&[u8]; 4] {
    let mut out = [&data[..0]; 4];
    let mut rest = data;
    for slot in out.iter_mut().take(3) {
        let n = rest.first().map_or(0, |&b| usize::from(b)).min(rest.len().saturating_sub(1));
        if rest.is_empty() {
            break;
        }
        *slot = &rest[1..1 + n];
        rest = &rest[1 + n..];
    }
    out[3] = rest;
    out
}

fuzz_target!(|data: &[u8]| {
    let [cursor, value, entry_sort, entry_value] = parts(data);
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(async {
        let store = Store::new(MemoryBackend::new());
        let group: KeyPath = "/user-1".parse().unwrap();
        let item: KeyPath = "/user-1/post-2".parse().unwrap();
        let idx = vec![("by_x".to_owned(), "/x-1/y-2".parse().unwrap())];
        store.put_raw(&item, "post", &1u8, idx, PutMode::Upsert).await.unwrap();
        let (g, s) = item.split_group().unwrap();
        let mut index_group = vec![RESERVED_GROUP, TAG_INDEX, 4];
        index_group.extend_from_slice(b"by_x");
        index_group.extend_from_slice(&"/x-1".parse::<KeyPath>().unwrap().encode());
        let writes = vec![
            Write::Put { key: Key::new(g, s), record: Record { value: value.to_vec(), version: 9 }, condition: Condition::None },
            Write::Put {
                key: Key::new(index_group, entry_sort.to_vec()),
                record: Record { value: entry_value.to_vec(), version: 9 },
                condition: Condition::None,
            },
        ];
        store.backend().write(writes).await.unwrap();
        let _ = store.get_raw(&item).await;
        let mut q = Query::prefix(&group).unwrap().limit(3);
        if let Ok(c) = String::from_utf8_lossy(cursor).parse::<Cursor>() {
            q = q.after(c);
        }
        let _ = store.list_raw(&q).await;
        let _ = store.list_raw(&q.clone().reverse()).await;
        let iq = Query::prefix(&"/x-1".parse().unwrap()).unwrap();
        let _ = store.query_index_raw("by_x", &iq).await;
        let _ = store.query_index_raw("by_x", &iq.reverse()).await;
        let _ = store.put_raw(&item, "post", &2u8, vec![], PutMode::Upsert).await;
        let _ = store.delete(&item).await;
    });
});
