//! The zips of one request, read within one budget ([`Unpacking`]: entries and unpacked
//! bytes counted across all of them), each entry asked first whether it may be read at all
//! ([`zip_entry_problem`]: no `..`, no absolute path, no symbolic link). It knows nothing of
//! batches: [`read_zip`] is given which names it wants.

use std::io::{Cursor, Read};

use sandbox::MAX_MODULE_BYTES;

use crate::error::{CourseError, CourseResult};
use crate::hand_in::{BatchFile, ModuleSource, SharedBytes, entry_name};

/// The most entries the zips of one request may have together: a class of 1,000 with a
/// few files each is far below.
pub const MAX_ZIP_ENTRIES: usize = 10_000;

/// The most bytes the zips of one request (an upload, or the command line's zip) may
/// unpack to, every entry that is unpacked counted (a module measured, a roster or a
/// problem's file written, an entry over the size limit as far as it was read): defends
/// against zip bombs, several in one request included. A class of 1,000 with modules of
/// some hundreds of KiB each is far below. Entries that are not unpacked (a student's
/// PDF beside their source) cost nothing and do not count.
pub const MAX_ZIP_UNPACKED_BYTES: u64 = 1 << 30;

/// What the zips of one request may still unpack ([`MAX_ZIP_UNPACKED_BYTES`]) and list
/// ([`MAX_ZIP_ENTRIES`]). Every entry is streamed through [`Unpacking::unpack`] into where it
/// goes (nowhere, to measure it; a file): none is ever held unpacked whole.
pub struct Unpacking {
    bytes_left: u64,
    entries_left: usize,
}

impl Default for Unpacking {
    fn default() -> Unpacking {
        Unpacking::new()
    }
}

/// Why a zip cannot be opened, in words that say what to do.
pub(crate) fn zip_problem(error: &zip::result::ZipError) -> String {
    match error {
        zip::result::ZipError::InvalidArchive(_) => {
            "it is cut short, or not a zip at all (another kind of file named .zip): make the zip again and upload it".to_owned()
        }
        zip::result::ZipError::UnsupportedArchive(what) => {
            format!("it is a kind of zip that cannot be opened here ({what}): make it again with your system's own zip tool, without a password")
        }
        other => other.to_string(),
    }
}

impl Unpacking {
    /// The budget of one request.
    pub fn new() -> Unpacking {
        Unpacking { bytes_left: MAX_ZIP_UNPACKED_BYTES, entries_left: MAX_ZIP_ENTRIES }
    }

    /// Opens a zip held in memory, its entries counted against the request's.
    pub fn open(&mut self, bytes: SharedBytes) -> CourseResult<zip::ZipArchive<Cursor<SharedBytes>>> {
        let zip = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| CourseError::Batch(zip_problem(&e)))?;
        self.entries_left = self.entries_left.checked_sub(zip.len()).ok_or_else(|| {
            CourseError::Batch(format!("it has {} entries, more than the {MAX_ZIP_ENTRIES} the zips of one upload may have together", zip.len()))
        })?;
        Ok(zip)
    }

    /// Streams `entry` into `to`, writing at most `limit` bytes, and returns its size; a
    /// size over `limit` means the entry is larger (reading stopped one byte past it).
    /// Every byte read is taken from the budget; past it, an error.
    pub fn unpack(&mut self, entry: &mut impl Read, limit: u64, to: &mut impl std::io::Write) -> CourseResult<u64> {
        let mut entry = entry.take(limit.saturating_add(1));
        let mut buffer = vec![0u8; 64 << 10];
        let mut size = 0u64;
        loop {
            let n = match entry.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(CourseError::Io { what: "cannot unpack a zip entry".to_owned(), error: e }),
            };
            let kept = limit.saturating_sub(size).min(n as u64) as usize;
            to.write_all(&buffer[..kept]).map_err(CourseError::io("cannot write an unpacked zip entry"))?;
            size += n as u64;
            if size > self.bytes_left {
                return Err(CourseError::Batch(format!("the zips of this upload unpack to more than {MAX_ZIP_UNPACKED_BYTES} bytes")));
            }
        }
        self.bytes_left -= size;
        Ok(size)
    }
}

/// Lists the entries of a zip held in memory that a batch is made of (those whose names
/// `wanted` takes: modules, sources and headers for a batch), to be unpacked when each is
/// loaded. Entries with `..` or absolute paths, and
/// files over the module size limit, come back as errors to report; directories and other
/// files are skipped. Each entry kept is unpacked once here, into nothing, to measure it,
/// through the request's `unpacking`; past its budget the whole zip is an error.
pub fn read_zip(zip: &zip::ZipArchive<Cursor<SharedBytes>>, unpacking: &mut Unpacking, wanted: &dyn Fn(&str) -> bool) -> CourseResult<Vec<BatchFile>> {
    let mut zip = zip.clone();
    let mut files = Vec::new();
    for index in 0..zip.len() {
        let mut entry = zip.by_index(index).map_err(|e| CourseError::Batch(e.to_string()))?;
        let name = entry_name(&entry);
        if entry.is_dir() {
            continue;
        }
        if let Some(problem) = zip_entry_problem(&entry) {
            files.push((name.clone(), Err(problem)));
            continue;
        }
        if !wanted(&name) {
            continue;
        }
        let size = unpacking.unpack(&mut entry, MAX_MODULE_BYTES as u64, &mut std::io::sink())?;
        drop(entry);
        if size > MAX_MODULE_BYTES as u64 {
            files.push((name.clone(), Err(format!("{name}: larger than {MAX_MODULE_BYTES} bytes, the most a module or source file may have"))));
            continue;
        }
        files.push((name, Ok(ModuleSource::Zipped { zip: zip.clone(), index })));
    }
    Ok(files)
}

