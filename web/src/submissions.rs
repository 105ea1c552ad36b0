//! A batch of submissions: a directory or a zip of modules, and a roster.
//!
//! Bad input never stops the batch: every file that cannot be used is listed as
//! [`Rejected`] with the reason, and the rest is graded.

use std::collections::BTreeMap;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use rayon::prelude::*;
use sandbox::{MAX_MODULE_BYTES, Program, Role, Sandbox};
use serde::{Deserialize, Serialize};

/// The most entries a zip may have: a class of 300 with a few files each is far below.
pub const MAX_ZIP_ENTRIES: usize = 10_000;

/// The most bytes the modules of all zips of one batch (one upload) may unpack to:
/// defends against zip bombs, several in one upload included. A class of 1,000 with
/// modules of some hundreds of KiB each is far below; an entry over the module size limit
/// is rejected without being kept, and does not count.
pub const MAX_ZIP_UNPACKED_BYTES: u64 = 1 << 30;

/// A file of the batch that is not graded, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rejected {
    pub file: String,
    pub reason: String,
}

/// One submission that loaded (`P`: its program, or `()` when only checked).
pub struct Submission<P = Program> {
    /// The file name without its extension.
    pub id: String,
    /// The file it came from (a path, inside a zip).
    pub file: String,
    pub program: P,
}

/// A row of the roster: `id,cohort` and optionally `manual`; other columns are kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RosterRow {
    pub id: String,
    pub cohort: String,
    pub manual: Option<f64>,
    pub extra: BTreeMap<String, String>,
}

pub struct Batch<P = Program> {
    /// Sorted by id.
    pub submissions: Vec<Submission<P>>,
    pub rejected: Vec<Rejected>,
}

/// A file of the batch by name, with where its bytes are or why they cannot be used.
pub type ModuleFile = (String, Result<ModuleSource, String>);

/// Where a module's bytes are. They are read only when the module is loaded, a few at a
/// time, so that a batch (a class of 1,000, or zips near [`MAX_ZIP_UNPACKED_BYTES`]) is
/// never held unpacked all at once.
#[derive(Clone)]
pub enum ModuleSource {
    /// A file of a directory of submissions.
    File(PathBuf),
    /// Bytes given as they are (an uploaded module).
    Bytes(SharedBytes),
    /// An entry of a zip held in memory, still compressed. Its unpacked size was checked
    /// when the zip was read ([`read_zip`]).
    Zipped { zip: zip::ZipArchive<Cursor<SharedBytes>>, index: usize },
}

impl std::fmt::Debug for ModuleSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModuleSource::File(path) => write!(f, "File({})", path.display()),
            ModuleSource::Bytes(bytes) => write!(f, "Bytes({} bytes)", bytes.0.len()),
            ModuleSource::Zipped { index, .. } => write!(f, "Zipped(entry {index})"),
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
                entry.by_ref().take(MAX_MODULE_BYTES as u64).read_to_end(&mut bytes).map_err(|e| format!("{}: {e}", entry.name()))?;
                Ok(bytes.into())
            }
        }
    }
}

/// True for the file names that are modules: `.wasm` binaries and `.wat` text.
pub fn module_id(file_name: &str) -> Option<&str> {
    file_name.strip_suffix(".wasm").or_else(|| file_name.strip_suffix(".wat")).filter(|id| !id.is_empty())
}

impl Batch {
    /// Loads every `.wasm` and `.wat` file of a directory (not recursively) or a zip.
    /// Other files (sources beside the modules, say) are left alone.
    pub fn load(sandbox: &Sandbox, path: &Path) -> anyhow::Result<Batch> {
        let files = if path.is_dir() {
            read_module_dir(path)?
        } else {
            let bytes = std::fs::read(path).with_context(|| format!("cannot open {}", path.display()))?;
            read_zip(SharedBytes(Arc::new(bytes)), &mut { MAX_ZIP_UNPACKED_BYTES })
                .with_context(|| format!("{} is not a readable zip", path.display()))?
        };
        Ok(Batch::from_files(sandbox, &files))
    }

    /// Compiles `files` (names may be paths inside a zip); the module name without its
    /// extension is the submission's id. Of two files giving the same id, the first by
    /// name is taken.
    pub fn from_files(sandbox: &Sandbox, files: &[ModuleFile]) -> Batch {
        Batch::of(files, |name, bytes| sandbox.load(name, bytes, Role::Answer))
    }
}

impl Batch<()> {
    /// [`Batch::from_files`] without compiling ([`Sandbox::check`]): what would load and
    /// what would be rejected, in milliseconds per module (an upload of 1,000 is checked in
    /// seconds; the analysis compiles them).
    pub fn checked(sandbox: &Sandbox, files: &[ModuleFile]) -> Batch<()> {
        Batch::of(files, |name, bytes| sandbox.check(name, bytes, Role::Answer))
    }
}

