//! The store's consistency check: every index entry matches an item that has exactly that
//! index key, every item has its entries, every group's counter is at least as new as its
//! items, the configuration reads, and nothing else is in the store's key space.
//! [`check_store`] adds what the configuration declares as data: the entries a field
//! index must have.

use std::collections::{BTreeMap, BTreeSet};

use sortpath::KeyPath;

use crate::backend::{Backend, BackendError, Key, MaintainedKeys, Record, Scan};
use crate::envelope::Envelope;
use crate::layout::{split_entry, ENTRY_FORMAT, RESERVED_GROUP, TAG_GROUP_COUNTER, TAG_INDEX};
use crate::store::encode::entry_key;

/// Reads every record of `groups` (whole-group scans) into one map.
///
/// ```
/// use sortpath_store::backend::memory::MemoryBackend;
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let all = sortpath_store::check::dump_groups(&MemoryBackend::new(), [b"g".to_vec()]).await;
/// assert!(all.unwrap().is_empty());
/// # });
/// ```
pub async fn dump_groups<B: Backend>(
    backend: &B,
    groups: impl IntoIterator<Item = Vec<u8>>,
) -> Result<BTreeMap<Key, Record>, BackendError> {
    let mut out = BTreeMap::new();
    for group in groups {
        for e in backend.scan(Scan::group(group.clone())).await? {
            out.insert(Key::new(group.clone(), e.sort), e.record);
        }
    }
    Ok(out)
}

/// Reads every record of a redb store file into one map.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let dir = tempfile::tempdir().unwrap();
/// let db = sortpath_store::backend::redb::RedbBackend::create(dir.path()).await.unwrap();
/// assert!(sortpath_store::check::dump_redb(&db).await.unwrap().is_empty());
/// # });
/// ```
#[cfg(feature = "redb")]
pub async fn dump_redb(
    backend: &crate::backend::redb::RedbBackend,
) -> Result<BTreeMap<Key, Record>, BackendError> {
    let groups = backend.groups(0).await?;
    dump_groups(backend, groups).await
}

/// What [`check_consistency`] found in a consistent store.
///
/// ```
/// let c = sortpath_store::check::Census::default();
/// assert_eq!((c.items, c.index_entries, c.counters), (0, 0, 0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Census {
    /// Item records.
    pub items: usize,
    /// Index entry records.
    pub index_entries: usize,
    /// Group counter records.
    pub counters: usize,
}

#[cfg_attr(
    feature = "redb",
    doc = " Checks the store invariants over every record of a backend (as [`dump_redb`] or"
)]
#[cfg_attr(
    not(feature = "redb"),
    doc = " Checks the store invariants over every record of a backend (as `dump_redb`, feature `redb`, or"
)]
/// `MemoryBackend::snapshot` give them), for any item types:
///
/// - every item decodes, and each of its index keys has its entry, whose value is the
///   format byte and whose version is at most the item's (the version of the write that
///   made the entry: a write that keeps an index key leaves its entry as it is);
/// - every index entry decodes and points at an existing item that still has exactly that
///   index key (no stale or orphan entries);
/// - in a store with [`group_versions`](crate::StoreConfig::group_versions), every item
///   group has a counter at least as new as its items;
/// - the configuration record, if any, reads;
/// - no other records.
///
/// Returns every violation found, one per line.
///
/// ```
/// use sortpath_store::{backend::memory::MemoryBackend, PutMode, Store};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let store = Store::new(MemoryBackend::new());
/// let idx = vec![("by_x".to_owned(), "/x-1/y-2".parse().unwrap())];
/// store.put_raw(&"/a-1/b-2".parse().unwrap(), "t", &1, idx, PutMode::Upsert).await.unwrap();
/// let census = sortpath_store::check::check_consistency(
///     &store.backend().snapshot().into_iter().collect()).unwrap();
/// assert_eq!((census.items, census.index_entries, census.counters), (1, 1, 0));
/// # });
/// ```
pub fn check_consistency(records: &BTreeMap<Key, Record>) -> Result<Census, String> {
    check_store(records, &[], |_, _, _| None)
}

