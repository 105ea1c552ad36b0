//! A batch of submissions: a directory or a zip of modules and sources, and a roster.
//!
//! Each student hands in a module (`.wasm`, `.wat`), one source file (`.c`, `.cpp`, `.cc`,
//! `.cxx`, `.rs`) or a folder of sources with their headers ([`hand_ins`] says which files
//! are whose). Bad input never stops the batch: every file that cannot be used is listed
//! as [`Rejected`] with the reason, and the rest is graded. Sources that do not compile
//! are not rejected: the student is [`NotBuilt`], a result.

use std::collections::{BTreeMap, HashSet};
use std::io::{Cursor, Read};
use std::path::Path;
use std::sync::Arc;

use grader::Build;
use rayon::prelude::*;
use sandbox::{MAX_MODULE_BYTES, Program, Role, Sandbox};
use serde::{Deserialize, Serialize};
use toolchain::{Builder, Language};

use crate::error::{CourseError, CourseResult};
use crate::hand_in::{HandIn, Handed, Loaded, ModuleSource, SharedBytes, entry_name};

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
fn zip_problem(error: &zip::result::ZipError) -> String {
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

/// A file of the batch that is not graded, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rejected {
    pub file: String,
    pub reason: String,
    /// The student the file was for, when known.
    #[serde(skip)]
    pub id: Option<String>,
}

/// One submission that loaded (`P`: its program, or `()` when only checked).
pub struct Submission<P = Program> {
    /// The module's or source file's name without its extension, or the folder's name.
    pub id: String,
    /// The file it came from (a path, inside a zip), or the folder followed by `/`.
    pub file: String,
    pub program: P,
    /// How the program was built from sources (`None`: a module handed in as it is).
    pub build: Option<Build>,
}

/// A student whose sources did not compile: a result (they fail every test), not a
/// rejection.
pub struct NotBuilt {
    pub id: String,
    pub file: String,
    /// What the compiler said ([`Build::error`]).
    pub build: Build,
}

/// A row of the roster: `id,cohort` and optionally `manual`; other columns are kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RosterRow {
    pub id: String,
    pub cohort: String,
    /// The `manual` column as a number (it is also among `extra`, as written).
    pub manual: Option<f64>,
    /// Every column but `id` and `cohort`, as `(header, value)` in the roster's order
    /// (exports give them back in that order). Rows kept before the order was kept are read
    /// with their columns sorted by name.
    #[serde(deserialize_with = "columns_in_order")]
    pub extra: Vec<(String, String)>,
}

/// The roster's column of an instructor's change to a student's points: a number of
/// points, added (or, negative, taken away) after the points are computed.
pub const ADJUSTMENT_COLUMN: &str = "adjustment";

/// The roster's column of the reason for an adjustment, which the student reads.
pub const ADJUSTMENT_REASON_COLUMN: &str = "adjustment_reason";

/// An instructor's change to one student's points, with its reason. It belongs to the
/// batch's roster, so every analysis of the batch (a re-run included) keeps it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Adjustment {
    pub points: f64,
    pub reason: String,
}

impl RosterRow {
    /// The value of the roster's column `header`, if it has one.
    pub fn get(&self, header: &str) -> Option<&str> {
        self.extra.iter().find(|(h, _)| h == header).map(|(_, v)| v.as_str())
    }

    /// The student's name as the roster gives it: its `name`, or a platform export's
    /// (Canvas's `Student`, "Last, First"; Moodle's `First name` and `Last name`); `None`
    /// when it gives none.
    pub fn name(&self) -> Option<String> {
        let cell = |header: &str| self.get(header).map(str::trim).filter(|v| !v.is_empty());
        match (cell("name").or_else(|| cell("Student")), cell("First name"), cell("Last name")) {
            (Some(name), _, _) => Some(name.to_owned()),
            (None, Some(first), Some(last)) => Some(format!("{first} {last}")),
            (None, first, last) => first.or(last).map(str::to_owned),
        }
    }

    /// The student's email address as the roster gives it: its `email`, or Moodle's
    /// `Email address`; `None` when it gives none.
    pub fn email(&self) -> Option<&str> {
        ["email", "Email address"].iter().find_map(|header| self.get(header).map(str::trim).filter(|v| !v.is_empty()))
    }

    /// The instructor's adjustment of this student's points, if the roster gives one
    /// ([`ADJUSTMENT_COLUMN`], [`ADJUSTMENT_REASON_COLUMN`]; checked by [`parse_roster`]).
    pub fn adjustment(&self) -> Option<Adjustment> {
        let points = self.get(ADJUSTMENT_COLUMN).filter(|p| !p.is_empty())?.parse::<f64>().ok().filter(|p| p.is_finite())?;
        Some(Adjustment { points, reason: self.get(ADJUSTMENT_REASON_COLUMN).unwrap_or_default().to_owned() })
    }

    /// This row with `adjustment` in its columns instead of any it had (the one the
    /// instructor made on the batch's page overrides the roster's).
    pub fn adjusted(mut self, adjustment: &Adjustment) -> RosterRow {
        for (column, value) in [(ADJUSTMENT_COLUMN, adjustment.points.to_string()), (ADJUSTMENT_REASON_COLUMN, adjustment.reason.clone())] {
            match self.extra.iter_mut().find(|(h, _)| h == column) {
                Some(cell) => cell.1 = value,
                None => self.extra.push((column.to_owned(), value)),
            }
        }
        self
    }

    /// The columns of `extra` as stored (JSON), read back in their order; the older form, a
    /// map by name without `manual`, is read too (with `manual` first).
    pub fn columns_from_json(json: &str, manual: Option<f64>) -> Vec<(String, String)> {
        match serde_json::from_str(json) {
            Ok(Columns::InOrder(columns)) => columns,
            Ok(Columns::ByName(columns)) => manual.map(|m| ("manual".to_owned(), m.to_string())).into_iter().chain(columns).collect(),
            Err(_) => Vec::new(),
        }
    }
}

/// The two forms a row's columns were kept in.
#[derive(Deserialize)]
#[serde(untagged)]
enum Columns {
    InOrder(Vec<(String, String)>),
    ByName(BTreeMap<String, String>),
}

fn columns_in_order<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<(String, String)>, D::Error> {
    Ok(match Columns::deserialize(deserializer)? {
        Columns::InOrder(columns) => columns,
        Columns::ByName(columns) => columns.into_iter().collect(),
    })
}

