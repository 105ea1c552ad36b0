//! A folder someone else wrote (a judge's problem package), read as its own regular files
//! only: what `bugrank import` reads a package with.
//!
//! A package comes from outside (a judges' archive, a colleague, a download) and the
//! import may run as root: whatever it copies ends up in the course's tests, the generator
//! and the bug lists students read. So [`OwnFiles`] never follows a symbolic link out of
//! the package (`data/secret/1.in -> /etc/shadow`, `-> /proc/self/environ`), never walks
//! into a linked folder (three links to `.` would be a walk without end), reads a file
//! only after its size is checked (a sparse 6 GiB `.in` is refused, not read), and bounds
//! the folders it walks. A link to a regular file inside the package is read as that file:
//! packages do link a sample into `secret/`.
//!
//! ```
//! let package = tempfile::tempdir().unwrap();
//! std::fs::create_dir(package.path().join("data")).unwrap();
//! std::fs::write(package.path().join("data/1.in"), "3\n").unwrap();
//! std::os::unix::fs::symlink("/etc/hostname", package.path().join("data/2.in")).unwrap();
//! let files = course::own_files::OwnFiles::open(package.path()).unwrap();
//! let (found, refused) = files.files_under("data");
//! assert_eq!(found, ["data/1.in"]);
//! assert!(refused[0].contains("data/2.in is a symbolic link to a file outside the package"), "{refused:?}");
//! assert_eq!(files.read("data/1.in", 100).unwrap(), Some(b"3\n".to_vec()));
//! assert!(files.read("data/2.in", 100).is_err());
//! ```

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{CourseError, CourseResult};

/// The most folders deep a package is walked: real packages nest test groups two or three
/// deep (`data/secret/group1/…`); past this, a folder is left out with a note.
pub const MAX_PACKAGE_DEPTH: usize = 16;

/// The most entries (files, folders, links) a package walk looks at: a package with more
/// is not a problem package (bugrank keeps at most 500 course's tests); the rest is left out
/// with a note, so a folder of millions of files cannot hold an import.
pub const MAX_PACKAGE_ENTRIES: usize = 20_000;

/// A package's folder, whose own regular files are read (see the module's documentation).
#[derive(Debug)]
pub struct OwnFiles {
    /// The package's folder, its symbolic links resolved (the folder given may be a link:
    /// the author chose it).
    root: PathBuf,
}

impl OwnFiles {
    /// The package in `dir`.
    pub fn open(dir: &Path) -> CourseResult<OwnFiles> {
        let root = dir.canonicalize().map_err(CourseError::io(format!("cannot read {}", dir.display())))?;
        if !root.is_dir() {
            return Err(CourseError::Problem(format!("{} is not a folder", dir.display())));
        }
        Ok(OwnFiles { root })
    }

