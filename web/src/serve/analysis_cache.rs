//! Finished analyses read from their `analysis.json`, kept in memory for the pages that
//! read them again (a released class's students opening their bug lists), within
//! [`MAX_CACHED_ANALYSIS_BYTES`]: the least recently read go first.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use grader::Analysis;

/// The most bytes of `analysis.json` the cache keeps read (a parsed analysis holds about
/// as much as its file spells). A class of 167 Python hand-ins' analysis is 0.5 MB, so a
/// class of 1,000's some 3 MB: 128 MiB keeps some forty of the largest, while a service
/// whose instructors looked at every analysis since the term began does not hold them all.
pub const MAX_CACHED_ANALYSIS_BYTES: usize = 128 << 20;

/// Analyses by id, with the bytes each counts for and when it was last read.
pub struct AnalysisCache<T = Analysis> {
    inner: Mutex<Entries<T>>,
    limit: usize,
}

struct Entries<T> {
    kept: HashMap<i64, Entry<T>>,
    bytes: usize,
    /// Counts reads: an entry's `read` is the count at its last.
    reads: u64,
}

struct Entry<T> {
    analysis: Arc<T>,
    bytes: usize,
    read: u64,
}

impl<T> Default for AnalysisCache<T> {
    fn default() -> Self {
        AnalysisCache::with_limit(MAX_CACHED_ANALYSIS_BYTES)
    }
}

impl<T> AnalysisCache<T> {
    /// A cache of at most `limit` bytes (the default: [`MAX_CACHED_ANALYSIS_BYTES`]).
    pub fn with_limit(limit: usize) -> AnalysisCache<T> {
        AnalysisCache { inner: Mutex::new(Entries { kept: HashMap::new(), bytes: 0, reads: 0 }), limit }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries<T>> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Analysis `id` if it is kept (it then counts as read last).
    pub fn get(&self, id: i64) -> Option<Arc<T>> {
        let mut entries = self.entries();
        entries.reads += 1;
        let now = entries.reads;
        let entry = entries.kept.get_mut(&id)?;
        entry.read = now;
        Some(entry.analysis.clone())
    }

    /// Keeps analysis `id`, read from `bytes` bytes of JSON, giving up the least recently
    /// read until it fits; one larger than the whole limit is not kept.
    pub fn keep(&self, id: i64, analysis: Arc<T>, bytes: usize) {
        let limit = self.limit;
        if bytes > limit {
            return;
        }
        let mut entries = self.entries();
        entries.reads += 1;
        let read = entries.reads;
        if let Some(old) = entries.kept.insert(id, Entry { analysis, bytes, read }) {
            entries.bytes -= old.bytes;
        }
        entries.bytes += bytes;
        while entries.bytes > limit {
            let oldest = entries.kept.iter().min_by_key(|(_, e)| e.read).map(|(&id, _)| id).expect("bytes are kept");
            let given_up = entries.kept.remove(&oldest).expect("found just above");
            entries.bytes -= given_up.bytes;
        }
    }

    /// Gives up analysis `id` (its batch was deleted).
    pub fn forget(&self, id: i64) {
        let mut entries = self.entries();
        if let Some(old) = entries.kept.remove(&id) {
            entries.bytes -= old.bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the cache keeps does not matter to it: a unit stands for an analysis.
    fn analysis() -> Arc<()> {
        Arc::new(())
    }

    /// Which of `ids` the cache still keeps.
    fn kept(cache: &AnalysisCache<()>, ids: &[i64]) -> Vec<i64> {
        ids.iter().copied().filter(|&id| cache.entries().kept.contains_key(&id)).collect()
    }

    #[test]
    fn the_least_recently_read_analysis_goes_first_when_the_bytes_pass_the_limit() {
        let cache = AnalysisCache::<()>::with_limit(100);
        cache.keep(1, analysis(), 40);
        cache.keep(2, analysis(), 40);
        assert!(cache.get(1).is_some());
        cache.keep(3, analysis(), 40);
        assert_eq!(kept(&cache, &[1, 2, 3]), [1, 3]);
        assert_eq!(cache.entries().bytes, 80);
    }

    #[test]
    fn an_analysis_larger_than_the_limit_is_not_kept_and_keeps_the_others() {
        let cache = AnalysisCache::<()>::with_limit(100);
        cache.keep(1, analysis(), 60);
        cache.keep(2, analysis(), 101);
        assert_eq!(kept(&cache, &[1, 2]), [1]);
    }

    #[test]
    fn a_forgotten_analysis_gives_its_bytes_back() {
        let cache = AnalysisCache::<()>::with_limit(100);
        cache.keep(1, analysis(), 60);
        cache.forget(1);
        cache.keep(2, analysis(), 90);
        assert_eq!(kept(&cache, &[1, 2]), [2]);
        assert!(cache.get(1).is_none());
    }
}