impl<P: Send> Batch<P> {
    fn of(files: &[ModuleFile], load: impl Fn(&str, &[u8]) -> Result<P, sandbox::SandboxError> + Sync) -> Batch<P> {
        let mut files: Vec<&ModuleFile> = files.iter().collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));

        // Compiling is the slow part of loading: modules compile in parallel.
        let loaded: Vec<(&str, Result<P, String>)> = files
            .into_par_iter()
            .map(|(name, source)| {
                let program = source
                    .as_ref()
                    .map_err(Clone::clone)
                    .and_then(ModuleSource::read)
                    .and_then(|bytes| load(name, &bytes).map_err(|e| e.to_string()));
                (name.as_str(), program)
            })
            .collect();
        let mut batch = Batch { submissions: Vec::new(), rejected: Vec::new() };
        for (name, loaded) in loaded {
            let file = name.to_owned();
            let Some(id) = module_id(base_name(name)).map(str::to_owned) else {
                // Paths that are not modules arrive here only when unsafe, with the reason.
                if let Err(reason) = loaded {
                    batch.rejected.push(Rejected { file, reason });
                }
                continue;
            };
            match loaded {
                Err(reason) => batch.rejected.push(Rejected { file, reason }),
                Ok(_) if batch.submissions.iter().any(|s| s.id == id) => batch.rejected.push(Rejected {
                    reason: format!("{name}: another file already gives submission `{id}`"),
                    file,
                }),
                Ok(program) => batch.submissions.push(Submission { id, file, program }),
            }
        }
        batch.submissions.sort_by(|a, b| natural_cmp(&a.id, &b.id));
        batch
    }
}

/// The module files (`.wasm`, `.wat`) of a directory, not recursively (read when loaded);
/// a symbolic link or a directory with a module's name is listed with why it is not read.
pub fn read_module_dir(path: &Path) -> anyhow::Result<Vec<ModuleFile>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).with_context(|| format!("cannot read {}", path.display()))? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if module_id(&name).is_none() {
            continue;
        }
        let kind = entry.file_type()?;
        let source = if kind.is_file() {
            Ok(ModuleSource::File(entry.path()))
        } else if kind.is_symlink() {
            Err(format!("{name} is a symbolic link, which is not followed: put the module itself in the directory"))
        } else {
            Err(format!("{name} is not a file (a directory?): not a module"))
        };
        files.push((name, source));
    }
    Ok(files)
}

/// Orders ids as people do: digit runs by their value, so `A2` comes before `A10`.
pub fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out: Vec<(bool, &str)> = Vec::new();
        let mut start = 0;
        for (i, c) in s.char_indices().skip(1) {
            let prev = s[..i].chars().next_back().is_some_and(|p| p.is_ascii_digit());
            if prev != c.is_ascii_digit() {
                out.push((prev, &s[start..i]));
                start = i;
            }
        }
        if !s.is_empty() {
            out.push((s[start..].starts_with(|c: char| c.is_ascii_digit()), &s[start..]));
        }
        out
    }
    let key = |(digits, text): &(bool, &str)| {
        let trimmed = if *digits { text.trim_start_matches('0') } else { text };
        (!digits, if *digits { trimmed.len() } else { 0 }, trimmed.to_owned())
    };
    let (ca, cb) = (chunks(a), chunks(b));
    ca.iter().map(key).cmp(cb.iter().map(key)).then_with(|| a.cmp(b))
}

/// The last component of a `/`-separated path.
pub fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Lists the module entries of a zip held in memory, to be unpacked when each is loaded.
/// Entries with `..` or absolute paths, and modules over the size limit, come back as
/// errors to report; directories and non-module files are skipped. Each entry is unpacked
/// once here, into nothing, to measure it: the modules kept are taken from `budget`
/// (bytes), shared by the zips of one batch, and past it the whole zip is an error.
pub fn read_zip(zip: SharedBytes, budget: &mut u64) -> anyhow::Result<Vec<ModuleFile>> {
    let mut zip = zip::ZipArchive::new(Cursor::new(zip))?;
    anyhow::ensure!(zip.len() <= MAX_ZIP_ENTRIES, "it has {} entries, more than {MAX_ZIP_ENTRIES}", zip.len());
    let mut files = Vec::new();
    for index in 0..zip.len() {
        let mut entry = zip.by_index(index)?;
        let name = entry.name().to_owned();
        if entry.is_dir() {
            continue;
        }
        if is_unsafe_path(&name) {
            files.push((name.clone(), Err(format!("{name}: unsafe path in zip (absolute or with `..`)"))));
            continue;
        }
        if module_id(base_name(&name)).is_none() {
            continue;
        }
        let limit = MAX_MODULE_BYTES as u64 + 1;
        let size = std::io::copy(&mut entry.by_ref().take(limit), &mut std::io::sink())?;
        drop(entry);
        if size > MAX_MODULE_BYTES as u64 {
            files.push((name.clone(), Err(format!("{name}: larger than {MAX_MODULE_BYTES} bytes, the most a module may have"))));
            continue;
        }
        *budget = budget.checked_sub(size).context(format!(
            "the zips of this batch unpack to more than {MAX_ZIP_UNPACKED_BYTES} bytes of modules"
        ))?;
        files.push((name, Ok(ModuleSource::Zipped { zip: zip.clone(), index })));
    }
    Ok(files)
}