pub struct Batch<P = Program> {
    /// Sorted by id.
    pub submissions: Vec<Submission<P>>,
    /// Sorted by id.
    pub not_built: Vec<NotBuilt>,
    pub rejected: Vec<Rejected>,
    /// The files of hand-ins not loaded at all: the batch's compile time ran out, or
    /// grading was cancelled, before they were reached. Empty unless grading stops early.
    pub not_reached: Vec<String>,
}

/// A file of the batch by name, with where its bytes are or why they cannot be used.
pub type BatchFile = (String, Result<ModuleSource, String>);

/// True for the file names that are modules: `.wasm` binaries and `.wat` text.
pub fn module_id(file_name: &str) -> Option<&str> {
    file_name.strip_suffix(".wasm").or_else(|| file_name.strip_suffix(".wat")).filter(|id| !id.is_empty())
}

/// The student id a source file's name gives (its name without the extension), when it is
/// a source file of a language bugrank compiles.
pub fn source_id(file_name: &str) -> Option<&str> {
    Language::of_file(file_name)?;
    file_name.rsplit_once('.').map(|(id, _)| id).filter(|id| !id.is_empty())
}

/// True for the files a batch is made of: modules, sources and headers.
pub fn is_batch_file(file_name: &str) -> bool {
    module_id(file_name).is_some() || source_id(file_name).is_some() || Language::ALL.iter().any(|l| l.is_header(file_name))
}

/// True for the parts of a path that are never a student's: hidden files and folders, and
/// the resource forks macOS adds to zips.
fn is_hidden(part: &str) -> bool {
    part.starts_with('.') || part == "__MACOSX"
}

/// The hand-ins of a directory or a zip of submissions (see [`hand_ins`]), with the
/// sources in a language the problem does not accept (`languages`) rejected.
pub fn read_hand_ins(path: &Path, languages: &[Language]) -> CourseResult<Vec<HandIn>> {
    let hand_ins = if path.is_dir() {
        hand_ins(read_batch_dir(path)?, false)
    } else {
        let bytes = std::fs::read(path).map_err(CourseError::io(format!("cannot open {}", path.display())))?;
        let mut unpacking = Unpacking::new();
        let files = unpacking
            .open(SharedBytes(Arc::new(bytes)))
            .and_then(|zip| read_zip(&zip, &mut unpacking))
            .map_err(|e| CourseError::Batch(format!("{} is not a readable zip: {e}", path.display())))?;
        hand_ins(files, true)
    };
    Ok(accept_languages(hand_ins, languages))
}

impl Batch {
    /// Loads every module and source of a directory or a zip ([`read_hand_ins`]),
    /// compiling the sources with `builder`.
    pub fn load(sandbox: &Sandbox, builder: &Builder, problem: &crate::problem_dir::ProblemDir, path: &Path) -> CourseResult<Batch> {
        Ok(Batch::from_hand_ins(sandbox, builder, &problem.accepted, &read_hand_ins(path, &problem.toml.languages)?))
    }

    /// Compiles (or builds, then compiles) each hand-in ([`crate::load::load`]), with the
    /// problem's harnesses if any, as the problem `accepted` them. Of two giving the same id, the first by file name is
    /// taken.
    pub fn from_hand_ins(sandbox: &Sandbox, builder: &Builder, accepted: &crate::problem_dir::Accepted, hand_ins: &[HandIn]) -> Batch {
        Batch::of(hand_ins, |file, handed| Some(crate::load::load(sandbox, builder, accepted, file, handed, None)))
    }
}

impl Batch<()> {
    /// [`Batch::from_hand_ins`] without compiling ([`Sandbox::check`]; sources are checked
    /// for a toolchain and a sandbox to build them): what would load and what would be
    /// rejected, in milliseconds per module (an upload of 1,000 is checked in seconds; the
    /// analysis compiles them).
    pub fn checked(sandbox: &Sandbox, builder: &Builder, hand_ins: &[HandIn]) -> Batch<()> {
        let check = |file: &str, handed: &Handed| -> Result<Loaded<()>, String> {
            match handed {
                Handed::Module(source) => sandbox.check(file, &source.read()?, Role::Answer).map_err(|e| e.to_string())?,
                Handed::Sources(files) => {
                    let source = crate::load::read(files)?;
                    builder.ready(source.language).map_err(|e| format!("{file}: {e}"))?;
                }
            }
            Ok(Loaded::Program((), None))
        };
        Batch::of(hand_ins, |file, handed| Some(check(file, handed)))
    }
}

/// A hand-in loaded, or why not.
type Tried<P> = Result<Loaded<P>, String>;

impl<P: Send> Batch<P> {
    /// Loads each hand-in with `load`, in parallel (compiling is the slow part), and sorts
    /// out what came of them. `load` gives `None` for a hand-in it did not reach (the
    /// batch's compile time ran out, or grading was cancelled): see [`Batch::not_reached`].
    pub(crate) fn of(hand_ins: &[HandIn], load: impl Fn(&str, &Handed) -> Option<Result<Loaded<P>, String>> + Sync) -> Batch<P> {
        let mut hand_ins: Vec<&HandIn> = hand_ins.iter().collect();
        hand_ins.sort_by(|a, b| a.file.cmp(&b.file));
        let loaded: Vec<(&HandIn, Option<Tried<P>>)> = hand_ins
            .into_par_iter()
            .map(|hand_in| {
                let loaded = match &hand_in.what {
                    Ok(handed) => load(&hand_in.file, handed),
                    Err(reason) => Some(Err(reason.clone())),
                };
                (hand_in, loaded)
            })
            .collect();
        let mut batch = Batch { submissions: Vec::new(), not_built: Vec::new(), rejected: Vec::new(), not_reached: Vec::new() };
        for (hand_in, loaded) in loaded {
            let file = hand_in.file.clone();
            let Some(loaded) = loaded else {
                batch.not_reached.push(file);
                continue;
            };
            let Some(id) = hand_in.id.clone() else {
                if let Err(reason) = loaded {
                    batch.rejected.push(Rejected { file, reason, id: None });
                }
                continue;
            };
            let taken = batch.submissions.iter().any(|s| s.id == id) || batch.not_built.iter().any(|s| s.id == id);
            match loaded {
                Err(reason) => batch.rejected.push(Rejected { file, reason, id: Some(id) }),
                // (The model answer's id in the correctness order and every output.)
                Ok(_) if id == grader::REFERENCE_ID => batch.rejected.push(Rejected {
                    reason: format!("{file}: the id `{id}` is the model answer's in every result; name the file after its student"),
                    file,
                    id: Some(id),
                }),
                Ok(_) if taken => batch.rejected.push(Rejected { reason: format!("{file}: another file already gives submission `{id}`"), file, id: Some(id) }),
                Ok(Loaded::Program(program, build)) => batch.submissions.push(Submission { id, file, program, build }),
                Ok(Loaded::NotBuilt(build)) => batch.not_built.push(NotBuilt { id, file, build }),
            }
        }
        batch.submissions.sort_by(|a, b| natural_cmp(&a.id, &b.id));
        batch.not_built.sort_by(|a, b| natural_cmp(&a.id, &b.id));
        batch
    }
}

