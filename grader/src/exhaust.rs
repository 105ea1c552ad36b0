//! Whether every input a generator can make has been tried: then the search is complete,
//! whatever its stopping rule says, and ends instead of drawing the same inputs again.
//!
//! A generator's inputs are the paths of its *choice tree*: each choice `choice(max)` is a
//! node with `max + 1` branches, and a run ends at a leaf. The tests drawn so far are paths
//! through it; the tree is exhausted when every node met has all its branches tried to
//! their ends. A generator that reads the size hint may draw differently at each size, so
//! its tree is one per size (the search draws every size in turn). Only small trees can be
//! exhausted: past [`MAX_NODES`] nodes the record is dropped and nothing more is claimed.

use std::collections::HashMap;

use crate::generate::{MAX_SIZE, TestCase};

/// The most nodes recorded: a tree this large has thousands of leaves, more than a search
/// of 10,000 tests draws each at least once, so it is not one whose inputs can all be
/// tried; and the record costs memory in every search (some 150 bytes a node: 3 MB here).
pub const MAX_NODES: usize = 20_000;

/// One node of a choice tree: the range of its choice once known, its branches, and whether
/// everything below it has been tried.
#[derive(Default)]
struct Node {
    /// `None` before a path through it was seen; `Some(None)` for a leaf (the run ended
    /// here); `Some(Some(max))` for a choice `0..=max`.
    shape: Option<Option<u64>>,
    children: HashMap<u64, usize>,
    complete: bool,
}

/// The choice trees of the tests drawn so far.
pub(crate) struct Exhaustion {
    nodes: Vec<Node>,
    /// The root of each size's tree (all at index 0 when the generator never read the size).
    roots: HashMap<u32, usize>,
    reads_size: bool,
    gave_up: bool,
}

impl Exhaustion {
    pub(crate) fn new() -> Exhaustion {
        Exhaustion { nodes: Vec::new(), roots: HashMap::new(), reads_size: false, gave_up: false }
    }

    /// Records a test the generator made: its choices, the range of each (`maxima`), and
    /// whether the generator read the size hint.
    pub(crate) fn record(&mut self, test: &TestCase, maxima: &[u64], read_size: bool) {
        if self.gave_up {
            return;
        }
        if read_size && !self.reads_size {
            // The trees so far assumed one for every size: start again, one per size.
            self.reads_size = true;
            self.nodes.clear();
            self.roots.clear();
        }
        let size = if self.reads_size { test.size } else { 0 };
        let root = match self.roots.get(&size) {
            Some(&root) => root,
            None => {
                self.nodes.push(Node::default());
                self.roots.insert(size, self.nodes.len() - 1);
                self.nodes.len() - 1
            }
        };
        let mut path = vec![root];
        for (&value, &max) in test.choices.0.iter().zip(maxima) {
            let node = *path.last().expect("the root");
            self.nodes[node].shape = Some(Some(max));
            let next = match self.nodes[node].children.get(&value) {
                Some(&next) => next,
                None => {
                    self.nodes.push(Node::default());
                    let next = self.nodes.len() - 1;
                    self.nodes[node].children.insert(value, next);
                    next
                }
            };
            path.push(next);
        }
        let leaf = *path.last().expect("the root");
        self.nodes[leaf].shape = Some(None);
        self.nodes[leaf].complete = true;
        // Completeness moves up while every branch of a node is complete.
        for &node in path.iter().rev().skip(1) {
            let complete = match self.nodes[node].shape {
                Some(Some(max)) => {
                    let children = &self.nodes[node].children;
                    max < children.len() as u64 && (0..=max).all(|v| children.get(&v).is_some_and(|&c| self.nodes[c].complete))
                }
                _ => false,
            };
            if !complete {
                break;
            }
            self.nodes[node].complete = true;
        }
        if self.nodes.len() > MAX_NODES {
            self.gave_up = true;
            self.nodes = Vec::new();
            self.roots = HashMap::new();
        }
    }

    /// Whether every input has been tried: every size's tree is complete (one tree when
    /// the generator never read the size).
    pub(crate) fn exhausted(&self) -> bool {
        if self.gave_up {
            return false;
        }
        let sizes: Vec<u32> = if self.reads_size { (0..=MAX_SIZE).collect() } else { vec![0] };
        sizes.iter().all(|size| self.roots.get(size).is_some_and(|&root| self.nodes[root].complete))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::ChoiceSequence;

    fn test(size: u32, choices: &[u64]) -> TestCase {
        TestCase { size, choices: ChoiceSequence(choices.to_vec()) }
    }

    #[test]
    fn a_tree_is_exhausted_once_every_branch_of_every_choice_met_was_tried_to_its_end() {
        // choice(2), then for 1 a choice(1): inputs 0, 1-0, 1-1, 2.
        let mut record = Exhaustion::new();
        let tried = [(&[0][..], &[2][..]), (&[1, 0], &[2, 1]), (&[2], &[2])];
        for (choices, maxima) in tried {
            record.record(&test(5, choices), maxima, false);
            assert!(!record.exhausted(), "{choices:?}: 1-1 is still to try");
        }
        record.record(&test(9, &[1, 1]), &[2, 1], false);
        assert!(record.exhausted(), "all four inputs tried, at whatever size");
    }

    #[test]
    fn a_generator_that_reads_the_size_is_exhausted_only_at_every_size() {
        let mut record = Exhaustion::new();
        for size in 0..MAX_SIZE {
            record.record(&test(size, &[]), &[], true);
        }
        assert!(!record.exhausted(), "size 100 is still to try");
        record.record(&test(MAX_SIZE, &[]), &[], true);
        assert!(record.exhausted());
    }

    #[test]
    fn a_choice_with_a_huge_range_is_never_exhausted() {
        let mut record = Exhaustion::new();
        record.record(&test(0, &[0]), &[u64::MAX], false);
        assert!(!record.exhausted());
    }
}