/// [`check_consistency`], and for each item, the index keys `expected` gives for it
/// (`Some`, from the item's key path, type name and payload) must be exactly the item's
/// index keys: how a writer of data-defined indexes (`sortpath db`) checks that none is
/// missing. `None` leaves an item's index keys to the item. The indexes named in `kept`
/// are kept by the backend itself ([`Backend::maintained_indexes`]: a DynamoDB GSI), so
/// their entries are not records to look for.
///
/// ```
/// use sortpath_store::{backend::memory::MemoryBackend, PutMode, Store};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let store = Store::new(MemoryBackend::new());
/// store.put_raw(&"/a-1".parse().unwrap(), "a", &1, vec![], PutMode::Upsert).await.unwrap();
/// let all = store.backend().snapshot().into_iter().collect();
/// let wants_one = |_: &sortpath::KeyPath, _: &str, _: &[u8]| {
///     Some(vec![("by_x".to_owned(), "/x-1".parse().unwrap())])
/// };
/// let problems = sortpath_store::check::check_store(&all, &[], wants_one).unwrap_err();
/// assert!(problems.contains("by_x"), "{problems}");
/// # });
/// ```
pub fn check_store(
    records: &BTreeMap<Key, Record>,
    kept: &[String],
    expected: impl Fn(&KeyPath, &str, &[u8]) -> Option<Vec<(String, KeyPath)>>,
) -> Result<Census, String> {
    check_store_with(records, kept, None, expected)
}

/// [`check_store`], and with `stored` (what [`Backend::maintained_index_keys`] read), the
/// key attributes the backend keeps beside each record for the indexes in `kept`: every
/// item's key of a kept index must be in its record's key attributes exactly (else the
/// backend's index does not list the item, or lists it elsewhere), and no record may have
/// key attributes of an index it has no key of (else the index lists it wrongly). Without
/// `stored` only the records are checked: an exact entry of a kept index is a finding
/// either way (a kept index has none). [`check_backend`] reads both and calls this.
///
/// ```
/// use sortpath_store::backend::{Key, MaintainedKey, MaintainedKeys};
/// use sortpath_store::{backend::memory::MemoryBackend, PutMode, Store};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let store = Store::new(MemoryBackend::new());
/// store.put_raw(&"/a-1".parse().unwrap(), "a", &1, vec![], PutMode::Upsert).await.unwrap();
/// let all = store.backend().snapshot().into_iter().collect();
/// // The item `/a-1` carries key attributes of `by_x` but has no `by_x` key.
/// let (group, sort) = "/a-1".parse::<sortpath::KeyPath>().unwrap().split_group().unwrap();
/// let stored = MaintainedKeys::from([(
///     Key::new(group, sort),
///     vec![MaintainedKey {
///         index: "by_x".to_owned(),
///         attributes: ("gp1".to_owned(), "gs1".to_owned()),
///         partition: Some(vec![1]),
///         sort: Some(vec![2]),
///     }],
/// )]);
/// let kept = ["by_x".to_owned()];
/// let problems = sortpath_store::check::check_store_with(&all, &kept, Some(&stored), |_, _, _| None)
///     .unwrap_err();
/// assert!(problems.contains("/a-1") && problems.contains("gp1"), "{problems}");
/// # });
/// ```
pub fn check_store_with(
    records: &BTreeMap<Key, Record>,
    kept: &[String],
    stored: Option<&MaintainedKeys>,
    expected: impl Fn(&KeyPath, &str, &[u8]) -> Option<Vec<(String, KeyPath)>>,
) -> Result<Census, String> {
    let (census, found) = findings(records, kept, stored, &expected);
    if found.is_empty() {
        Ok(census)
    } else {
        Err(found.iter().map(|f| format!("{}\n", f.text)).collect())
    }
}

/// One violation [`findings`] found, with the records it was read from: it holds as long
/// as these records are what was read, so re-reading them tells whether it is still there.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Finding {
    /// What is wrong, one line.
    text: String,
    /// The keys of every record the finding depends on (present or absent).
    keys: Vec<Key>,
    /// Whether it also depends on the key attributes the backend keeps beside the records
    /// at `keys` ([`Backend::maintained_index_keys`]).
    kept: bool,
}