/// `hand_ins` with the sources in a language not among `accepted` (a problem's
/// `languages`) rejected, saying which it accepts. Modules are always accepted.
pub fn accept_languages(mut hand_ins: Vec<HandIn>, accepted: &[Language]) -> Vec<HandIn> {
    for hand_in in &mut hand_ins {
        let Ok(Handed::Sources(files)) = &hand_in.what else { continue };
        let Ok(language) = crate::load::language(files) else { continue };
        if !accepted.contains(&language) {
            let names: Vec<&str> = accepted.iter().map(|l| l.name()).collect();
            hand_in.what = Err(format!("{}: this problem accepts sources in {} (or modules), not {language}", hand_in.file, names.join(", ")));
        }
    }
    hand_ins
}

/// The files of a directory a batch is made of (read when loaded): its modules and source
/// files, and the sources and headers directly inside each of its folders (a student's
/// folder). A symbolic link is listed with why it is not read.
pub fn read_batch_dir(path: &Path) -> CourseResult<Vec<BatchFile>> {
    let cannot_read = |path: &Path| CourseError::io(format!("cannot read {}", path.display()));
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(cannot_read(path))? {
        let entry = entry.map_err(cannot_read(path))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().map_err(cannot_read(&entry.path()))?;
        if is_hidden(&name) {
            continue;
        }
        if kind.is_dir() && module_id(&name).is_some() {
            files.push((name.clone(), Err(format!("{name} is a folder, not a module"))));
        } else if kind.is_dir() {
            for inner in std::fs::read_dir(entry.path()).map_err(cannot_read(&entry.path()))? {
                let inner = inner.map_err(cannot_read(&entry.path()))?;
                let inner_name = inner.file_name().to_string_lossy().into_owned();
                if is_batch_file(&inner_name) && !is_hidden(&inner_name) {
                    files.push((format!("{name}/{inner_name}"), dir_file(&inner).map_err(cannot_read(&inner.path()))?));
                }
            }
        } else if is_batch_file(&name) {
            let file = dir_file(&entry).map_err(cannot_read(&entry.path()))?;
            files.push((name, file));
        }
    }
    Ok(files)
}

/// A file of a batch directory, or why it is not read.
fn dir_file(entry: &std::fs::DirEntry) -> std::io::Result<Result<ModuleSource, String>> {
    let name = entry.file_name().to_string_lossy().into_owned();
    let kind = entry.file_type()?;
    Ok(if kind.is_file() {
        Ok(ModuleSource::File(entry.path()))
    } else if kind.is_symlink() {
        Err(format!("{name} is a symbolic link, which is not followed: put the file itself in the directory"))
    } else {
        Err(format!("{name} is not a file: not a module or a source"))
    })
}

/// Says whose each file of a batch is (`files`' names are paths inside one directory or
/// zip):
/// - a module (`.wasm`, `.wat`) anywhere is a submission by its name without extension;
/// - a source file at the top is a one-file submission by its name without extension;
/// - a folder at the top holds one student's sources, named by the folder: its source
///   files and headers directly inside (a file deeper down is rejected, naming it);
/// - a module takes precedence over sources of the same id (sources beside the module
///   built from them are left alone).
///
/// With `strip_folder` (a zip), the top is the folder that holds every source file, when
/// there is one: a zip of a folder of submissions reads as that folder. Pitfall: a zip
/// holding one student's folder alone thus reads as that folder's files, one submission
/// each; zip the folder together with the others, or upload its source file.
pub fn hand_ins(files: Vec<BatchFile>, strip_folder: bool) -> Vec<HandIn> {
    let (files, late) = from_canvas_download(files);
    let mut hand_ins: Vec<HandIn> = Vec::new();
    let mut sources: Vec<(Vec<&str>, &str, &Result<ModuleSource, String>)> = Vec::new();
    for (name, source) in &files {
        let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
        let base = parts.last().copied().unwrap_or("");
        // An error is reported whatever the path (`../x.wasm` included).
        if source.is_ok() && parts.iter().any(|p| is_hidden(p)) {
            continue;
        }
        if let Some(id) = module_id(base) {
            hand_ins.push(HandIn { id: Some(id.to_owned()), file: name.clone(), what: source.clone().map(Handed::Module), late: late.contains(id) });
        } else if source.is_err() && !is_batch_file(base) {
            hand_ins.push(HandIn { id: None, file: name.clone(), what: source.clone().map(Handed::Module), late: false });
        } else {
            sources.push((parts[..parts.len().saturating_sub(1)].to_vec(), name, source));
        }
    }
    // The top: the folders every source file is in.
    let mut top: Option<Vec<&str>> = None;
    for (dirs, name, _) in &sources {
        if source_id(base_name(name)).is_some() {
            let common = top.as_ref().map_or(dirs.len(), |top| top.iter().zip(dirs).take_while(|(a, b)| a == b).count());
            top = Some(dirs[..common].to_vec());
        }
    }
    let top = top.filter(|_| strip_folder).unwrap_or_default();
    // Each student folder by id: its label, its files, and the first reason it cannot be used.
    struct Folder {
        file: String,
        files: Vec<(String, ModuleSource)>,
        problem: Option<String>,
    }
    let mut folders: BTreeMap<String, Folder> = BTreeMap::new();
    for (dirs, name, source) in sources {
        let Some(rest) = dirs.strip_prefix(top.as_slice()) else { continue };
        let base = base_name(name).to_owned();
        match rest {
            [] => {
                if let Some(id) = source_id(&base) {
                    let what = source.clone().map(|s| Handed::Sources(vec![(base.clone(), s)]));
                    hand_ins.push(HandIn { id: Some(id.to_owned()), file: name.to_owned(), what, late: late.contains(id) });
                }
            }
            [folder, deeper @ ..] => {
                let label = format!("{}/", top.iter().chain([folder]).copied().collect::<Vec<&str>>().join("/"));
                let entry = folders.entry(folder.to_string()).or_insert_with(|| Folder { file: label, files: Vec::new(), problem: None });
                match source {
                    _ if !deeper.is_empty() => {
                        entry.problem.get_or_insert(format!("{name}: only the files directly in a student's folder are read, not those of its sub-folders"));
                    }
                    Err(reason) => {
                        entry.problem.get_or_insert(reason.clone());
                    }
                    Ok(source) => entry.files.push((base, source.clone())),
                }
            }
        }
    }
    for (id, Folder { file, files, problem }) in folders {
        let what = match problem {
            Some(reason) => Err(reason),
            None => Ok(Handed::Sources(files)),
        };
        let late = late.contains(&id);
        hand_ins.push(HandIn { id: Some(id), file, what, late });
    }
    // A module wins over sources of the same id: they are what it was built from.
    let modules: Vec<String> = hand_ins.iter().filter(|h| matches!(h.what, Ok(Handed::Module(_)))).filter_map(|h| h.id.clone()).collect();
    hand_ins.retain(|h| !matches!(h.what, Ok(Handed::Sources(_))) || h.id.as_ref().is_none_or(|id| !modules.contains(id)));
    hand_ins
}

