//! What an upload of hand-ins is, before anything of it is kept: its files read within one
//! unpacking budget (zips opened, their unsafe entries refused, a `roster.csv` in them found
//! without unpacking it), its roster chosen, and each file's verdict by the rules a batch
//! and a roster set (ids, students off the roster, languages the problem accepts, sources
//! compiled): [`form_files`], [`choose_roster`], [`check_upload`]. The service stores what
//! was accepted and shows the [`UploadReport`].

use serde::{Deserialize, Serialize};

use grader::RuleBroken;

use crate::Tools;
use crate::batch::Batch;
use crate::error::{CourseError, CourseResult};
use crate::hand_in::{HandIn, ModuleSource, SharedBytes, sha256_hex};
use crate::hand_ins::{hand_ins, module_id, natural_cmp, read_batch_zip, source_id};
use crate::problem_dir::Accepted;
use crate::roster::{RosterRow, UploadKind, id_problem, parse_roster, roster_rule};
use crate::zips::{Unpacking, zip_entry_problem, zip_problem};

/// A file as uploaded: its name and bytes.
pub type NamedFile = (String, Vec<u8>);

/// One file's verdict.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FileVerdict {
    pub file: String,
    /// The student the module is for, once known.
    pub student: Option<String>,
    /// `None` when accepted.
    pub rejected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// For accepted sources: whether they compile, checked at upload (the build is kept,
    /// so the analysis does not compile them again). A source that does not compile is
    /// still accepted: its result is the compiler's message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<UploadBuild>,
    /// Handed in late, as the platform it came from says (Canvas's `_LATE_`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub late: bool,
}

/// What compiling an accepted source at upload gave.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum UploadBuild {
    Compiles {
        language: String,
        /// The rules of the assignment it breaks, each in words with its line's code
        /// ("uses `sort` (line 6): `xs.sort()`"): no run shows them, the upload does.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        rules_broken: Vec<String>,
    },
    /// The compiler's message.
    DoesNotCompile { language: String, message: String },
    /// It could not be compiled here (no toolchain): the analysis will say.
    NotChecked { reason: String },
}

/// What an upload contained and what became of each part.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct UploadReport {
    /// The batch's name (for a new batch).
    pub name: String,
    /// The course of a new batch (uploads held from before courses existed have none, and
    /// go into the course of the batches of that time).
    #[serde(default = "default_course")]
    pub course: String,
    /// True for a late submission to an existing batch.
    pub late: bool,
    pub files: Vec<FileVerdict>,
    /// Roster rows accepted.
    pub roster: Vec<RosterRow>,
    /// Where the roster came from, in words (none given: `None`).
    #[serde(default)]
    pub roster_from: Option<String>,
    /// Roster lines rejected.
    pub roster_problems: Vec<String>,
    /// The roster's students with no hand-in in a whole batch's upload: no problem (they
    /// are the class's, listed as "no hand-in"), said on the report.
    #[serde(default)]
    pub no_hand_in: Vec<String>,
}

/// The course migration 5 of the store put the batches from before courses into.
fn default_course() -> String {
    "Course".to_owned()
}

impl UploadReport {
    pub fn accepted(&self) -> impl Iterator<Item = &FileVerdict> {
        self.files.iter().filter(|f| f.rejected.is_none())
    }
    pub fn is_clean(&self) -> bool {
        self.files.iter().all(|f| f.rejected.is_none()) && self.roster_problems.is_empty()
    }
}

/// A roster found in a zip, still packed: `(zip/path, entry)`. Only the one used is ever
/// unpacked ([`choose_roster`]).
pub type ZippedRoster = (String, ModuleSource);

