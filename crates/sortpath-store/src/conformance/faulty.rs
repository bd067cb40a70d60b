//! A [`Backend`] wrapper that fails on purpose, to check that a store is never left half
//! written.
//!
//! [`FaultyBackend`] counts every call (`get`, `batch_get`, `scan`, `write`, numbered from 0
//! across all four) and, once armed with [`FaultyBackend::fail_at`], makes call number `n`
//! fail with [`BackendError::Storage`], in one of two ways ([`Fault`]): before the call
//! reaches the wrapped backend, or, for a `write`, after the wrapped backend applied the batch
//! (the acknowledgement is lost, as when a connection drops after a commit). A batch is never
//! applied in part: the [`Backend`] contract makes every batch atomic, and this wrapper keeps
//! to it, so what it tests is the store's use of batches, not a torn write.
//!
//! ```
//! use sortpath_store::backend::{memory::MemoryBackend, Backend, Key};
//! use sortpath_store::conformance::faulty::{Fault, FaultyBackend};
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let db = FaultyBackend::new(MemoryBackend::new());
//! db.fail_at(1, Fault::Error);
//! assert!(db.get(Key::new(vec![1], vec![1])).await.is_ok()); // call 0
//! assert!(db.get(Key::new(vec![1], vec![1])).await.is_err()); // call 1: injected
//! assert!(db.fired());
//! assert!(db.get(Key::new(vec![1], vec![1])).await.is_ok()); // one fault per arming
//! # });
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::backend::{Backend, BackendError, Entry, Key, Record, Scan, Write};

/// How the armed call fails.
///
/// ```
/// assert_ne!(sortpath_store::conformance::faulty::Fault::Error,
///            sortpath_store::conformance::faulty::Fault::AckLost);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The call fails without reaching the wrapped backend: nothing is read or written.
    Error,
    /// A `write` is applied by the wrapped backend, then reported as failed. (A read call
    /// fails as with [`Fault::Error`]; a write the wrapped backend rejects returns its own
    /// error and does not count as fired.)
    AckLost,
}

/// The error an injected fault returns (inside [`BackendError::Storage`]).
///
/// ```
/// let e = sortpath_store::conformance::faulty::InjectedFault { call: 3 };
/// assert_eq!(e.to_string(), "injected fault at backend call 3");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("injected fault at backend call {call}")]
pub struct InjectedFault {
    /// The number of the call that failed.
    pub call: u64,
}

#[derive(Debug, Default)]
struct State {
    calls: AtomicU64,
    armed: Mutex<Option<(u64, Fault)>>,
    fired: AtomicBool,
}

/// A backend that fails the call it is told to (see the [module](self)). Cloning shares
/// the wrapped backend and the fault plan.
///
/// ```
/// use sortpath_store::backend::memory::MemoryBackend;
/// use sortpath_store::conformance::faulty::FaultyBackend;
/// let db = FaultyBackend::new(MemoryBackend::new());
/// assert_eq!(db.calls(), 0);
/// assert!(db.inner().is_empty());
/// ```
#[derive(Debug, Clone)]
pub struct FaultyBackend<B> {
    inner: B,
    state: Arc<State>,
}

impl<B: Backend> FaultyBackend<B> {
    /// Wraps `inner`, unarmed.
    ///
    /// ```
    /// let db = sortpath_store::conformance::faulty::FaultyBackend::new(
    ///     sortpath_store::backend::memory::MemoryBackend::new());
    /// assert!(!db.fired());
    /// ```
    pub fn new(inner: B) -> Self {
        FaultyBackend {
            inner,
            state: Arc::default(),
        }
    }

    /// The wrapped backend (calls to it are neither counted nor failed).
    ///
    /// ```
    /// let db = sortpath_store::conformance::faulty::FaultyBackend::new(
    ///     sortpath_store::backend::memory::MemoryBackend::new());
    /// assert_eq!(db.inner().len(), 0);
    /// ```
    pub fn inner(&self) -> &B {
        &self.inner
    }