/// True for a zip entry name that could write outside the folder it is unpacked in:
/// absolute, with a drive letter, or with a `..` component.
pub fn is_unsafe_path(name: &str) -> bool {
    name.starts_with('/') || name.starts_with('\\') || name.contains(':') || name.split(['/', '\\']).any(|part| part == "..")
}

/// Reads a roster file. Lines that cannot be used are returned as rejections naming the line.
pub fn read_roster(path: &Path) -> anyhow::Result<(Vec<RosterRow>, Vec<Rejected>)> {
    let file = std::fs::File::open(path).with_context(|| format!("cannot read roster {}", path.display()))?;
    parse_roster(&path.display().to_string(), file)
}

/// Reads a roster named `file_name` (for messages) from `input`.
pub fn parse_roster(file_name: &str, input: impl Read) -> anyhow::Result<(Vec<RosterRow>, Vec<Rejected>)> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).trim(csv::Trim::All).from_reader(input);
    let headers: Vec<String> =
        reader.headers().with_context(|| format!("{file_name} cannot be read as CSV"))?.iter().map(str::to_owned).collect();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let (Some(id_col), Some(cohort_col)) = (column("id"), column("cohort")) else {
        anyhow::bail!("{file_name}: the header must name the columns `id` and `cohort` (found: {})", headers.join(","));
    };
    let manual_col = column("manual");
    let mut rows: Vec<RosterRow> = Vec::new();
    let mut rejected = Vec::new();
    for record in reader.records() {
        let record = record.with_context(|| format!("{file_name} cannot be read as CSV"))?;
        let line = record.position().map_or(0, |p| p.line());
        let reject = |reason: String| Rejected { file: format!("{file_name}:{line}"), reason };
        if record.len() != headers.len() {
            rejected.push(reject(format!(
                "{file_name} line {line}: expected {} fields ({}), found {}",
                headers.len(),
                headers.join(","),
                record.len()
            )));
            continue;
        }
        let id = record[id_col].to_owned();
        let manual = match manual_col.map(|c| &record[c]).filter(|m| !m.is_empty()) {
            None => None,
            Some(text) => match text.parse::<f64>() {
                Ok(grade) if grade.is_finite() => Some(grade),
                _ => {
                    rejected.push(reject(format!("{file_name} line {line}: manual grade `{text}` is not a number")));
                    continue;
                }
            },
        };
        if id.is_empty() {
            rejected.push(reject(format!("{file_name} line {line}: the id is empty")));
        } else if rows.iter().any(|r| r.id == id) {
            rejected.push(reject(format!("{file_name} line {line}: `{id}` is listed twice")));
        } else {
            let extra = headers
                .iter()
                .enumerate()
                .filter(|&(c, _)| c != id_col && c != cohort_col && Some(c) != manual_col)
                .map(|(c, h)| (h.clone(), record[c].to_owned()))
                .collect();
            rows.push(RosterRow { id, cohort: record[cohort_col].to_owned(), manual, extra });
        }
    }
    Ok((rows, rejected))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_with_numbers_by_value() {
        let mut ids = vec!["A10", "A2", "A1", "a01", "A0", "b", "A16", "s3x", "s10x"];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(ids, ["A0", "A1", "A2", "A10", "A16", "a01", "b", "s3x", "s10x"]);
    }

    fn shared(bytes: &[u8]) -> SharedBytes {
        SharedBytes(Arc::new(bytes.to_vec()))
    }

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, bytes) in entries {
            out.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
            std::io::Write::write_all(&mut out, bytes).unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    #[test]
    fn the_zips_of_one_batch_share_one_unpacked_budget() {
        let zip = zip_of(&[("a.wasm", &[0u8; 100]), ("b.wasm", &[0u8; 100])]);
        let mut budget = 300;
        assert_eq!(read_zip(shared(&zip), &mut budget).unwrap().len(), 2);
        assert_eq!(budget, 100);
        let error = read_zip(shared(&zip), &mut budget).unwrap_err();
        assert!(error.to_string().contains("unpack to more than"), "{error}");
    }

    #[test]
    fn an_entry_over_the_module_limit_is_rejected_without_being_counted() {
        let huge = vec![0u8; MAX_MODULE_BYTES + 1];
        let zip = zip_of(&[("huge.wasm", &huge), ("a.wasm", &[0u8; 10])]);
        let mut budget = 100;
        let files = read_zip(shared(&zip), &mut budget).unwrap();
        assert!(files[0].1.as_ref().err().unwrap().contains("larger than"));
        assert_eq!(*files[1].1.as_ref().ok().unwrap().read().unwrap(), [0u8; 10], "read when asked for");
        assert_eq!(budget, 90);
    }
}