/// The files of a form: zips are opened (their unsafe entries rejected) and read as a
/// batch is ([`hand_ins`]), all of them within one [`Unpacking`] budget, modules and
/// source files taken as they are, anything else rejected. A `roster.csv` in a zip (at
/// its top or in its one folder) comes back measured but not unpacked, in the order found.
pub fn form_files(files: Vec<NamedFile>) -> (Vec<HandIn>, Vec<FileVerdict>, Vec<ZippedRoster>) {
    let mut modules = Vec::new();
    let mut rejected = Vec::new();
    let mut rosters = Vec::new();
    let mut reject =
        |file: String, reason: String| rejected.push(FileVerdict { file, student: None, rejected: Some(reason), sha256: None, build: None, late: false });
    // One budget for every entry of every zip of the upload: two bombs are no better than one.
    let mut unpacking = Unpacking::new();
    for (name, bytes) in files {
        let bytes = SharedBytes(std::sync::Arc::new(bytes));
        if name.to_ascii_lowercase().ends_with(".zip") {
            let read = unpacking.open(bytes).map_err(|e| format!("not a readable zip: {e:#}")).and_then(|zip| {
                let entries = read_batch_zip(&zip, &mut unpacking).and_then(|entries| Ok((entries, zip_rosters(&zip, &mut unpacking)?)));
                match entries {
                    Ok((entries, found)) if entries.is_empty() && found.is_empty() => Err(if zip.is_empty() {
                        format!("{name}: the zip is empty")
                    } else {
                        format!("{name}: the zip holds no submission (no {HAND_IN_FILES} file) and no roster.csv")
                    }),
                    entries => entries.map_err(|e| format!("{name}: {e:#}")),
                }
            });
            match read {
                Ok((entries, found)) => {
                    modules.extend(hand_ins(entries, true).into_iter().map(|h| HandIn { file: format!("{name}/{}", h.file), ..h }));
                    rosters.extend(found.into_iter().map(|(path, entry)| (format!("{name}/{path}"), entry)));
                }
                Err(error) => reject(name, error),
            }
        } else if module_id(&name).is_some() || source_id(&name).is_some() {
            modules.extend(hand_ins(vec![(name, Ok(ModuleSource::Bytes(bytes)))], false));
        } else {
            reject(name.clone(), format!("{name}: not a hand-in ({HAND_IN_FILES}) or a zip of them"));
        }
    }
    (modules, rejected, rosters)
}

/// One student's own hand-in (the service's student page): `files` as they chose them,
/// named after `student` (one file: `ID.EXT`; several: the folder `ID/` of a program in
/// several files), checked as an upload's files are without compiling (what it is, its
/// language among `accepted`'s, a module the sandbox accepts). Returns the hand-in's file
/// name and the bytes the service keeps (a module, or the sources as one bundle); `Err`
/// says what is wrong, in words for the student.
pub fn own_hand_in(tools: &Tools, accepted: &Accepted, student: &str, files: Vec<NamedFile>) -> Result<(String, Vec<u8>), String> {
    if let Some(problem) = id_problem(student) {
        return Err(problem);
    }
    if files.is_empty() {
        return Err(format!("choose your file: {HAND_IN_FILES}"));
    }
    if let Some((zip, _)) = files.iter().find(|(name, _)| name.to_ascii_lowercase().ends_with(".zip")) {
        return Err(format!("{zip}: hand in your files themselves, not a zip (choose several files at once for a program in several files)"));
    }
    let several = files.len() > 1;
    let named = files
        .into_iter()
        .map(|(name, bytes)| {
            let base = name.rsplit(['/', '\\']).next().unwrap_or_default().to_owned();
            let file = match (several, base.rsplit_once('.')) {
                (true, _) => format!("{student}/{base}"),
                (false, Some((_, extension))) => format!("{student}.{extension}"),
                (false, None) => base,
            };
            (file, Ok(ModuleSource::Bytes(SharedBytes(std::sync::Arc::new(bytes)))))
        })
        .collect();
    let found = crate::hand_ins::accept_languages(hand_ins(named, false), &accepted.languages);
    let batch = Batch::checked(&tools.sandbox, &tools.builder, &found);
    if let Some(refused) = batch.rejected.first() {
        return Err(refused.reason.clone());
    }
    match &batch.submissions[..] {
        [one] if one.id == student => {
            let hand_in = found.iter().find(|h| h.file == one.file).expect("a checked hand-in is one found");
            let bytes = hand_in.what.as_ref().map_err(Clone::clone)?.stored()?;
            Ok((one.file.clone(), bytes))
        }
        [] => Err(format!("none of these files is {HAND_IN_FILES}")),
        _ => Err("hand in one module, or your source files (and headers) of one program".to_owned()),
    }
}

