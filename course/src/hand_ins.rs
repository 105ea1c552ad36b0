//! Which files of a batch (a directory or a zip) are whose: each student hands in a module
//! (`.wasm`, `.wat`), one source file (`.c`, `.cpp`, `.cc`, `.cxx`, `.rs`, `.py`) or a
//! folder of sources with their headers ([`hand_ins`] says which files are whose; a Canvas
//! "Download Submissions" zip is read by Canvas user id), and the order of student ids
//! ([`natural_cmp`]).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use toolchain::Language;

use crate::error::{CourseError, CourseResult};
use crate::hand_in::{BatchFile, HandIn, Handed, ModuleSource, SharedBytes};
use crate::zips::{Unpacking, read_zip};

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

/// The entries of a zip that a batch is made of: modules, sources and headers
/// ([`is_batch_file`]), read within `unpacking` ([`read_zip`]).
pub fn read_batch_zip(zip: &zip::ZipArchive<std::io::Cursor<SharedBytes>>, unpacking: &mut Unpacking) -> CourseResult<Vec<BatchFile>> {
    read_zip(zip, unpacking, &|name| is_batch_file(base_name(name)))
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
            .and_then(|zip| read_batch_zip(&zip, &mut unpacking))
            .map_err(|e| CourseError::Batch(format!("{} is not a readable zip: {e}", path.display())))?;
        hand_ins(files, true)
    };
    Ok(accept_languages(hand_ins, languages))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zips::tests::{shared, zip_of};

    #[test]
    fn ids_sort_with_numbers_by_value() {
        let mut ids = vec!["A10", "A2", "A1", "a01", "A0", "b", "A16", "s3x", "s10x"];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(ids, ["A0", "A1", "A2", "A10", "A16", "a01", "b", "s3x", "s10x"]);
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
        let files = read_batch_zip(&archive, &mut Unpacking::new()).unwrap();
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
}