/// The check of [`check_store_with`], each violation with the records it depends on.
fn findings(
    records: &BTreeMap<Key, Record>,
    kept: &[String],
    stored: Option<&MaintainedKeys>,
    expected: &impl Fn(&KeyPath, &str, &[u8]) -> Option<Vec<(String, KeyPath)>>,
) -> (Census, Vec<Finding>) {
    let config = records
        .get(&crate::layout::config_key())
        .and_then(|r| crate::StoreConfig::from_json(&r.value).ok())
        .unwrap_or_default();
    let mut found = Vec::new();
    let mut census = Census::default();
    let mut problem = |text: String, keys: Vec<Key>, kept: bool| {
        found.push(Finding { text, keys, kept });
    };
    for (key, record) in records {
        match key.group.as_slice() {
            [RESERVED_GROUP, TAG_GROUP_COUNTER, item_group @ ..] => {
                census.counters += 1;
                if key.sort != [0x00] || !record.value.is_empty() {
                    problem(
                        format!("counter {key:?}: unexpected sort key or value"),
                        vec![key.clone()],
                        false,
                    );
                }
                if KeyPath::decode(item_group).is_err() {
                    problem(
                        format!("counter {key:?}: group is not a key path"),
                        vec![key.clone()],
                        false,
                    );
                }
            }
            [RESERVED_GROUP, TAG_INDEX, ..] => {
                census.index_entries += 1;
                if let Err(e) = check_entry(records, key, record, &config, kept) {
                    problem(
                        format!("index entry {key:?}: {e}"),
                        entry_dependencies(key, record, &config),
                        false,
                    );
                }
            }
            [RESERVED_GROUP, crate::layout::TAG_CONFIG] if key.sort == [0x00] => {
                if let Err(e) = crate::StoreConfig::from_json(&record.value) {
                    problem(
                        format!("configuration {key:?}: {e}"),
                        vec![key.clone()],
                        false,
                    );
                }
            }
            [RESERVED_GROUP, ..] => problem(
                format!("unknown reserved record {key:?}"),
                vec![key.clone()],
                false,
            ),
            _ => {
                census.items += 1;
                if let Err(e) = check_item(records, key, record, &config, kept, expected) {
                    problem(
                        format!("item {key:?}: {e}"),
                        item_dependencies(key, record, kept),
                        false,
                    );
                }
            }
        }
        if let Some(stored) = stored {
            for text in check_kept_keys(key, record, kept, stored.get(key)) {
                problem(text, vec![key.clone()], true);
            }
        }
    }
    if let Some(stored) = stored {
        for (key, keys) in stored.iter() {
            if !records.contains_key(key) {
                let names: Vec<&str> = keys.iter().map(|k| k.index.as_str()).collect();
                problem(
                    format!(
                        "record {key:?}: has key attributes of the kept indexes {names:?}, but \
                         no record was read at its key"
                    ),
                    vec![key.clone()],
                    true,
                );
            }
        }
    }
    (census, found)
}

/// The records the check of the item at `key` reads: the item, the configuration (where
/// items are placed), its group's counter and the entries of its index keys.
fn item_dependencies(key: &Key, record: &Record, kept: &[String]) -> Vec<Key> {
    let mut keys = vec![
        key.clone(),
        crate::layout::config_key(),
        crate::layout::counter_key(&key.group),
    ];
    let path = crate::layout::item_path_at(&key.group, &key.sort);
    if let (Ok(path), Ok(env)) = (path, Envelope::decode(&record.value)) {
        for (name, index_path) in env.indexes.iter().filter(|(n, _)| !kept.contains(n)) {
            if let Ok(ek) = entry_key(name, index_path, &path) {
                keys.push(ek);
            }
        }
    }
    keys
}

/// The records the check of the index entry at `key` reads: the entry, the configuration
/// and the item it points at.
fn entry_dependencies(key: &Key, record: &Record, config: &crate::StoreConfig) -> Vec<Key> {
    let mut keys = vec![key.clone(), crate::layout::config_key()];
    if let Ok((_, base)) = split_entry(&key.sort, &record.value) {
        if let Ok(item) = item_key(&base, config) {
            keys.push(item);
        }
    }
    keys
}