/// The files a hand-in may be, as the refusals name them.
const HAND_IN_FILES: &str = "a module .wasm or .wat, a source .c, .cpp, .rs or .py";

/// The most bytes a roster found in a zip may have: 100,000 students of 160 bytes each.
const MAX_ROSTER_BYTES: u64 = 16 << 20;

/// The `roster.csv` files of a zip (any case), at its top or in one folder, hidden
/// folders aside: each measured through `unpacking`, none kept unpacked.
fn zip_rosters(zip: &zip::ZipArchive<std::io::Cursor<SharedBytes>>, unpacking: &mut Unpacking) -> CourseResult<Vec<ZippedRoster>> {
    let mut zip = zip.clone();
    let mut found = Vec::new();
    for index in 0..zip.len() {
        let mut entry = zip.by_index(index).map_err(|e| CourseError::Batch(zip_problem(&e)))?;
        let name = entry.name().to_owned();
        let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
        let is_roster = matches!(parts[..], [.., base] if base.eq_ignore_ascii_case("roster.csv"))
            && parts.len() <= 2
            && !parts.iter().any(|p| p.starts_with('.') || *p == "__MACOSX");
        if !is_roster || entry.is_dir() || zip_entry_problem(&entry).is_some() {
            continue;
        }
        let size = unpacking.unpack(&mut entry, MAX_ROSTER_BYTES, &mut std::io::sink())?;
        if size > MAX_ROSTER_BYTES {
            return Err(CourseError::Batch(format!("{name}: a roster larger than {} MiB", MAX_ROSTER_BYTES >> 20)));
        }
        drop(entry);
        found.push((name, ModuleSource::Zipped { zip: zip.clone(), index }));
    }
    Ok(found)
}