/// A file name as Canvas names a submission's file in its "Download Submissions" zip,
/// `<sortable name>[_LATE]_<Canvas user id>_<submission id>_<the student's file name>`
/// (`lovelaceada_LATE_1001_55501_sumlist.c`, `garcíajosé_1003_55503_sumlist.c`: the
/// sortable name is the student's in lower case, letters of any alphabet): the Canvas user
/// id, the file's own name, and whether it was late.
fn canvas_file_name(name: &str) -> Option<(&str, &str, bool)> {
    let mut parts = name.splitn(2, '_');
    let sortable = parts.next()?;
    let mut rest = parts.next()?;
    if !sortable.chars().all(|c| c.is_alphanumeric() && !c.is_uppercase()) || sortable.is_empty() {
        return None;
    }
    let late = match rest.strip_prefix("LATE_").or_else(|| rest.strip_prefix("late_")) {
        Some(after) => {
            rest = after;
            true
        }
        None => false,
    };
    let number = |text: &str| !text.is_empty() && text.chars().all(|c| c.is_ascii_digit());
    let mut fields = rest.splitn(3, '_');
    let (user, submission, file) = (fields.next()?, fields.next()?, fields.next()?);
    (number(user) && number(submission) && !file.is_empty()).then_some((user, file, late))
}

/// A batch downloaded from Canvas ("Download Submissions": every file at the top, each
/// named as [`canvas_file_name`] reads) as one folder per student named by Canvas user id,
/// so that its students are matched to a Canvas roster by id, late ones too; a module
/// becomes `<id>.wasm`. Any other batch is returned as it is: one file not named so (a
/// folder, a roster, a stray file) and the names are the students' own. Also returns the
/// ids of the students whose files Canvas marks late.
fn from_canvas_download(files: Vec<BatchFile>) -> (Vec<BatchFile>, HashSet<String>) {
    let handed: Vec<&str> =
        files.iter().map(|(name, _)| name.as_str()).filter(|name| is_batch_file(base_name(name)) && !name.split('/').any(is_hidden)).collect();
    let canvas = !handed.is_empty() && handed.iter().all(|name| !name.contains('/') && canvas_file_name(name).is_some());
    if !canvas {
        return (files, HashSet::new());
    }
    let mut late = HashSet::new();
    let files = files
        .into_iter()
        .map(|(name, source)| match canvas_file_name(&name) {
            Some((user, file, was_late)) => {
                if was_late {
                    late.insert(user.to_owned());
                }
                match module_id(file) {
                    Some(_) => (format!("{user}.{}", file.rsplit('.').next().unwrap_or("wasm")), source),
                    None => (format!("{user}/{file}"), source),
                }
            }
            None => (name, source),
        })
        .collect();
    (files, late)
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

/// Lists the entries of a zip held in memory that a batch is made of (modules, sources,
/// headers), to be unpacked when each is loaded. Entries with `..` or absolute paths, and
/// files over the module size limit, come back as errors to report; directories and other
/// files are skipped. Each entry kept is unpacked once here, into nothing, to measure it,
/// through the request's `unpacking`; past its budget the whole zip is an error.
pub fn read_zip(zip: &zip::ZipArchive<Cursor<SharedBytes>>, unpacking: &mut Unpacking) -> CourseResult<Vec<BatchFile>> {
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
        if !is_batch_file(base_name(&name)) {
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

/// What an upload adds, for the rules that depend on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UploadKind {
    /// A whole batch: every roster row should have a hand-in.
    Batch,
    /// Late hand-ins to a batch: only those handed in are checked against its roster.
    Late,
}

/// Why a student id cannot be used, if it cannot: ids go into links, file names and
/// spreadsheets, so they are at most 100 letters, digits and `._-@+`, starting with a
/// letter or a digit (a spreadsheet reads `=`, `+`, `-` or `@` first as a formula).
pub fn id_problem(id: &str) -> Option<String> {
    if id.len() > 100 || !id.chars().all(|c| c.is_ascii_alphanumeric() || "._-@+".contains(c)) {
        return Some(format!("a student id may only have letters, digits and . _ - @ + (found `{id}`)"));
    }
    if !id.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Some(format!("a student id must start with a letter or a digit (found `{id}`, which a spreadsheet would read as a formula)"));
    }
    None
}

/// The roster rule, once for every upload: a hand-in must have a roster row when there
/// is a roster. Returns the reason each id of `handed` is refused (`None`: on the roster,
/// or no roster), and, for a whole batch, the ids of the roster's students without a
/// hand-in (none for late hand-ins): no problem, a student who handed in nothing is part
/// of the class, and the batch lists them as such.
pub fn roster_rule(handed: &[&str], roster: Option<&[RosterRow]>, kind: UploadKind) -> (Vec<Option<String>>, Vec<String>) {
    let Some(roster) = roster else { return (vec![None; handed.len()], Vec::new()) };
    let missing = |id: &str| match kind {
        UploadKind::Batch => format!("no roster row for `{id}`"),
        UploadKind::Late => format!("no roster row for `{id}` in this batch"),
    };
    let listed: HashSet<&str> = roster.iter().map(|r| r.id.as_str()).collect();
    let refused = handed.iter().map(|id| (!listed.contains(id)).then(|| missing(id))).collect();
    let handed: HashSet<&str> = handed.iter().copied().collect();
    let without = match kind {
        UploadKind::Batch => roster.iter().filter(|r| !handed.contains(r.id.as_str())).map(|r| r.id.clone()).collect(),
        UploadKind::Late => Vec::new(),
    };
    (refused, without)
}

/// The shape of a roster: bugrank's own (`id,cohort[,manual],...`), or a learning
/// platform's export read as it is, so that identities come from the platform and go back
/// to it (the gradebook files name students as it does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RosterFormat {
    Own,
    /// Canvas's gradebook export: `Student,ID,SIS User ID,SIS Login ID,Section,...` and a
    /// `Points Possible` row. The id is Canvas's user id (`ID`), the one its "Download
    /// Submissions" zip names files by; the cohort is the `Section` (or a `cohort` column).
    Canvas,
    /// Moodle's participants export: `First name,Last name,ID number,Email address,...`.
    /// The id is the `ID number`, the one Moodle's grade import matches; the cohort is the
    /// `Groups` column when there is one.
    Moodle,
}

