//! What one student hands in, before it is loaded: a module or a folder of sources, read
//! only when needed ([`ModuleSource`]), and what loading it gives ([`Loaded`]). Also how a
//! module is named by its bytes (its SHA-256 in hex: the store's file name, an answer's
//! version).

use std::io::{Cursor, Read};
use std::path::PathBuf;
use std::sync::Arc;

use grader::Build;
use sandbox::MAX_MODULE_BYTES;
use sha2::{Digest, Sha256};

/// A file of the batch by name, with where its bytes are or why they cannot be used.
pub type BatchFile = (String, Result<ModuleSource, String>);

/// What one student handed in, found in a batch and not yet loaded.
#[derive(Clone, Debug)]
pub struct HandIn {
    /// The student, when known (a file with an unsafe path has none).
    pub id: Option<String>,
    /// The file (a path, inside a zip), or the folder followed by `/`.
    pub file: String,
    pub what: Result<Handed, String>,
    /// Handed in after the deadline, as the platform it came from says (Canvas's `_LATE_`
    /// in a "Download Submissions" zip).
    pub late: bool,
}

/// A module, or the files of one student's sources (plain names: headers included).
#[derive(Clone, Debug)]
pub enum Handed {
    Module(ModuleSource),
    Sources(Vec<(String, ModuleSource)>),
}

/// Where a module's bytes are. They are read only when the module is loaded, a few at a
/// time, so that a batch (a class of 1,000, or zips near [`MAX_ZIP_UNPACKED_BYTES`](crate::zips::MAX_ZIP_UNPACKED_BYTES)) is
/// never held unpacked all at once.
#[derive(Clone)]
pub enum ModuleSource {
    /// A file of a directory of submissions.
    File(PathBuf),
    /// Bytes given as they are (an uploaded module).
    Bytes(SharedBytes),
    /// An entry of a zip held in memory, still compressed. Its unpacked size was checked
    /// when the zip was read ([`read_zip`](crate::zips::read_zip)).
    Zipped { zip: zip::ZipArchive<Cursor<SharedBytes>>, index: usize },
    /// Bytes its owner fetches when the module is loaded (the service's store), or why
    /// they cannot be.
    Fetched(Arc<dyn Fn() -> Result<Vec<u8>, String> + Send + Sync>),
}

impl std::fmt::Debug for ModuleSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModuleSource::File(path) => write!(f, "File({})", path.display()),
            ModuleSource::Bytes(bytes) => write!(f, "Bytes({} bytes)", bytes.0.len()),
            ModuleSource::Zipped { index, .. } => write!(f, "Zipped(entry {index})"),
            ModuleSource::Fetched(_) => write!(f, "Fetched"),
        }
    }
}

/// Bytes shared without copying: an uploaded file, or a zip whose entries are read later.
#[derive(Clone)]
pub struct SharedBytes(pub Arc<Vec<u8>>);

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl ModuleSource {
    /// The module's bytes (uploaded ones are not copied); the error says why they cannot
    /// be read.
    pub fn read(&self) -> Result<std::borrow::Cow<'_, [u8]>, String> {
        match self {
            ModuleSource::File(path) => std::fs::read(path).map(Into::into).map_err(|e| format!("cannot read {}: {e}", path.display())),
            ModuleSource::Bytes(bytes) => Ok(bytes.0.as_slice().into()),
            ModuleSource::Zipped { zip, index } => {
                let mut zip = zip.clone();
                let mut entry = zip.by_index(*index).map_err(|e| e.to_string())?;
                let mut bytes = Vec::with_capacity(entry.size().min(MAX_MODULE_BYTES as u64) as usize);
                entry.by_ref().take(MAX_MODULE_BYTES as u64).read_to_end(&mut bytes).map_err(|e| format!("{}: {e}", entry_name(&entry)))?;
                Ok(bytes.into())
            }
            ModuleSource::Fetched(fetch) => fetch().map(Into::into),
        }
    }
}

/// What loading one hand-in gave.
pub enum Loaded<P> {
    Program(P, Option<Build>),
    NotBuilt(Build),
}

/// Lower-case hexadecimal of `bytes` (a module's SHA-256, as stored and shown).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The hex SHA-256 of `bytes`: a module's name in the service's store.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// A zip entry's name as its writer meant it: UTF-8 when the zip says so (its flag, or
/// Info-ZIP's Unicode path field), and also when its bytes are UTF-8 without the flag, as
/// Canvas and many other tools write them (`garcíajosé_1003_…` read as the format's old
/// default, CP437, is `garcÃ­ajosÃ©_1003_…`); else CP437, as the format says. (A name in
/// CP437 with letters beyond ASCII is almost never valid UTF-8: `é` is one byte, 0x82.)
pub fn entry_name(entry: &zip::read::ZipFile<'_, impl Read>) -> String {
    match std::str::from_utf8(entry.name_raw()) {
        Ok(name) => name.to_owned(),
        Err(_) => entry.name().to_owned(),
    }
}