    /// The bytes of the package's file `relative` (a path with `/`), or `None` when there
    /// is no such file. `Err` names the file and why it is not read: a symbolic link out
    /// of the package or a loop of links, not a regular file, or more than `limit` bytes
    /// (checked before reading).
    pub fn read(&self, relative: &str, limit: u64) -> CourseResult<Option<Vec<u8>>> {
        let refused = |why: String| CourseError::Problem(format!("{relative} {why}"));
        let path = self.root.join(relative);
        match std::fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => return Ok(None),
            Err(e) => return Err(CourseError::Io { what: format!("cannot read {}", path.display()), error: e }),
            Ok(_) => {}
        }
        let real = self.inside(&path).map_err(refused)?;
        let mut file = open_no_follow(&real).map_err(CourseError::io(format!("cannot read {}", path.display())))?;
        let metadata = file.metadata().map_err(CourseError::io(format!("cannot read {}", path.display())))?;
        if !metadata.is_file() {
            return Err(refused("is not a regular file".to_owned()));
        }
        if metadata.len() > limit {
            return Err(refused(format!("is {}, more than the {} a file of it may have: not read", size_in_words(metadata.len()), size_in_words(limit))));
        }
        let mut bytes = Vec::with_capacity(metadata.len() as usize);
        // `take`: a file that grows while it is read stops at the limit all the same.
        (&mut file).take(limit + 1).read_to_end(&mut bytes).map_err(CourseError::io(format!("cannot read {}", path.display())))?;
        if bytes.len() as u64 > limit {
            return Err(refused(format!("is more than the {} a file of it may have: not read", size_in_words(limit))));
        }
        Ok(Some(bytes))
    }

    /// The package's files under the folder `relative` (none when it is not there), as
    /// paths with `/` from the package's top, folders walked in name order; and what was
    /// left out, each naming its path and why (a symbolic link out of the package or to a
    /// folder, a loop of links, a special file, a folder too deep, too many entries).
    pub fn files_under(&self, relative: &str) -> (Vec<String>, Vec<String>) {
        let mut walk = Walk { files: Vec::new(), refused: Vec::new(), entries: 0 };
        let start = self.root.join(relative);
        if std::fs::symlink_metadata(&start).is_ok_and(|m| m.is_dir()) {
            self.walk(&start, relative.trim_end_matches('/'), 0, &mut walk);
        } else if std::fs::symlink_metadata(&start).is_ok_and(|m| m.file_type().is_symlink()) {
            walk.refused.push(format!("{relative} is a symbolic link to a folder, which is not followed: left out"));
        }
        (walk.files, walk.refused)
    }

    fn walk(&self, dir: &Path, relative: &str, depth: usize, walk: &mut Walk) {
        if depth >= MAX_PACKAGE_DEPTH {
            walk.refused.push(format!("{relative} is more than {MAX_PACKAGE_DEPTH} folders deep: left out"));
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            walk.refused.push(format!("{relative} cannot be read: left out"));
            return;
        };
        let mut entries: Vec<std::fs::DirEntry> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            walk.entries += 1;
            let path = format!("{relative}/{}", entry.file_name().to_string_lossy());
            if walk.entries > MAX_PACKAGE_ENTRIES {
                walk.refused.push(format!("{path} and what follows it: the package has more than {MAX_PACKAGE_ENTRIES} files and folders; left out"));
                return;
            }
            // The entry's own type: a link is a link here, never what it points at.
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                self.walk(&entry.path(), &path, depth + 1, walk);
            } else if kind.is_file() {
                walk.files.push(path);
            } else if kind.is_symlink() {
                match self.inside(&entry.path()) {
                    Ok(real) if real.is_file() => walk.files.push(path),
                    Ok(_) => walk.refused.push(format!("{path} is a symbolic link to a folder or a special file, which is not followed: left out")),
                    Err(why) => walk.refused.push(format!("{path} {why}: left out")),
                }
            } else {
                walk.refused.push(format!("{path} is not a regular file: left out"));
            }
        }
    }

    /// `path` with its links resolved, when that stays inside the package; else why not.
    fn inside(&self, path: &Path) -> Result<PathBuf, String> {
        let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        match path.canonicalize() {
            Ok(real) if real.starts_with(&self.root) => Ok(real),
            Ok(_) => Err(format!(
                "is {} to a file outside the package, which bugrank does not read (a package is read as its own files only)",
                if linked { "a symbolic link" } else { "in a linked folder that leads" }
            )),
            Err(e) if e.raw_os_error() == Some(40) => Err("is a loop of symbolic links".to_owned()),
            Err(_) => Err("is a symbolic link that leads nowhere".to_owned()),
        }
    }
}

/// What a walk found so far.
struct Walk {
    files: Vec<String>,
    refused: Vec<String>,
    entries: usize,
}

/// Opens `path` for reading without following a link at its end, nor blocking on a FIFO.
fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NOFOLLOW (0o400000 on Linux's common architectures) and O_NONBLOCK (0o4000).
    std::fs::OpenOptions::new().read(true).custom_flags(0o400000 | 0o4000).open(path)
}