/// Why a zip's entry is not read, if it is not: a path that could write outside the folder
/// it is unpacked in ([`is_unsafe_path`]), or a symbolic link (its bytes are a path on the
/// machine it was zipped on, never a file of the upload). Every reader of an uploaded zip
/// asks this first: batches, rosters in them and problem bundles.
pub fn zip_entry_problem(entry: &zip::read::ZipFile<'_, impl Read>) -> Option<String> {
    let name = entry_name(entry);
    // (Either reading of the name: `/`, `\`, `:` and `..` are the same bytes in both.)
    if is_unsafe_path(&name) || is_unsafe_path(entry.name()) {
        return Some(format!("{name}: unsafe path in zip (absolute or with `..`)"));
    }
    if entry.is_symlink() {
        return Some(format!("{name}: a symbolic link in the zip, not a file: zip the file itself"));
    }
    None
}

/// True for a zip entry name that could write outside the folder it is unpacked in:
/// absolute, with a drive letter, or with a `..` component.
pub fn is_unsafe_path(name: &str) -> bool {
    name.starts_with('/') || name.starts_with('\\') || name.contains(':') || name.split(['/', '\\']).any(|part| part == "..")
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_zip_that_cannot_be_opened_is_said_in_plain_words() {
        let refused = Unpacking::new().open(SharedBytes(Arc::new(b"PK\x03\x04 cut short".to_vec()))).err().unwrap().to_string();
        assert!(refused.contains("cut short, or not a zip at all") && !refused.contains("EOCD"), "{refused}");
    }

    pub(crate) fn shared(bytes: &[u8]) -> SharedBytes {
        SharedBytes(Arc::new(bytes.to_vec()))
    }

    pub(crate) fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, bytes) in entries {
            out.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
            std::io::Write::write_all(&mut out, bytes).unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    /// A budget of `bytes` and `entries`, for tests.
    fn budget(bytes: u64, entries: usize) -> Unpacking {
        Unpacking { bytes_left: bytes, entries_left: entries }
    }

    /// The `.wasm` entries of `zip`, read within `unpacking`.
    fn read(zip: &[u8], unpacking: &mut Unpacking) -> CourseResult<Vec<BatchFile>> {
        let zip = unpacking.open(shared(zip))?;
        read_zip(&zip, unpacking, &|name| name.ends_with(".wasm"))
    }

    #[test]
    fn the_zips_of_one_batch_share_one_unpacked_budget() {
        let zip = zip_of(&[("a.wasm", &[0u8; 100]), ("b.wasm", &[0u8; 100])]);
        let mut unpacking = budget(300, 10);
        assert_eq!(read(&zip, &mut unpacking).unwrap().len(), 2);
        assert_eq!(unpacking.bytes_left, 100);
        let error = read(&zip, &mut unpacking).unwrap_err();
        assert!(error.to_string().contains("unpack to more than"), "{error}");
    }

    #[test]
    fn the_zips_of_one_batch_share_one_count_of_entries() {
        let zip = zip_of(&[("a.wasm", &[0u8; 1]), ("notes.txt", b"x"), ("b.wasm", &[0u8; 1])]);
        let mut unpacking = budget(1 << 20, 5);
        assert_eq!(read(&zip, &mut unpacking).unwrap().len(), 2);
        let error = read(&zip, &mut unpacking).unwrap_err();
        assert!(error.to_string().contains("the zips of one upload may have"), "{error}");
    }

    #[test]
    fn an_entry_over_the_module_limit_is_rejected_and_counted_as_far_as_it_was_read() {
        let huge = vec![0u8; MAX_MODULE_BYTES + 1];
        let zip = zip_of(&[("huge.wasm", &huge), ("a.wasm", &[0u8; 10])]);
        let mut unpacking = budget(MAX_MODULE_BYTES as u64 + 100, 10);
        let files = read(&zip, &mut unpacking).unwrap();
        assert!(files[0].1.as_ref().err().unwrap().contains("larger than"));
        assert_eq!(*files[1].1.as_ref().ok().unwrap().read().unwrap(), [0u8; 10], "read when asked for");
        assert_eq!(unpacking.bytes_left, 100 - 1 - 10);
    }

    #[test]
    fn unpacking_writes_at_most_the_limit_and_says_the_size_read() {
        let mut unpacking = budget(1 << 20, 1);
        let mut out = Vec::new();
        assert_eq!(unpacking.unpack(&mut &[7u8; 100][..], 10, &mut out).unwrap(), 11, "one byte past the limit");
        assert_eq!(out, [7u8; 10]);
        let mut out = Vec::new();
        assert_eq!(unpacking.unpack(&mut &[7u8; 100][..], 1000, &mut out).unwrap(), 100);
        assert_eq!(out.len(), 100);
    }
}