impl RosterFormat {
    fn of(headers: &[String]) -> RosterFormat {
        let has = |name: &str| headers.iter().any(|h| h == name);
        match () {
            _ if has("id") => RosterFormat::Own,
            _ if has("Student") && has("ID") && has("SIS User ID") => RosterFormat::Canvas,
            _ if has("First name") && has("Last name") && has("ID number") => RosterFormat::Moodle,
            _ => RosterFormat::Own,
        }
    }

    fn id_column(self) -> &'static str {
        match self {
            RosterFormat::Own => "id",
            RosterFormat::Canvas => "ID",
            RosterFormat::Moodle => "ID number",
        }
    }

    fn cohort_column(self) -> Option<&'static str> {
        match self {
            RosterFormat::Own => None,
            RosterFormat::Canvas => Some("Section"),
            RosterFormat::Moodle => Some("Groups"),
        }
    }
}

/// Reads a roster file. Lines that cannot be used are returned as rejections naming the line.
pub fn read_roster(path: &Path) -> CourseResult<(Vec<RosterRow>, Vec<Rejected>)> {
    let file = std::fs::File::open(path).map_err(CourseError::io(format!("cannot read roster {}", path.display())))?;
    parse_roster(&path.display().to_string(), file)
}

/// The most rows a roster may have: the largest courses have some thousands of students,
/// a whole university's list some tens of thousands; a roster is read, checked and stored
/// in one request, so a bigger one is refused at once, with its count.
pub const MAX_ROSTER_ROWS: usize = 100_000;

/// A roster attached to a batch that already has hand-ins: every row is kept (a student
/// who handed in nothing is part of the class: every export lists them); the ids of the
/// rows that name no student of the batch, and the batch's students without a row, in
/// their orders.
#[derive(Debug, PartialEq)]
pub struct Attached {
    pub kept: Vec<RosterRow>,
    pub without_hand_in: Vec<String>,
    pub without_row: Vec<String>,
}

impl Attached {
    /// Whether some row names a student of the batch: a roster that names none is another
    /// class's (or another file), not this one's.
    pub fn names_the_batch(&self) -> bool {
        self.kept.len() > self.without_hand_in.len()
    }
}

/// Attaches `rows` to a batch whose students are `students` (see [`Attached`]); linear in
/// both.
pub fn attach_roster(rows: Vec<RosterRow>, students: &[String]) -> Attached {
    let in_batch: HashSet<&str> = students.iter().map(String::as_str).collect();
    let listed: HashSet<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let without_hand_in = rows.iter().filter(|r| !in_batch.contains(r.id.as_str())).map(|r| r.id.clone()).collect();
    let without_row = students.iter().filter(|s| !listed.contains(s.as_str())).cloned().collect();
    Attached { kept: rows, without_hand_in, without_row }
}