    /// How many calls were made so far.
    ///
    /// ```
    /// # use sortpath_store::backend::{memory::MemoryBackend, Backend};
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let db = sortpath_store::conformance::faulty::FaultyBackend::new(MemoryBackend::new());
    /// db.write(vec![]).await.unwrap();
    /// assert_eq!(db.calls(), 1);
    /// # });
    /// ```
    pub fn calls(&self) -> u64 {
        self.state.calls.load(Ordering::SeqCst)
    }

    /// Arms a fault: call number `call` (counted from 0 since [`FaultyBackend::new`]) fails
    /// as `fault` says. Clears [`FaultyBackend::fired`].
    ///
    /// ```
    /// use sortpath_store::conformance::faulty::{Fault, FaultyBackend};
    /// let db = FaultyBackend::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// db.fail_at(0, Fault::AckLost);
    /// ```
    pub fn fail_at(&self, call: u64, fault: Fault) {
        *self.lock() = Some((call, fault));
        self.state.fired.store(false, Ordering::SeqCst);
    }

    /// Disarms: no further call fails.
    ///
    /// ```
    /// use sortpath_store::conformance::faulty::{Fault, FaultyBackend};
    /// let db = FaultyBackend::new(sortpath_store::backend::memory::MemoryBackend::new());
    /// db.fail_at(0, Fault::Error);
    /// db.disarm();
    /// ```
    pub fn disarm(&self) {
        *self.lock() = None;
    }

    /// Whether the armed fault was injected.
    ///
    /// ```
    /// let db = sortpath_store::conformance::faulty::FaultyBackend::new(
    ///     sortpath_store::backend::memory::MemoryBackend::new());
    /// assert!(!db.fired());
    /// ```
    pub fn fired(&self) -> bool {
        self.state.fired.load(Ordering::SeqCst)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(u64, Fault)>> {
        self.state.armed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Numbers this call; returns the fault to inject in it, if any (and disarms).
    fn next_call(&self) -> Option<(u64, Fault)> {
        let call = self.state.calls.fetch_add(1, Ordering::SeqCst);
        let mut armed = self.lock();
        match *armed {
            Some((at, fault)) if at == call => {
                *armed = None;
                Some((call, fault))
            }
            _ => None,
        }
    }

    fn inject(&self, call: u64) -> BackendError {
        self.state.fired.store(true, Ordering::SeqCst);
        BackendError::storage(InjectedFault { call })
    }
}

impl<B: Backend> Backend for FaultyBackend<B> {
    fn shared_by_processes(&self) -> bool {
        self.inner.shared_by_processes()
    }

    async fn groups(&self, from: u8) -> Result<Vec<Vec<u8>>, BackendError> {
        match self.next_call() {
            Some((call, _)) => Err(self.inject(call)),
            None => self.inner.groups(from).await,
        }
    }

    async fn get(&self, key: Key) -> Result<Option<Record>, BackendError> {
        match self.next_call() {
            Some((call, _)) => Err(self.inject(call)),
            None => self.inner.get(key).await,
        }
    }

    async fn batch_get(&self, keys: Vec<Key>) -> Result<Vec<Option<Record>>, BackendError> {
        match self.next_call() {
            Some((call, _)) => Err(self.inject(call)),
            None => self.inner.batch_get(keys).await,
        }
    }

    async fn scan(&self, scan: Scan) -> Result<Vec<Entry>, BackendError> {
        match self.next_call() {
            Some((call, _)) => Err(self.inject(call)),
            None => self.inner.scan(scan).await,
        }
    }

    async fn write(&self, writes: Vec<Write>) -> Result<(), BackendError> {
        match self.next_call() {
            Some((call, Fault::Error)) => Err(self.inject(call)),
            Some((call, Fault::AckLost)) => {
                self.inner.write(writes).await?;
                Err(self.inject(call))
            }
            None => self.inner.write(writes).await,
        }
    }
}