fn check_item(
    records: &BTreeMap<Key, Record>,
    key: &Key,
    record: &Record,
    config: &crate::StoreConfig,
    kept: &[String],
    expected: &impl Fn(&KeyPath, &str, &[u8]) -> Option<Vec<(String, KeyPath)>>,
) -> Result<(), String> {
    let group_versions = config.group_versions;
    let path = crate::layout::item_path_at(&key.group, &key.sort).map_err(|e| {
        format!(
            "{} (not a key path: {e})",
            crate::ForeignRecord::new(key.group.clone(), key.sort.clone()).describe()
        )
    })?;
    let placed = item_key(&path, config);
    if placed.as_ref() != Ok(key) {
        return Err(format!(
            "{path} is stored at sort key {:?}, but the configuration places it at {:?}",
            key.sort,
            placed.map(|k| k.sort)
        ));
    }
    let env = Envelope::decode(&record.value)
        .map_err(|e| format!("{path}: not an item this store wrote: {e}"))?;
    if let Some(mut wanted) = expected(&path, &env.item_type, &env.payload) {
        let mut has = env.indexes.clone();
        wanted.sort();
        has.sort();
        if wanted != has {
            return Err(format!(
                "{path}: its index keys are {}, its type's declared indexes give {}",
                show_keys(&has),
                show_keys(&wanted)
            ));
        }
    }
    let counter = records.get(&crate::layout::counter_key(&key.group));
    if group_versions && counter.is_none_or(|c| c.version < record.version) {
        return Err(format!(
            "version {} but the group counter is {:?}",
            record.version,
            counter.map(|c| c.version)
        ));
    }
    for (name, index_path) in env.indexes.iter().filter(|(n, _)| !kept.contains(n)) {
        let ek = entry_key(name, index_path, &path).map_err(|e| e.to_string())?;
        let projects_item = |r: &Record| {
            crate::layout::entry_item(&r.value).ok().flatten()
                == Some((env.item_type.as_bytes(), env.payload.as_slice()))
                && r.version == record.version
        };
        match records.get(&ek) {
            Some(r) if r.value == [ENTRY_FORMAT] && r.version <= record.version => {}
            Some(r) if projects_item(r) => {}
            Some(r) => {
                return Err(format!(
                    "index {name} entry {ek:?} is {r:?}, expected value [{ENTRY_FORMAT}] and \
                     a version up to the item's, {}, or a copy of the item at its version",
                    record.version
                ))
            }
            None => {
                return Err(format!(
                    "index {name} entry {ek:?} for {index_path} is missing"
                ))
            }
        }
    }
    Ok(())
}

/// Where the store keeps the item at `path` under configuration `config`.
fn item_key(path: &KeyPath, config: &crate::StoreConfig) -> Result<Key, String> {
    let (group, mut sort) = path.split_group().map_err(|e| e.to_string())?;
    if sort == crate::layout::ROOT_FIRST {
        sort = crate::layout::root_sort_key(crate::config::place_of(&config.roots, path));
    }
    Ok(Key::new(group, sort))
}

fn check_entry(
    records: &BTreeMap<Key, Record>,
    key: &Key,
    record: &Record,
    config: &crate::StoreConfig,
    kept: &[String],
) -> Result<(), String> {
    let g = &key.group;
    let name_len = usize::from(*g.get(2).ok_or("short group")?);
    let name = g
        .get(3..3 + name_len)
        .and_then(|n| std::str::from_utf8(n).ok())
        .ok_or("bad index name")?;
    let index_group = KeyPath::decode(&g[3 + name_len..]).map_err(|e| e.to_string())?;
    let (rest, base) = split_entry(&key.sort, &record.value).map_err(|e| e.to_string())?;
    let full = index_group.join(&rest).map_err(|e| e.to_string())?;
    if entry_key(name, &full, &base).ok().as_ref() != Some(key) {
        return Err(format!("is not where index {name} keeps {full} of {base}"));
    }
    if kept.iter().any(|k| k == name) {
        return Err(format!(
            "an entry of index {name} ({full} of {base}), which the backend keeps itself (a \
             DynamoDB GSI): such an index has no entries"
        ));
    }
    let item = records
        .get(&item_key(&base, config)?)
        .ok_or_else(|| format!("points at {base}, which does not exist"))?;
    let env = Envelope::decode(&item.value).map_err(|e| format!("item {base}: {e}"))?;
    if !env.indexes.iter().any(|(n, p)| n == name && *p == full) {
        return Err(format!("points at {base}, whose {name} key is not {full}"));
    }
    let holds_item = crate::layout::entry_item(&record.value)
        .map_err(|e| e.to_string())?
        .is_some();
    if holds_item && item.version != record.version {
        return Err(format!(
            "holds {base} at version {} but it is at version {}",
            record.version, item.version
        ));
    }
    if item.version < record.version {
        return Err(format!(
            "version {} but {base} is at the older version {}",
            record.version, item.version
        ));
    }
    Ok(())
}

