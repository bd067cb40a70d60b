//! The object store SlateDB is given: the caller's, with damage named.
//!
//! SlateDB reads its table files (and WAL files) in ranges it took from its index (the
//! manifest and the files' own footers). A file that is shorter than those ranges was cut
//! short: no retry can mend it. The object stores report such a read as a generic error
//! (`LocalFileSystem`: "Requested range was invalid", with no file named), which SlateDB's
//! retry wrapper retries until its retries run out, or, for a read that ends inside the file's
//! end, as a shorter answer that SlateDB then fails to decode. [`CheckedStore`] turns both
//! into one error that names the file and its real length, marked
//! [`NonRetryable`] so that SlateDB returns it at once.

use std::fmt;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;

use async_trait::async_trait;
use slatedb::bytes::Bytes;
use slatedb::object_store::path::Path;
use slatedb::object_store::{
    self, CopyOptions, GetOptions, GetRange, GetResult, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions, Result,
};
use slatedb_common::retry::NonRetryable;

/// A stream of object store answers, as `ObjectStore` returns them.
type BoxStream<T> = Pin<Box<dyn futures_core::Stream<Item = Result<T>> + Send>>;

/// The name the damage error gives as its object store (`Generic {STORE} error: ...`).
const STORE: &str = "sortpath";

/// A store file shorter than a read SlateDB made from its index.
#[derive(Debug)]
pub(super) struct ShortFile {
    /// The file, as the user finds it: the database's location, then the object's path.
    pub(super) file: String,
    /// The file's length.
    pub(super) len: u64,
    /// Where the read wanted to end.
    pub(super) wanted: u64,
}

impl fmt::Display for ShortFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the store file {} is {} bytes, shorter than its index says (a read of it ends at \
             byte {}): damaged; restore the database from a backup or an export",
            self.file, self.len, self.wanted
        )
    }
}

impl std::error::Error for ShortFile {}

/// The caller's object store, with every ranged read that runs past a file's end turned
/// into a [`ShortFile`] error SlateDB does not retry. Everything else passes through as it
/// is.
#[derive(Debug)]
pub(super) struct CheckedStore {
    inner: Arc<dyn ObjectStore>,
    /// What an object's path is shown after: the database's directory, or the URL's scheme
    /// and bucket.
    root: String,
}

impl CheckedStore {
    /// `inner`, whose objects are named `root/PATH` in errors.
    pub(super) fn new(inner: Arc<dyn ObjectStore>, root: String) -> Self {
        CheckedStore { inner, root }
    }

    fn file(&self, location: &Path) -> String {
        if self.root.is_empty() {
            location.to_string()
        } else {
            format!("{}/{}", self.root.trim_end_matches('/'), location)
        }
    }

    fn short(&self, location: &Path, len: u64, wanted: u64) -> object_store::Error {
        object_store::Error::Generic {
            store: STORE,
            source: Box::new(NonRetryable(Box::new(ShortFile {
                file: self.file(location),
                len,
                wanted,
            }))),
        }
    }

    /// After a ranged read ending at `wanted` failed with `error`: the short file error if
    /// the file is shorter than that, else `error` as it was.
    async fn explain(
        &self,
        location: &Path,
        wanted: u64,
        error: object_store::Error,
    ) -> object_store::Error {
        if matches!(error, object_store::Error::NotFound { .. }) {
            return error;
        }
        let head = GetOptions {
            head: true,
            ..GetOptions::default()
        };
        match self.inner.get_opts(location, head).await {
            Ok(got) if got.meta.size < wanted => self.short(location, got.meta.size, wanted),
            _ => error,
        }
    }
}

impl fmt::Display for CheckedStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CheckedStore({})", self.inner)
    }
}

/// Where a ranged read must reach for the file to hold it whole; `None` for a read of the
/// whole file, its last bytes, or its metadata.
fn wanted_end(options: &GetOptions) -> Option<u64> {
    if options.head {
        return None;
    }
    match options.range.as_ref()? {
        GetRange::Bounded(r) => Some(r.end),
        GetRange::Offset(start) => Some(start.saturating_add(1)),
        GetRange::Suffix(_) => None,
    }
}

