//! A validator's files as a run holds them (see `files.rs`, whose host calls serve them):
//! what it was given, what it wrote and its open descriptors. A leaf: the run's state
//! (`state.rs`) holds a [`FileTable`].

/// What a run of a validator is given besides its stdin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Files {
    /// Its arguments after its name (`argv[1]` on).
    pub args: Vec<String>,
    /// The files it may read: (absolute path, bytes). A path's directories exist for it
    /// to name, not to list.
    pub read: Vec<(String, Vec<u8>)>,
    /// The absolute path of the directory it may create files in and write (the judges'
    /// feedback directory), empty at the start.
    pub directory: String,
}

/// The most descriptors a run may have open at once, the standard streams and the
/// preopened directory aside: a validator opens two or three.
pub const MAX_OPEN_FILES: usize = 64;

/// The most files a run may create: the judges' protocol names four.
pub const MAX_WRITTEN_FILES: usize = 16;

/// The descriptor of the preopened `/`, and the first of the files opened.
pub(crate) const ROOT_FD: i32 = 3;

/// A run's files, the ones it wrote and its open descriptors.
#[derive(Debug)]
pub(crate) struct FileTable {
    read: Vec<(String, Vec<u8>)>,
    /// The writable directory's path, relative to `/`.
    directory: String,
    /// The files created in `directory`: (name, bytes), in the order created.
    pub(crate) written: Vec<(String, Vec<u8>)>,
    /// Descriptor `ROOT_FD + 1 + i` is `open[i]`.
    open: Vec<Option<Open>>,
}

/// What a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    /// A directory: `/`, the writable one, or one on the way to a file read.
    Directory,
    /// `read[i]`.
    Read(usize),
    /// `written[i]`.
    Written(usize),
}

/// An open descriptor: what it names, where it reads or writes next, and how.
#[derive(Debug)]
pub(crate) struct Open {
    pub(crate) node: Node,
    pub(crate) at: u64,
    pub(crate) write: bool,
    pub(crate) append: bool,
}

impl FileTable {
    pub(crate) fn new(files: Files) -> FileTable {
        let read = files.read.into_iter().map(|(path, bytes)| (normal(&path).unwrap_or_default(), bytes)).collect();
        FileTable { read, directory: normal(&files.directory).unwrap_or_default(), written: Vec::new(), open: Vec::new() }
    }

    /// What `path` (relative to `/`, made normal) names, if anything.
    pub(crate) fn find(&self, path: &str) -> Option<Node> {
        let inside = |dir: &str, path: &str| dir.is_empty() || path.strip_prefix(dir).is_some_and(|rest| rest.starts_with('/'));
        if let Some(i) = self.read.iter().position(|(name, _)| name == path) {
            return Some(Node::Read(i));
        }
        if let Some(name) = self.in_directory(path)
            && let Some(i) = self.written.iter().position(|(written, _)| *written == name)
        {
            return Some(Node::Written(i));
        }
        let is_directory = path.is_empty() || path == self.directory || inside(path, &self.directory) || self.read.iter().any(|(name, _)| inside(path, name));
        is_directory.then_some(Node::Directory)
    }

    /// The name of `path` in the writable directory, if that is where it lies (directly).
    pub(crate) fn in_directory(&self, path: &str) -> Option<String> {
        let name = match self.directory.is_empty() {
            true => path,
            false => path.strip_prefix(&self.directory)?.strip_prefix('/')?,
        };
        (!name.is_empty() && !name.contains('/')).then(|| name.to_owned())
    }

    pub(crate) fn bytes(&self, node: Node) -> &[u8] {
        match node {
            Node::Read(i) => &self.read[i].1,
            Node::Written(i) => &self.written[i].1,
            Node::Directory => &[],
        }
    }

    pub(crate) fn opened(&mut self, fd: i32) -> Option<&mut Open> {
        let i = usize::try_from(fd.checked_sub(ROOT_FD + 1)?).ok()?;
        self.open.get_mut(i)?.as_mut()
    }

    /// A new empty file `name` of the writable directory, or `None` when
    /// [`MAX_WRITTEN_FILES`] are made.
    pub(crate) fn create(&mut self, name: String) -> Option<Node> {
        if self.written.len() >= MAX_WRITTEN_FILES {
            return None;
        }
        self.written.push((name, Vec::new()));
        Some(Node::Written(self.written.len() - 1))
    }

    /// Frees descriptor `fd`: false if it was not open.
    pub(crate) fn close(&mut self, fd: i32) -> bool {
        self.opened(fd).is_some() && {
            self.open[(fd - ROOT_FD - 1) as usize] = None;
            true
        }
    }

    /// A new descriptor for `open`, or `None` when [`MAX_OPEN_FILES`] are open.
    pub(crate) fn add(&mut self, open: Open) -> Option<i32> {
        let slot = match self.open.iter().position(Option::is_none) {
            Some(i) => i,
            None if self.open.len() < MAX_OPEN_FILES => {
                self.open.push(None);
                self.open.len() - 1
            }
            None => return None,
        };
        self.open[slot] = Some(open);
        Some(ROOT_FD + 1 + slot as i32)
    }

    /// The bytes the run has written to files.
    pub(crate) fn written_bytes(&self) -> usize {
        self.written.iter().map(|(_, bytes)| bytes.len()).sum()
    }
}

/// `path` relative to `/`, without `.`, empty components or a trailing `/`; `None` if
/// `..` climbs above `/`.
pub(crate) fn normal(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> FileTable {
        FileTable::new(Files {
            args: Vec::new(),
            read: vec![("/judge/input".into(), b"1 2\n".to_vec()), ("/judge/answer".into(), b"3\n".to_vec())],
            directory: "/judge/feedback/".into(),
        })
    }

    fn check(path: &str, expected: Option<Node>) {
        assert_eq!(table().find(&normal(path).unwrap()), expected, "{path}");
    }

    #[test]
    fn a_path_names_a_file_read_or_a_directory_on_the_way_to_one_or_nothing() {
        check("judge/input", Some(Node::Read(0)));
        check("./judge//answer", Some(Node::Read(1)));
        check("judge/feedback/../input", Some(Node::Read(0)));
        check("", Some(Node::Directory));
        check("judge", Some(Node::Directory));
        check("judge/feedback", Some(Node::Directory));
        check("judge/feedback/judgemessage.txt", None);
        check("judge/inp", None);
        check("jud", None);
    }

    #[test]
    fn a_path_cannot_climb_above_the_root() {
        assert_eq!(normal("a/../.."), None);
        assert_eq!(normal("a/./b/../c/"), Some("a/c".into()));
    }

    #[test]
    fn files_are_created_directly_in_the_writable_directory_only() {
        let files = table();
        assert_eq!(files.in_directory("judge/feedback/judgemessage.txt"), Some("judgemessage.txt".into()));
        assert_eq!(files.in_directory("judge/feedback/a/b"), None);
        assert_eq!(files.in_directory("judge/input"), None);
        assert_eq!(files.in_directory("judge/feedback"), None);
    }
}
