//! The correctness partial order (Paper III, Figures 3.2-3.4).
//!
//! Answers that pass exactly the same suite tests form one class. There is an arrow from
//! class X down to class Y when Y passes a strict subset of what X passes; only covering
//! arrows are kept (no class lies strictly between), each labelled with one test that X
//! passes and Y fails, and how many other such tests there are.

use serde::{Deserialize, Serialize};

use crate::partition::BitSet;

/// A class of answers that pass exactly the same tests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Class {
    pub id: String,
    pub answers: Vec<String>,
    pub passed: usize,
}

/// A covering arrow from the better class to the worse.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    pub from: String,
    pub to: String,
    /// The first suite test (in suite order) that `from` passes and `to` fails.
    pub witness: String,
    /// How many other tests distinguish them the same way: the "(+n)" of the paper.
    pub others: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorrectnessOrder {
    pub classes: Vec<Class>,
    pub edges: Vec<Edge>,
}

/// Builds the order from each answer's id and pass set (a set of suite-test indices);
/// `test_ids[i]` names suite test `i`. Classes are numbered `c1`, `c2`, ... from the most
/// tests passed down; within a class, answers keep the order they were given in.
pub fn correctness_order(answers: &[(String, BitSet)], test_ids: &[String]) -> CorrectnessOrder {
    let mut groups: Vec<(BitSet, Vec<String>)> = Vec::new();
    for (id, passes) in answers {
        match groups.iter_mut().find(|(set, _)| set == passes) {
            Some((_, members)) => members.push(id.clone()),
            None => groups.push((passes.clone(), vec![id.clone()])),
        }
    }
    // Stable sort: equal scores keep the order of their first answer.
    groups.sort_by_key(|(set, _)| std::cmp::Reverse(set.len()));
    let id = |i: usize| format!("c{}", i + 1);

    let mut edges = Vec::new();
    for (x, (above, _)) in groups.iter().enumerate() {
        // Candidates below x, largest first: a candidate is covered by x unless it lies
        // under a cover already found (which would then sit strictly between).
        let mut covers: Vec<usize> = Vec::new();
        for (y, (below, _)) in groups.iter().enumerate().skip(x + 1) {
            let strictly_below = below.len() < above.len() && below.is_subset(above);
            if strictly_below && !covers.iter().any(|&z| below.is_subset(&groups[z].0)) {
                covers.push(y);
            }
        }
        for y in covers {
            let distinguishing: Vec<usize> = above.difference(&groups[y].0).iter().collect();
            edges.push(Edge { from: id(x), to: id(y), witness: test_ids[distinguishing[0]].clone(), others: distinguishing.len() - 1 });
        }
    }
    let classes = groups.into_iter().enumerate().map(|(i, (set, answers))| Class { id: id(i), answers, passed: set.len() }).collect();
    CorrectnessOrder { classes, edges }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(answers: &[(&str, &[usize])], tests: usize) -> CorrectnessOrder {
        let answers: Vec<(String, BitSet)> = answers.iter().map(|(id, passes)| (id.to_string(), BitSet::of(tests, passes.iter().copied()))).collect();
        let test_ids: Vec<String> = (1..=tests).map(|i| format!("t{i}")).collect();
        correctness_order(&answers, &test_ids)
    }

    fn edge(from: &str, to: &str, witness: &str, others: usize) -> Edge {
        Edge { from: from.into(), to: to.into(), witness: witness.into(), others }
    }

    #[test]
    fn answers_passing_the_same_tests_share_a_class_with_the_reference() {
        let o = order(&[("reference", &[0, 1]), ("a1", &[0, 1]), ("a2", &[0])], 2);
        assert_eq!(o.classes[0].answers, ["reference", "a1"]);
        assert_eq!(o.classes[0].passed, 2);
        assert_eq!(o.classes[1].answers, ["a2"]);
    }

    #[test]
    fn only_covering_edges_are_kept() {
        // reference ⊃ a1 ⊃ a2: no edge from the reference straight to a2.
        let o = order(&[("reference", &[0, 1, 2]), ("a1", &[0, 1]), ("a2", &[0])], 3);
        assert_eq!(o.edges, [edge("c1", "c2", "t3", 0), edge("c2", "c3", "t2", 0)]);
    }

    #[test]
    fn incomparable_answers_each_get_an_edge_and_witnesses_count_the_others() {
        let o = order(&[("reference", &[0, 1, 2, 3]), ("a1", &[0]), ("a2", &[1]), ("none", &[])], 4);
        assert_eq!(o.edges, [edge("c1", "c2", "t2", 2), edge("c1", "c3", "t1", 2), edge("c2", "c4", "t1", 0), edge("c3", "c4", "t2", 0),]);
    }
}