fn show_keys(keys: &[(String, KeyPath)]) -> String {
    if keys.is_empty() {
        return "none".to_owned();
    }
    keys.iter()
        .map(|(name, path)| format!("{name} {path}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The findings about the kept indexes' key attributes of the record at `key` (`stored`:
/// those it has, as [`Backend::maintained_index_keys`] read them): an item's key of a kept
/// index must be there exactly, and no record may have key attributes of a kept index it
/// has no key of. One line per finding.
fn check_kept_keys(
    key: &Key,
    record: &Record,
    kept: &[String],
    stored: Option<&Vec<crate::backend::MaintainedKey>>,
) -> Vec<String> {
    let stored = stored.map_or(&[][..], Vec::as_slice);
    let is_item = key.group.first() != Some(&RESERVED_GROUP);
    // The item's path and its index keys; for other records (or an item that does not
    // decode, reported by the item check) none.
    let item = is_item
        .then(|| {
            let path = crate::layout::item_path_at(&key.group, &key.sort).ok()?;
            let env = Envelope::decode(&record.value).ok()?;
            Some((path, env.indexes))
        })
        .flatten();
    let what = match &item {
        Some((path, _)) => format!("item {key:?}: {path}"),
        None => format!("record {key:?}"),
    };
    let mut found = Vec::new();
    for name in kept {
        let has = stored.iter().find(|k| &k.index == name);
        let index_key = item
            .as_ref()
            .and_then(|(path, keys)| Some((path, keys.iter().find(|(n, _)| n == name)?)));
        match (index_key, has) {
            (Some((path, (_, index_path))), has) => {
                let Ok((group, rest)) = index_path.split_group_paths() else {
                    continue; // not a storable index key: the store never writes one
                };
                let want_partition = group.into_bytes();
                let want_sort = crate::layout::entry_sort_key(&rest, path);
                let (partition, sort) = match has {
                    Some(k) => (k.partition.as_deref(), k.sort.as_deref()),
                    None => (None, None),
                };
                let names = has.map_or_else(String::new, |k| {
                    format!(
                        "its key attributes {} and {}",
                        k.attributes.0, k.attributes.1
                    )
                });
                if partition.is_none() || sort.is_none() {
                    let missing = match (partition, sort, has) {
                        (None, None, _) | (_, _, None) => {
                            "no key attributes of that index".to_owned()
                        }
                        (None, Some(_), Some(k)) => format!("no {}", k.attributes.0),
                        (_, _, Some(k)) => format!("no {}", k.attributes.1),
                    };
                    found.push(format!(
                        "{what}: has the index {name} key {index_path}, kept by the backend \
                         (a DynamoDB GSI), but {missing}: the index does not list it"
                    ));
                } else if (partition, sort) != (Some(&want_partition[..]), Some(&want_sort[..])) {
                    found.push(format!(
                        "{what}: has the index {name} key {index_path}, but {names} hold \
                         {} and {}, not {} and {}: the index lists it elsewhere",
                        crate::backend::Hex(partition.unwrap_or_default()),
                        crate::backend::Hex(sort.unwrap_or_default()),
                        crate::backend::Hex(&want_partition),
                        crate::backend::Hex(&want_sort),
                    ));
                }
            }
            (None, Some(k)) if k.partition.is_some() || k.sort.is_some() => {
                found.push(format!(
                    "{what}: has no index {name} key, but the key attributes {} and {} of \
                     that index (kept by the backend, a DynamoDB GSI): the index lists it \
                     though it should not",
                    k.attributes.0, k.attributes.1
                ));
            }
            (None, _) => {}
        }
    }
    found
}

/// How many times [`check_backend`] reads the records of its findings again before it says
/// it could not decide.
const RECHECKS: u32 = 10;

/// How many times one re-read of [`check_backend`] reads, at most, the records that the
/// findings made with the records it read depend on.
const EXPANSIONS: u32 = 4;

/// The line [`check_backend`] starts a finding with when the records it depends on changed
/// at each of its re-reads (other processes kept writing them): neither confirmed nor
/// ruled out.
///
/// ```
/// assert!(sortpath_store::check::UNDECIDED.starts_with("could not decide"));
/// ```
pub const UNDECIDED: &str = "could not decide (its records changed at each re-read):";

/// Reads every record of `backend` (as [`dump_groups`] over all its groups) and the key
/// attributes it keeps beside them ([`Backend::maintained_index_keys`]), and checks them
/// with [`check_store_with`]: the check of `sortpath db check`. The outer error is a failed
/// read, the inner one the findings, one per line.
///
/// The scans read group after group, with no common point in time, so a write made by
/// another process while they run can look like a violation (an item read before it
/// changed, its entries after). Each finding is therefore read again: the records it
/// depends on (and those that what they read anew depends on, such as the entries of an
/// item's new index keys) are read twice (with the kept key attributes in between, where
/// the finding is about those) and the check is made again on what the second read gave. A finding
/// stands only if it is still there and every record it depends on read the same both
/// times (so they held those values together, between the two reads); one whose records
/// changed is read again, up to a bound, then reported as a line starting with
/// [`UNDECIDED`] rather than as damage.
///
/// ```
/// use sortpath_store::{backend::memory::MemoryBackend, PutMode, Store};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let store = Store::new(MemoryBackend::new());
/// store.put_raw(&"/a-1".parse().unwrap(), "a", &1, vec![], PutMode::Upsert).await.unwrap();
/// let checked = sortpath_store::check::check_backend(store.backend(), |_, _, _| None).await;
/// assert_eq!(checked.unwrap().unwrap().items, 1);
/// # });
/// ```
pub async fn check_backend<B: Backend>(
    backend: &B,
    expected: impl Fn(&KeyPath, &str, &[u8]) -> Option<Vec<(String, KeyPath)>>,
) -> Result<Result<Census, String>, BackendError> {
    let groups = backend.groups(0).await?;
    let mut records = dump_groups(backend, groups).await?;
    let mut stored = backend.maintained_index_keys().await?;
    let kept = backend.maintained_indexes().unwrap_or_default();
    let (mut census, mut found) = findings(&records, kept, stored.as_ref(), &expected);
    let mut stable = BTreeSet::new();
    for round in 0..RECHECKS {
        if found
            .iter()
            .all(|f| f.keys.iter().all(|k| stable.contains(k)))
        {
            break;
        }
        if round > 0 {
            // Let a write under way land before reading again.
            tokio::time::sleep(std::time::Duration::from_millis(5 * u64::from(round))).await;
        }
        // First reads: the findings' records, then those the findings made with them
        // depend on (an item read anew has the entries of its new index keys), until no
        // finding depends on a record not read in this round.
        let mut first: BTreeMap<Key, Option<Record>> = BTreeMap::new();
        let mut with_kept = false;
        let mut pending = found;
        for _ in 0..EXPANSIONS {
            with_kept |= pending.iter().any(|f| f.kept);
            let new: Vec<Key> = pending
                .iter()
                .flat_map(|f| f.keys.iter())
                .filter(|k| !first.contains_key(*k))
                .cloned()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            if new.is_empty() {
                break;
            }
            let got = backend.batch_get(new.clone()).await?;
            for (key, record) in new.into_iter().zip(got) {
                match &record {
                    Some(r) => records.insert(key.clone(), r.clone()),
                    None => records.remove(&key),
                };
                first.insert(key, record);
            }
            pending = findings(&records, kept, stored.as_ref(), &expected).1;
        }
        let fresh = match with_kept {
            true => backend.maintained_index_keys().await?,
            false => None,
        };
        // Second reads, all after every first one: a record that read the same both times
        // held that value all along in between, together with the others that did.
        let keys: Vec<Key> = first.keys().cloned().collect();
        let second = backend.batch_get(keys.clone()).await?;
        stable.clear();
        for ((key, b), a) in keys.into_iter().zip(second).zip(first.into_values()) {
            if with_kept {
                if let Some(stored) = stored.as_mut() {
                    match fresh.as_ref().and_then(|f| f.get(&key)) {
                        Some(k) => stored.insert(key.clone(), k.clone()),
                        None => stored.remove(&key),
                    };
                }
            }
            match &b {
                Some(r) => records.insert(key.clone(), r.clone()),
                None => records.remove(&key),
            };
            if a == b {
                stable.insert(key);
            }
        }
        (census, found) = findings(&records, kept, stored.as_ref(), &expected);
    }
    if found.is_empty() {
        return Ok(Ok(census));
    }
    let lines = found
        .iter()
        .map(|f| match f.keys.iter().all(|k| stable.contains(k)) {
            true => format!("{}\n", f.text),
            false => format!("{UNDECIDED} {}\n", f.text),
        })
        .collect();
    Ok(Err(lines))
}