#[async_trait]
impl ObjectStore for CheckedStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let wanted = wanted_end(&options);
        match (self.inner.get_opts(location, options).await, wanted) {
            // The store answers a range that runs past the end with the part it has.
            (Ok(got), Some(wanted)) if got.range.end < wanted => {
                Err(self.short(location, got.meta.size, wanted))
            }
            (Ok(got), _) => Ok(got),
            (Err(e), Some(wanted)) => Err(self.explain(location, wanted, e).await),
            (Err(e), None) => Err(e),
        }
    }

    async fn get_ranges(&self, location: &Path, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        let wanted = ranges.iter().map(|r| r.end).max().unwrap_or(0);
        match self.inner.get_ranges(location, ranges).await {
            Ok(got) => {
                let whole = got.len() == ranges.len()
                    && got
                        .iter()
                        .zip(ranges)
                        .all(|(b, r)| b.len() as u64 == r.end.saturating_sub(r.start));
                if whole {
                    return Ok(got);
                }
                let error = object_store::Error::Generic {
                    store: STORE,
                    source: "a ranged read answered fewer bytes than asked".into(),
                };
                Err(self.explain(location, wanted, error).await)
            }
            Err(e) => Err(self.explain(location, wanted, e).await),
        }
    }

    fn delete_stream(&self, locations: BoxStream<Path>) -> BoxStream<Path> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<ObjectMeta> {
        self.inner.list(prefix)
    }

    fn list_with_offset(&self, prefix: Option<&Path>, offset: &Path) -> BoxStream<ObjectMeta> {
        self.inner.list_with_offset(prefix, offset)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }

    async fn rename_opts(&self, from: &Path, to: &Path, options: RenameOptions) -> Result<()> {
        self.inner.rename_opts(from, to, options).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use slatedb::object_store::memory::InMemory;
    use slatedb::object_store::ObjectStoreExt;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    async fn store_with(path: &str, len: usize) -> CheckedStore {
        let inner = Arc::new(InMemory::new());
        inner
            .put(&Path::from(path), vec![7u8; len].into())
            .await
            .unwrap();
        CheckedStore::new(inner, "/data/db".to_owned())
    }

    fn ranged(range: Range<u64>) -> GetOptions {
        GetOptions {
            range: Some(GetRange::Bounded(range)),
            ..GetOptions::default()
        }
    }

    fn assert_short(e: &object_store::Error, text: &str) {
        assert!(
            !slatedb_common::retry::should_retry(e),
            "a short file is retried: {e}"
        );
        assert!(e.to_string().contains(text), "{e}");
    }

    #[test]
    fn a_read_past_the_end_names_the_file_and_is_not_retried() {
        rt().block_on(async {
            let store = store_with("compacted/a.sst", 100).await;
            let at = Path::from("compacted/a.sst");
            // Starts past the end: the store's own error, explained.
            let e = store.get_opts(&at, ranged(150..200)).await.unwrap_err();
            assert_short(
                &e,
                "the store file /data/db/compacted/a.sst is 100 bytes, shorter than its index \
                 says (a read of it ends at byte 200): damaged",
            );
            // Ends past the end: the store answers the part it has; refused all the same.
            let e = store.get_opts(&at, ranged(50..120)).await.unwrap_err();
            assert_short(&e, "compacted/a.sst is 100 bytes");
            let e = store.get_ranges(&at, &[0..10, 90..101]).await.unwrap_err();
            assert_short(&e, "compacted/a.sst is 100 bytes");
        });
    }

    #[test]
    fn reads_within_the_file_and_other_errors_pass_through() {
        rt().block_on(async {
            let store = store_with("wal/1.sst", 100).await;
            let at = Path::from("wal/1.sst");
            let got = store.get_opts(&at, ranged(0..100)).await.unwrap();
            assert_eq!(got.bytes().await.unwrap().len(), 100);
            let got = store.get_opts(&at, GetOptions::default()).await.unwrap();
            assert_eq!(got.bytes().await.unwrap().len(), 100);
            let got = store.get_ranges(&at, &[0..10, 90..100]).await.unwrap();
            assert_eq!(got.iter().map(Bytes::len).collect::<Vec<_>>(), [10, 10]);
            let missing = Path::from("wal/2.sst");
            let e = store.get_opts(&missing, ranged(0..10)).await.unwrap_err();
            assert!(matches!(e, object_store::Error::NotFound { .. }), "{e}");
        });
    }
}
