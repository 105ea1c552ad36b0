//! Paper III, section 5.3: the 16 combinations of four anonymizer mutations (and a
//! program that crashes on everything) graded together. The correctness order bugrank
//! infers must be the one the mutations imply.
//!
//! Numbering (shared/problems/anonymizer.md): A(n+1) carries `take1` if bit 0 of n is set,
//! `dot` for bit 1, `at` for bit 2, `underscore` for bit 3. So A1 is correct, A2 = take1,
//! A3 = dot, A4 = dot+take1, A5 = at, A6 = at+take1, A7 = at+dot, A8 = at+dot+take1,
//! A9 = underscore, A10 = underscore+take1, A11 = underscore+dot, A12 = underscore+dot+take1,
//! A13 = underscore+at, A14 = underscore+at+take1, A15 = underscore+at+dot, A16 = all four.

use std::collections::BTreeSet;

use end_to_end::{grade_without_roster, root};

type Class = BTreeSet<String>;

fn class(ids: &[&str]) -> Class {
    ids.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_inferred_order_follows_the_mutations() {
    let problem = root().join("fixtures/problems/anonymizer").display().to_string();
    // The modules alone: `anonymizer.rs`, which they are built from, would be one more
    // submission (a source file is one).
    let mutants = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(root().join("fixtures/experiments/anonymizer-mutants")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wasm") {
            std::fs::copy(&path, mutants.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let mutants = mutants.path().display().to_string();
    let run = grade_without_roster(&[("--problem", &problem), ("--submissions", &mutants), ("--seed", "1")]);
    let order = &run.graded.analysis.order;
    let classes: Vec<Class> = order.classes.iter().map(|c| c.answers.iter().cloned().collect()).collect();
    let class_of = |id: &str| classes[order.classes.iter().position(|c| c.id == id).unwrap()].clone();
    let edges: BTreeSet<(Class, Class)> = order.edges.iter().map(|e| (class_of(&e.from), class_of(&e.to))).collect();

    let expected_classes = [
        class(&["reference", "A1"]),
        // take1 subsumes underscore: once the separators are dropped every blanked address
        // has the wrong length, whatever happens to the first character of a segment.
        class(&["A2", "A10"]),
        class(&["A4", "A12"]),
        // at + take1 subsumes dot (and underscore): any word with an `@` is blanked and loses
        // its `@`, so these fail exactly the inputs that contain an `@`, wherever dots split
        // words. The paper lists A6≡A14 and A8≡A16; by the specification A6≡A8 as well.
        class(&["A6", "A8", "A14", "A16"]),
        class(&["A3"]),
        class(&["A5"]),
        class(&["A7"]),
        class(&["A9"]),
        class(&["A11"]),
        class(&["A13"]),
        class(&["A15"]),
        // Crashes on everything: alone at the bottom.
        class(&["A0"]),
    ];
    assert_eq!(classes.iter().cloned().collect::<BTreeSet<_>>(), expected_classes.iter().cloned().collect(), "{classes:?}");

    let c = |ids: &[&str]| class(ids);
    let expected_edges: BTreeSet<(Class, Class)> = [
        // Each single mutation is strictly worse than the correct program. take1 is not
        // directly below A1: underscore (A9) lies between, since `@` alone passes under
        // underscore (no segment to blank) but fails under take1 (the `@` is dropped).
        (c(&["reference", "A1"]), c(&["A9"])),
        (c(&["reference", "A1"]), c(&["A3"])),
        (c(&["reference", "A1"]), c(&["A5"])),
        (c(&["A9"]), c(&["A2", "A10"])),
        // Adding a mutation only adds failures...
        (c(&["A9"]), c(&["A13"])),
        (c(&["A3"]), c(&["A11"])),
        (c(&["A2", "A10"]), c(&["A4", "A12"])),
        (c(&["A11"]), c(&["A4", "A12"])),
        (c(&["A11"]), c(&["A15"])),
        (c(&["A5"]), c(&["A13"])),
        // ...except where bugs interact: at and dot partly cancel (`aa.@@` fails `at`, but
        // `dot` splits off `@@`, whose segments are empty), so A5 and A7 are incomparable
        // and A7 hangs below dot (A3) alone.
        (c(&["A3"]), c(&["A7"])),
        (c(&["A7"]), c(&["A15"])),
        (c(&["A15"]), c(&["A6", "A8", "A14", "A16"])),
        (c(&["A4", "A12"]), c(&["A6", "A8", "A14", "A16"])),
        (c(&["A13"]), c(&["A6", "A8", "A14", "A16"])),
        // Those still pass the empty input, which A0 does not.
        (c(&["A6", "A8", "A14", "A16"]), c(&["A0"])),
    ]
    .into_iter()
    .collect();
    assert_eq!(edges, expected_edges);
}