/// The roster of a batch upload: the form's roster file, else the one `roster.csv` found
/// in its zips (unpacked now, the only one that is). Returns it with the sentence the
/// report gives about where it came from, and a roster problem when zips hold more than
/// one (none is used then).
pub fn choose_roster(field: Option<NamedFile>, mut in_zips: Vec<ZippedRoster>) -> (Option<NamedFile>, Option<String>, Option<String>) {
    let names = |rosters: &[ZippedRoster]| rosters.iter().map(|(n, _)| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    match (field, in_zips.len()) {
        (Some((name, text)), 0) => (Some((name.clone(), text)), Some(format!("`{name}`, the roster file given")), None),
        (Some((name, text)), _) => {
            let said = format!("`{name}`, the roster file given ({} in the zip was not used)", names(&in_zips));
            (Some((name, text)), Some(said), None)
        }
        (None, 0) => (None, None, None),
        (None, 1) => {
            let (name, entry) = in_zips.remove(0);
            match entry.read() {
                Ok(text) => {
                    let said = format!("`{name}`, found in the zip");
                    (Some((name, text.into_owned())), Some(said), None)
                }
                Err(error) => (None, None, Some(format!("`{name}` cannot be read: {error}"))),
            }
        }
        (None, _) => (None, None, Some(format!("the zips hold {} rosters ({}): give one as the roster file", in_zips.len(), names(&in_zips)))),
    }
}

/// Compiles every accepted source of an upload (in parallel, with the service's builder,
/// whose cache the analysis then finds) and says in its verdict whether it compiles.
fn compile_sources(tools: &Tools, accepted: &Accepted, verdicts: &mut [FileVerdict], stored: &[(String, Vec<u8>)]) {
    use rayon::prelude::*;
    let builds: Vec<(String, UploadBuild)> = stored
        .par_iter()
        .filter_map(|(sha256, bytes)| {
            let source = toolchain::Source::from_bytes(bytes)?;
            let language = source.language.name().to_owned();
            let build = if source.language == toolchain::Language::Python {
                // (Compiled to bytecode by the sandbox's CPython: milliseconds, not kept.)
                match crate::load::build(&tools.sandbox, &tools.builder, accepted, sha256, &source, None) {
                    Ok(crate::hand_in::Loaded::Program(_, build)) => {
                        let rules_broken = build.map_or_else(Vec::new, |b| b.rules_broken.iter().map(RuleBroken::said).collect());
                        UploadBuild::Compiles { language, rules_broken }
                    }
                    Ok(crate::hand_in::Loaded::NotBuilt(build)) => UploadBuild::DoesNotCompile { language, message: build.error.unwrap_or_default() },
                    Err(reason) => UploadBuild::NotChecked { reason },
                }
            } else {
                match crate::load::built(&tools.builder, accepted, &source, None) {
                    Ok(toolchain::Built::Module { .. }) => match crate::load::compiled_rules_broken(&tools.builder, accepted, &source) {
                        Ok(Ok(broken)) => UploadBuild::Compiles { language, rules_broken: broken.iter().map(RuleBroken::said).collect() },
                        Ok(Err(unchecked)) => UploadBuild::DoesNotCompile { language, message: unchecked },
                        Err(reason) => UploadBuild::NotChecked { reason },
                    },
                    Ok(toolchain::Built::Failed { message, .. }) => UploadBuild::DoesNotCompile { language, message },
                    Err(missing) => UploadBuild::NotChecked { reason: missing.to_string() },
                }
            };
            Some((sha256.clone(), build))
        })
        .collect();
    for verdict in verdicts.iter_mut() {
        if let Some((_, build)) = builds.iter().find(|(sha256, _)| verdict.sha256.as_ref() == Some(sha256)) {
            verdict.build = Some(build.clone());
        }
    }
}

/// The roster an upload is checked against.
pub enum RosterGiven {
    None,
    /// A roster file of a new batch, to read (its rows become the batch's).
    File(NamedFile),
    /// The rows of the batch late hand-ins go to (only checked against).
    Rows(Vec<RosterRow>),
}

/// An upload checked, with what is to be kept of it: nothing is stored yet.
pub struct Checked {
    pub report: UploadReport,
    /// The bytes of each accepted file, by the SHA-256 its verdict names: a module, or a
    /// student's sources as one bundle (compiled when an analysis loads them).
    pub stored: Vec<(String, Vec<u8>)>,
}

/// Checks the hand-ins of an upload against each other ([`Batch::checked`]: nothing is
/// compiled) and against the roster ([`roster_rule`]), each student
/// id by [`id_problem`]; sources in a language the problem does not
/// accept are rejected, and the others built with its harnesses if it has any ([`accepted`]).
/// Nothing is stored: the caller stores [`Checked::stored`] once it keeps the upload.
///
/// [`accepted`]: crate::problem_dir::accepted
pub fn check_upload(
    tools: &Tools,
    name: &str,
    accepted: &Accepted,
    files: Vec<HandIn>,
    mut verdicts: Vec<FileVerdict>,
    roster: RosterGiven,
    kind: UploadKind,
) -> CourseResult<Checked> {
    let files = crate::hand_ins::accept_languages(files, &accepted.languages);
    let batch = Batch::checked(&tools.sandbox, &tools.builder, &files);
    for r in batch.rejected {
        verdicts.push(FileVerdict { file: r.file, student: r.id, rejected: Some(r.reason), sha256: None, build: None, late: false });
    }
    let (mut roster_rows, mut roster_problems, mut checked_against) = (Vec::new(), Vec::new(), None);
    match roster {
        RosterGiven::None => {}
        RosterGiven::File((roster_name, text)) => {
            let (rows, rejected) = parse_roster(&roster_name, text.as_slice())?;
            roster_problems.extend(rejected.into_iter().map(|r| r.reason));
            roster_rows = rows;
            checked_against = Some(roster_rows.clone());
        }
        RosterGiven::Rows(rows) => checked_against = Some(rows).filter(|rows| !rows.is_empty()),
    }
    // Every student who handed something in, a refused file's included: a roster row with
    // a refused file has a hand-in (refused), not none.
    let mut handed: Vec<&str> = verdicts.iter().filter_map(|v| v.student.as_deref()).collect();
    let first_checked = handed.len();
    handed.extend(batch.submissions.iter().map(|s| s.id.as_str()));
    let (off_roster, without) = roster_rule(&handed, checked_against.as_deref(), kind);
    let off_roster = off_roster[first_checked..].to_vec();
    let mut modules = Vec::new();
    for (s, off_roster) in batch.submissions.iter().zip(off_roster) {
        let file = s.file.clone();
        let hand_in = files.iter().find(|h| h.file == file).expect("a checked hand-in is in the batch");
        let mut verdict = FileVerdict { file: file.clone(), student: Some(s.id.clone()), rejected: None, sha256: None, build: None, late: hand_in.late };
        if let Some(problem) = id_problem(&s.id).or(off_roster) {
            verdict.rejected = Some(format!("{file}: {problem}"));
        } else {
            match hand_in.what.as_ref().expect("a checked hand-in was handed").stored() {
                Ok(bytes) => {
                    let sha256 = sha256_hex(&bytes);
                    verdict.sha256 = Some(sha256.clone());
                    modules.push((sha256, bytes));
                }
                Err(reason) => verdict.rejected = Some(reason),
            }
        }
        verdicts.push(verdict);
    }
    compile_sources(tools, accepted, &mut verdicts, &modules);
    verdicts.sort_by(|a, b| natural_cmp(&a.file, &b.file));
    let late = kind == UploadKind::Late;
    let report = UploadReport {
        name: name.to_owned(),
        course: String::new(),
        late,
        files: verdicts,
        roster: roster_rows,
        roster_from: None,
        roster_problems,
        no_hand_in: without,
    };
    Ok(Checked { report, stored: modules })
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolchain::Language;

    fn accepted(languages: &[Language]) -> Accepted {
        Accepted { languages: languages.to_vec(), harnesses: Vec::new(), build: toolchain::BuildOptions::default(), rules: Default::default() }
    }

    /// What `own_hand_in` makes of `files` by `a01` for a problem taking `languages`: the
    /// file name kept, or the refusal.
    fn check(languages: &[Language], files: &[(&str, &str)], expected: Result<&str, &str>) {
        let tools = Tools { sandbox: sandbox::Sandbox::new().unwrap(), builder: toolchain::Builder::new(None) };
        let files = files.iter().map(|(name, text)| (name.to_string(), text.as_bytes().to_vec())).collect();
        match (own_hand_in(&tools, &accepted(languages), "a01", files), expected) {
            (Ok((file, bytes)), Ok(name)) => {
                assert_eq!(file, name);
                assert!(toolchain::Source::from_bytes(&bytes).is_some(), "sources are kept as one bundle");
            }
            (Err(why), Err(words)) => assert!(why.contains(words), "{why}"),
            (got, expected) => panic!("{got:?}, expected {expected:?}"),
        }
    }

    #[test]
    fn a_students_own_hand_in_is_named_after_them_whatever_its_files_are_called() {
        check(&[Language::Python], &[("lab3 final (2).py", "print(1)\n")], Ok("a01.py"));
        check(&[Language::C], &[("main.c", "#include \"util.h\"\nint main(void){return f();}\n"), ("util.h", "static int f(void){return 0;}\n")], Ok("a01/"));
    }

    #[test]
    fn a_students_own_hand_in_that_is_not_one_program_is_refused_in_words() {
        check(&[Language::Python], &[], Err("choose your file"));
        check(&[Language::Python], &[("lab3.zip", "PK")], Err("not a zip"));
        check(&[Language::Python], &[("notes.txt", "hello")], Err("none of these files is a module .wasm"));
        check(&[Language::C], &[("main.py", "print(1)\n")], Err("accepts sources in C"));
        check(
            &[Language::Python, Language::C],
            &[("main.py", "print(1)\n"), ("other.c", "int main(void){return 0;}\n")],
            Err("a submission is written in one"),
        );
    }
}