/// `bytes` as people say a size: "6 GiB", "64 MiB", "512 KiB", "100 bytes".
pub fn size_in_words(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn package() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("data/secret/group")).unwrap();
        std::fs::write(dir.path().join("data/secret/group/1.in"), "1\n").unwrap();
        dir
    }

    #[test]
    fn a_link_out_of_the_package_is_refused_by_name_and_one_inside_is_read_as_its_file() {
        let dir = package();
        symlink("/etc/passwd", dir.path().join("data/secret/passwd.in")).unwrap();
        symlink("/proc/self/environ", dir.path().join("data/secret/environ.in")).unwrap();
        symlink("group/1.in", dir.path().join("data/secret/again.in")).unwrap();
        let files = OwnFiles::open(dir.path()).unwrap();
        let (found, refused) = files.files_under("data");
        assert_eq!(found, ["data/secret/again.in", "data/secret/group/1.in"]);
        assert_eq!(refused.len(), 2, "{refused:?}");
        assert!(refused[0].starts_with("data/secret/environ.in is a symbolic link to a file outside the package"), "{refused:?}");
        assert!(refused[1].starts_with("data/secret/passwd.in is a symbolic link to a file outside the package"), "{refused:?}");
        assert_eq!(files.read("data/secret/again.in", 10).unwrap(), Some(b"1\n".to_vec()));
        let error = files.read("data/secret/passwd.in", 1 << 20).unwrap_err().to_string();
        assert!(error.contains("data/secret/passwd.in is a symbolic link to a file outside the package"), "{error}");
        assert_eq!(files.read("data/secret/none.in", 10).unwrap(), None);
    }

    #[test]
    fn a_linked_folder_is_never_walked_so_a_loop_of_links_ends_at_once() {
        let dir = package();
        for name in ["a", "b", "c"] {
            symlink(".", dir.path().join("data").join(name)).unwrap();
        }
        symlink("/etc", dir.path().join("data/etc")).unwrap();
        symlink("loop2", dir.path().join("data/loop1")).unwrap();
        symlink("loop1", dir.path().join("data/loop2")).unwrap();
        let files = OwnFiles::open(dir.path()).unwrap();
        let (found, refused) = files.files_under("data");
        assert_eq!(found, ["data/secret/group/1.in"]);
        assert!(refused.iter().filter(|r| r.contains("to a folder or a special file, which is not followed")).count() == 3, "{refused:?}");
        assert!(refused.iter().any(|r| r.starts_with("data/etc is a symbolic link to a file outside the package")), "{refused:?}");
        assert!(refused.iter().any(|r| r.starts_with("data/loop1 is a loop of symbolic links")), "{refused:?}");
        assert!(files.read("data/a/secret/group/1.in", 10).unwrap().is_some(), "a path through a link inside the package stays inside");
        assert!(files.read("data/etc/passwd", 1 << 20).unwrap_err().to_string().contains("in a linked folder that leads to a file outside the package"));
    }

    #[test]
    fn a_file_over_its_limit_is_refused_by_its_size_before_anything_is_read() {
        let dir = package();
        let big = std::fs::File::create(dir.path().join("data/big.in")).unwrap();
        big.set_len(6 << 30).unwrap();
        let files = OwnFiles::open(dir.path()).unwrap();
        let error = files.read("data/big.in", 64 << 20).unwrap_err().to_string();
        assert_eq!(error, "data/big.in is 6 GiB, more than the 64 MiB a file of it may have: not read");
    }

    #[test]
    fn a_walk_is_bounded_in_depth() {
        let dir = tempfile::tempdir().unwrap();
        let deep: PathBuf = (0..MAX_PACKAGE_DEPTH + 2).map(|i| format!("d{i}")).collect();
        std::fs::create_dir_all(dir.path().join("data").join(&deep)).unwrap();
        std::fs::write(dir.path().join("data").join(&deep).join("x.in"), "").unwrap();
        let (found, refused) = OwnFiles::open(dir.path()).unwrap().files_under("data");
        assert!(found.is_empty());
        assert!(refused[0].contains(&format!("is more than {MAX_PACKAGE_DEPTH} folders deep")), "{refused:?}");
    }

    #[test]
    fn sizes_are_said_in_words() {
        assert_eq!(size_in_words(6 << 30), "6 GiB");
        assert_eq!(size_in_words(64 << 20), "64 MiB");
        assert_eq!(size_in_words(3 << 19), "1.5 MiB");
        assert_eq!(size_in_words(100), "100 bytes");
    }
}