/// Reads a roster named `file_name` (for messages) from `input`. Linear in its lines; one
/// of more than [`MAX_ROSTER_ROWS`] rows is refused whole.
pub fn parse_roster(file_name: &str, input: impl Read) -> CourseResult<(Vec<RosterRow>, Vec<Rejected>)> {
    let not_csv = |e: csv::Error| CourseError::Batch(format!("{file_name} cannot be read as CSV: {e}"));
    // Each line is read alone (a roster's cells are ids, names and addresses: one line
    // each), so that a quote left open on one line is reported there, and never swallows
    // the lines after it into one cell.
    let mut text = String::new();
    let mut input = input;
    input.read_to_string(&mut text).map_err(|e| CourseError::Batch(format!("{file_name} is not text (UTF-8): {e}")))?;
    let count = text.lines().filter(|line| !line.trim().is_empty()).count().saturating_sub(1);
    if count > MAX_ROSTER_ROWS {
        return Err(CourseError::Batch(format!("{file_name} has {count} rows, more than the {MAX_ROSTER_ROWS} a roster may have: split it by course")));
    }
    let mut lines = text.lines().enumerate().map(|(i, line)| (i + 1, line));
    let first = lines.next().map_or("", |(_, line)| line);
    let one_line = |line: &str| {
        csv::ReaderBuilder::new().has_headers(false).flexible(true).trim(csv::Trim::All).from_reader(std::io::Cursor::new(line.as_bytes().to_vec()))
    };
    let mut reader = one_line(first);
    // A byte-order mark (Excel's, and bugrank's gradebook files') is not part of the first name.
    let headers: Vec<String> = reader.headers().map_err(not_csv)?.iter().map(|h| h.trim_start_matches('\u{feff}').to_owned()).collect();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let format = RosterFormat::of(&headers);
    let (Some(id_col), cohort_col) = (column(format.id_column()), column("cohort").or_else(|| format.cohort_column().and_then(column))) else {
        return Err(CourseError::Batch(format!(
            "{file_name}: the header must name the column `id` (and optionally `cohort`, `name`, `email`, ...), or be Canvas's gradebook export (`Student,ID,SIS User ID,...`) or Moodle's participants (`First name,Last name,ID number,...`) (found: {})",
            headers.join(",")
        )));
    };
    // A roster without cohorts (`id,name,email`, as instructors have them) is a roster:
    // every row's cohort is empty, and the batch simply has no two-cohort report.
    let cohort_col = cohort_col.unwrap_or(usize::MAX);
    let manual_col = column("manual");
    let mut rows: Vec<RosterRow> = Vec::new();
    let mut ids: HashSet<String> = HashSet::new();
    let mut rejected = Vec::new();
    for (line, text) in lines.filter(|(_, text)| !text.trim().is_empty()) {
        if text.matches('"').count() % 2 == 1 {
            rejected.push(Rejected {
                file: format!("{file_name}:{line}"),
                reason: format!("{file_name} line {line}: a quote (\") opens a cell and is not closed on that line: close it, or remove it"),
                id: None,
            });
            continue;
        }
        let Some(record) = one_line(text).records().next() else { continue };
        let record = record.map_err(not_csv)?;
        // Canvas's export has a row of each assignment's points possible.
        if format == RosterFormat::Canvas && record.get(0).is_some_and(|student| student.trim() == "Points Possible") {
            continue;
        }
        let reject = |reason: String| Rejected { file: format!("{file_name}:{line}"), reason, id: None };
        if record.len() != headers.len() {
            rejected.push(reject(format!("{file_name} line {line}: expected {} fields ({}), found {}", headers.len(), headers.join(","), record.len())));
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
        let adjustment = column(ADJUSTMENT_COLUMN).map(|c| &record[c]).filter(|a| !a.is_empty());
        let reason = column(ADJUSTMENT_REASON_COLUMN).map(|c| &record[c]).filter(|r| !r.is_empty());
        if let Some(text) = adjustment {
            if !text.parse::<f64>().is_ok_and(f64::is_finite) {
                rejected.push(reject(format!("{file_name} line {line}: the adjustment `{text}` is not a number of points (such as 5 or -2.5)")));
                continue;
            }
            if reason.is_none() {
                rejected.push(reject(format!(
                    "{file_name} line {line}: the adjustment {text} has no reason: the student reads it, in the column `{ADJUSTMENT_REASON_COLUMN}`"
                )));
                continue;
            }
        }
        if id.is_empty() {
            rejected.push(reject(format!("{file_name} line {line}: the id is empty")));
        } else if !ids.insert(id.clone()) {
            rejected.push(reject(format!("{file_name} line {line}: `{id}` is listed twice")));
        } else {
            // A platform's own columns are all kept, so that its files name students as it does.
            let own = |c: usize| format == RosterFormat::Own && (c == id_col || c == cohort_col);
            let extra = headers.iter().enumerate().filter(|&(c, _)| !own(c)).map(|(c, h)| (h.clone(), record[c].to_owned())).collect();
            let cohort = record.get(cohort_col).unwrap_or_default().to_owned();
            rows.push(RosterRow { id, cohort, manual, extra });
        }
    }
    Ok((rows, rejected))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rosters_own_columns_keep_their_order_and_older_stored_rows_are_still_read() {
        let (rows, rejected) = parse_roster("r.csv", "id,zeta,cohort,manual,alpha\na01,z,A,7,a\n".as_bytes()).unwrap();
        assert!(rejected.is_empty());
        let columns: Vec<(&str, &str)> = rows[0].extra.iter().map(|(h, v)| (h.as_str(), v.as_str())).collect();
        assert_eq!(columns, [("zeta", "z"), ("manual", "7"), ("alpha", "a")]);
        assert_eq!((rows[0].manual, rows[0].get("alpha"), rows[0].get("cohort")), (Some(7.0), Some("a"), None));
        let stored = serde_json::to_string(&rows[0].extra).unwrap();
        assert_eq!(RosterRow::columns_from_json(&stored, Some(7.0)), rows[0].extra);
        // Kept before the order was: a map by name, without `manual`.
        let older = RosterRow::columns_from_json(r#"{"zeta":"z","alpha":"a"}"#, Some(7.0));
        assert_eq!(older, [("manual", "7"), ("alpha", "a"), ("zeta", "z")].map(|(h, v)| (h.to_owned(), v.to_owned())));
    }

    #[test]
    fn an_adjustment_is_a_number_of_points_with_a_reason_and_a_row_without_one_is_refused_alone() {
        let roster = "id,cohort,adjustment,adjustment_reason\n\
                      a01,A,5,the output format was ambiguous\n\
                      a02,A,-2.5,late\n\
                      a03,A,five,typo\n\
                      a04,A,3,\n\
                      a05,A,,\n";
        let (rows, rejected) = parse_roster("r.csv", roster.as_bytes()).unwrap();
        let adjustments: Vec<(&str, Option<Adjustment>)> = rows.iter().map(|r| (r.id.as_str(), r.adjustment())).collect();
        let adjusted = |points: f64, reason: &str| Some(Adjustment { points, reason: reason.to_owned() });
        assert_eq!(adjustments, [("a01", adjusted(5.0, "the output format was ambiguous")), ("a02", adjusted(-2.5, "late")), ("a05", None)]);
        let reasons: Vec<&str> = rejected.iter().map(|r| r.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "r.csv line 4: the adjustment `five` is not a number of points (such as 5 or -2.5)",
                "r.csv line 5: the adjustment 3 has no reason: the student reads it, in the column `adjustment_reason`",
            ]
        );
    }

    #[test]
    fn a_canvas_gradebook_export_is_a_roster_by_canvas_user_id_with_its_sections_as_cohorts() {
        let export = "Student,ID,SIS User ID,SIS Login ID,Section,Assignment 1 (5501)\n\
                      \"    Points Possible\",,,,,100\n\
                      \"Lovelace, Ada\",1001,s1001,ada,Section A,\n\
                      \"Turing, Alan\",1002,s1002,alan,Section B,87\n";
        let (rows, rejected) = parse_roster("gradebook.csv", export.as_bytes()).unwrap();
        assert!(rejected.is_empty(), "{rejected:?}");
        let read: Vec<(&str, &str, Option<&str>, Option<&str>)> =
            rows.iter().map(|r| (r.id.as_str(), r.cohort.as_str(), r.get("Student"), r.get("SIS User ID"))).collect();
        assert_eq!(read, [("1001", "Section A", Some("Lovelace, Ada"), Some("s1001")), ("1002", "Section B", Some("Turing, Alan"), Some("s1002"))]);
        assert_eq!((rows[0].name().as_deref(), rows[0].email()), (Some("Lovelace, Ada"), None), "Canvas's name, as it writes it; no address");
    }

    #[test]
    fn a_quote_left_open_is_reported_on_its_line_and_the_lines_after_it_are_read() {
        let roster = "id,cohort,name\na01,A,\"Lovelace, Ada\na02,A,Alan Turing\n\na03,B,\"Hopper, Grace\"\n";
        let (rows, rejected) = parse_roster("r.csv", roster.as_bytes()).unwrap();
        assert_eq!(rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["a02", "a03"]);
        assert_eq!(rows[1].get("name"), Some("Hopper, Grace"), "a quoted comma is part of the cell");
        assert_eq!(rejected.len(), 1);
        assert_eq!(rejected[0].file, "r.csv:2");
        assert!(rejected[0].reason.contains("line 2: a quote (\") opens a cell and is not closed on that line"), "{}", rejected[0].reason);
    }

    #[test]
    fn a_zip_that_cannot_be_opened_is_said_in_plain_words() {
        let refused = Unpacking::new().open(SharedBytes(Arc::new(b"PK\x03\x04 cut short".to_vec()))).err().unwrap().to_string();
        assert!(refused.contains("cut short, or not a zip at all") && !refused.contains("EOCD"), "{refused}");
    }

    #[test]
    fn a_roster_is_read_and_attached_in_linear_time_and_one_too_long_is_refused_by_its_count() {
        let roster = |rows: usize| format!("id,cohort\n{}", (0..rows).map(|i| format!("s{i},A\n")).collect::<String>());
        let (rows, rejected) = parse_roster("r.csv", roster(MAX_ROSTER_ROWS).as_bytes()).unwrap();
        assert_eq!((rows.len(), rejected.len()), (MAX_ROSTER_ROWS, 0));
        let students: Vec<String> = (0..MAX_ROSTER_ROWS).map(|i| format!("s{}", i + 1)).collect();
        let attached = attach_roster(rows, &students);
        assert_eq!(attached.kept.len(), MAX_ROSTER_ROWS, "a student who handed in nothing keeps their row");
        assert_eq!((attached.without_hand_in, attached.without_row), (vec!["s0".to_owned()], vec![format!("s{MAX_ROSTER_ROWS}")]));
        let too_long = parse_roster("r.csv", roster(MAX_ROSTER_ROWS + 1).as_bytes()).err().unwrap().to_string();
        assert_eq!(too_long, "r.csv has 100001 rows, more than the 100000 a roster may have: split it by course");
        let (_, twice) = parse_roster("r.csv", "id,cohort\na,A\nb,B\na,C\n".as_bytes()).unwrap();
        assert_eq!(twice[0].reason, "r.csv line 4: `a` is listed twice");
    }

    #[test]
    fn a_roster_without_cohorts_is_read_with_every_cohort_empty() {
        let (rows, rejected) = parse_roster("r.csv", "id,name,email\na01,Ada Lovelace,ada@example.edu\n".as_bytes()).unwrap();
        assert!(rejected.is_empty(), "{rejected:?}");
        assert_eq!((rows[0].id.as_str(), rows[0].cohort.as_str()), ("a01", ""));
        assert_eq!(rows[0].extra, [("name".to_owned(), "Ada Lovelace".to_owned()), ("email".to_owned(), "ada@example.edu".to_owned())]);
        let no_id = parse_roster("r.csv", "name,email\nAda,ada@example.edu\n".as_bytes()).err().unwrap().to_string();
        assert!(no_id.contains("the header must name the column `id`"), "{no_id}");
    }

    #[test]
    fn a_moodle_participants_export_is_a_roster_by_id_number() {
        let export = "First name,Last name,ID number,Email address,Groups\nAda,Lovelace,s1001,ada@uni.example,Lab 1\nAlan,Turing,s1002,alan@uni.example,\n";
        let (rows, rejected) = parse_roster("participants.csv", export.as_bytes()).unwrap();
        assert!(rejected.is_empty(), "{rejected:?}");
        let read: Vec<(&str, &str, Option<&str>)> = rows.iter().map(|r| (r.id.as_str(), r.cohort.as_str(), r.get("Email address"))).collect();
        assert_eq!(read, [("s1001", "Lab 1", Some("ada@uni.example")), ("s1002", "", Some("alan@uni.example"))]);
        assert_eq!((rows[0].name().as_deref(), rows[0].email()), (Some("Ada Lovelace"), Some("ada@uni.example")), "names and addresses as Moodle gives them");
        let refused = parse_roster("r.csv", "name,email\nAda,a@x\n".as_bytes()).unwrap_err().to_string();
        assert!(refused.contains("or be Canvas's gradebook export"), "{refused}");
    }

    #[test]
    fn the_roster_rule_refuses_hand_ins_off_the_roster_and_names_students_without_one_for_a_whole_batch_only() {
        let (roster, _) = parse_roster("r.csv", "id,cohort\na01,A\na02,A\na03,B\n".as_bytes()).unwrap();
        let (refused, without) = roster_rule(&["a01", "x9"], Some(&roster), UploadKind::Batch);
        assert_eq!(refused, [None, Some("no roster row for `x9`".to_owned())]);
        assert_eq!(without, ["a02", "a03"]);
        let (refused, without) = roster_rule(&["a02", "x9"], Some(&roster), UploadKind::Late);
        assert_eq!((refused, without.len()), (vec![None, Some("no roster row for `x9` in this batch".to_owned())], 0));
        assert_eq!(roster_rule(&["x9"], None, UploadKind::Batch), (vec![None], Vec::new()), "no roster, no rule");
        assert_eq!(id_problem("a01"), None);
        assert!(id_problem("=cmd").unwrap().contains("letters, digits"), "`=` is not allowed at all");
        assert!(id_problem("-a01").unwrap().contains("must start with a letter or a digit"));
    }

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

    /// The hand-ins `hand_ins` finds among files of these names: `(id, file, what)` where
    /// what is `module`, the sorted source file names, or the reason.
    fn check(names: &[&str], strip_folder: bool, expected: &[(&str, &str, &str)]) {
        let files: Vec<BatchFile> = names.iter().map(|n| (n.to_string(), Ok(ModuleSource::Bytes(shared(b""))))).collect();
        let mut found: Vec<(String, String, String)> = hand_ins(files, strip_folder)
            .into_iter()
            .map(|h| {
                let what = match h.what {
                    Ok(Handed::Module(_)) => "module".to_owned(),
                    Ok(Handed::Sources(files)) => {
                        let mut names: Vec<String> = files.into_iter().map(|(n, _)| n).collect();
                        names.sort();
                        names.join(" ")
                    }
                    Err(reason) => reason,
                };
                (h.id.unwrap_or_default(), h.file, what)
            })
            .collect();
        found.sort();
        let mut expected: Vec<(String, String, String)> = expected.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect();
        expected.sort();
        assert_eq!(found, expected, "{names:?}");
    }

    #[test]
    fn a_source_file_at_the_top_is_one_students_submission_by_its_name() {
        check(
            &["a01.c", "a02.rs", "a03.cpp", "a04.wasm", "notes.txt"],
            false,
            &[("a01", "a01.c", "a01.c"), ("a02", "a02.rs", "a02.rs"), ("a03", "a03.cpp", "a03.cpp"), ("a04", "a04.wasm", "module")],
        );
    }

    #[test]
    fn a_folder_at_the_top_holds_one_students_sources_and_headers() {
        check(
            &["a01/main.c", "a01/list.c", "a01/list.h", "a02/main.rs", "a02/util.rs"],
            false,
            &[("a01", "a01/", "list.c list.h main.c"), ("a02", "a02/", "main.rs util.rs")],
        );
    }

    #[test]
    fn a_zip_of_one_folder_reads_as_that_folder() {
        check(&["class/a01.c", "class/a02/main.c", "class/a02/io.h"], true, &[("a01", "class/a01.c", "a01.c"), ("a02", "class/a02/", "io.h main.c")]);
        // A directory is read as it is: `class` is a student's folder there.
        check(&["class/a01.c", "class/a02.c"], false, &[("class", "class/", "a01.c a02.c")]);
    }

    #[test]
    fn a_canvas_download_is_read_as_one_student_per_canvas_user_id_late_ones_too() {
        check(
            &[
                "lovelaceada_1001_55501_sumlist.c",
                "lovelaceada_1001_55502_sumlist.h",
                "turingalan_LATE_1002_55510_sumlist-1.c",
                "hopper_1003_55520_sum.wasm",
                "roster.csv",
            ],
            true,
            &[("1001", "1001/", "sumlist.c sumlist.h"), ("1002", "1002/", "sumlist-1.c"), ("1003", "1003.wasm", "module")],
        );
        // A sortable name with letters beyond ASCII is a sortable name.
        check(
            &["garcíajosé_1004_55530_sumlist.c", "lovelaceada_1001_55501_sumlist.c"],
            true,
            &[("1001", "1001/", "sumlist.c"), ("1004", "1004/", "sumlist.c")],
        );
        // One file not named by Canvas: the names are the students' own.
        check(
            &["lovelaceada_1001_55501_sumlist.c", "a02.c"],
            true,
            &[("lovelaceada_1001_55501_sumlist", "lovelaceada_1001_55501_sumlist.c", "lovelaceada_1001_55501_sumlist.c"), ("a02", "a02.c", "a02.c")],
        );
    }

    /// A zip of `entries` whose names are written as `raw` bytes, without the zip's UTF-8
    /// flag (as Canvas writes them): each name is written as a placeholder of the same
    /// length, whose bytes are then replaced.
    fn zip_with_raw_names(entries: &[(&[u8], &[u8])]) -> Vec<u8> {
        let placeholders: Vec<String> = entries.iter().enumerate().map(|(i, (raw, _))| format!("{i}{}", "#".repeat(raw.len() - 1))).collect();
        let mut bytes = zip_of(&placeholders.iter().zip(entries).map(|(name, (_, body))| (name.as_str(), *body)).collect::<Vec<_>>());
        for (placeholder, (raw, _)) in placeholders.iter().zip(entries) {
            let mut at = 0;
            while let Some(found) = bytes[at..].windows(raw.len()).position(|w| w == placeholder.as_bytes()) {
                bytes[at + found..at + found + raw.len()].copy_from_slice(raw);
                at += found + raw.len();
            }
        }
        bytes
    }

    #[test]
    fn a_canvas_zip_with_accented_names_is_read_by_user_id_with_its_late_files_marked() {
        // UTF-8 without the flag (Canvas's way), and CP437 (the format's own: é is 0x82).
        let zip = zip_with_raw_names(&[
            ("garcíajosé_LATE_1004_55530_sumlist.c".as_bytes(), b"int main(void) { return 0; }\n"),
            (b"m\x82lanie_1005_55531_sumlist.c", b"int main(void) { return 0; }\n"),
            (b"lovelaceada_1001_55501_sumlist.c", b"int main(void) { return 0; }\n"),
        ]);
        let archive = Unpacking::new().open(shared(&zip)).unwrap();
        let files = read_zip(&archive, &mut Unpacking::new()).unwrap();
        let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["garcíajosé_LATE_1004_55530_sumlist.c", "mélanie_1005_55531_sumlist.c", "lovelaceada_1001_55501_sumlist.c"]);
        let found: Vec<(Option<String>, String, bool)> = hand_ins(files, true).into_iter().map(|h| (h.id, h.file, h.late)).collect();
        assert_eq!(
            found,
            [(Some("1001".into()), "1001/".into(), false), (Some("1004".into()), "1004/".into(), true), (Some("1005".into()), "1005/".into(), false)]
        );
    }

    #[test]
    fn a_module_takes_precedence_over_the_sources_it_was_built_from() {
        check(&["a01.rs", "a01.wasm", "a02.c"], false, &[("a01", "a01.wasm", "module"), ("a02", "a02.c", "a02.c")]);
    }

    #[test]
    fn files_deeper_than_a_students_folder_are_named_and_hidden_files_are_skipped() {
        check(
            &["a01/main.c", "a01/src/list.c", "__MACOSX/a01/._main.c", "a02/.hidden.c", "a02/main.c"],
            false,
            &[
                ("a01", "a01/", "a01/src/list.c: only the files directly in a student's folder are read, not those of its sub-folders"),
                ("a02", "a02/", "main.c"),
            ],
        );
    }

    /// A budget of `bytes` and `entries`, for tests.
    fn budget(bytes: u64, entries: usize) -> Unpacking {
        Unpacking { bytes_left: bytes, entries_left: entries }
    }

    fn read(zip: &[u8], unpacking: &mut Unpacking) -> CourseResult<Vec<BatchFile>> {
        let zip = unpacking.open(shared(zip))?;
        read_zip(&zip, unpacking)
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
