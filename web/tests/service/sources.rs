//! A class hands in sources through the service: the upload stores them, the analysis
//! builds them in the sandbox, and a compile error is its student's result.

use crate::common::{Client, Service, fixture, issue_link, run_analysis, upload_bundle, upload_problem, upload_ready, zip};

/// True when C and Rust can be built here; otherwise says why and returns false, except
/// under `CI` (where `.ci/run` installs the toolchains), where it fails.
pub fn can_build() -> bool {
    let builder = toolchain::Builder::new(None);
    for language in [toolchain::Language::C, toolchain::Language::Rust] {
        if let Err(missing) = builder.ready(language) {
            assert!(std::env::var_os("CI").is_none(), "under CI every toolchain must be installed: {missing}");
            eprintln!("skipped: {missing}");
            return false;
        }
    }
    true
}

#[test]
fn an_uploaded_zip_of_sources_is_built_by_the_analysis_and_a_compile_error_is_shown_to_its_student_alone() {
    if !can_build() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    let problem = upload_problem(&client, "anonymizer");
    let file = |name: &str| std::fs::read(fixture("anonymizer").join("submissions").join(name)).unwrap();
    // The host's password file: its first line must appear nowhere.
    let secret = std::fs::read_to_string("/etc/passwd").unwrap().lines().next().unwrap().to_owned();
    let (a09, a01, a02) = (file("a09.c"), file("a01.rs"), file("a02.wasm"));
    let hostile = b"#include \"/etc/passwd\"\nint main(void) { return 0; }\n";
    let archive = zip(&[
        ("class/a09.c", &a09),
        ("class/a01.rs", &a01),
        ("class/a02.wasm", &a02),
        ("class/folder/main.c", &a09),
        ("class/folder/io.h", b"#define IO 1\n"),
        ("class/hostile.c", hostile),
        // Python: one that runs, one with a syntax error.
        ("class/py.py", b"line = input()\nprint(line)\n"),
        ("class/badpy.py", b"print('a'\n"),
    ]);
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Sources"), ("course", "C101")], &[("modules", "class.zip", &archive)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let upload = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    assert_eq!(upload["status"], "saved", "a clean upload: {upload:#}");
    let batch = upload["batch"].as_i64().unwrap();
    let mut students: Vec<String> =
        client.api(&format!("/api/batches/{batch}"))["submissions"].as_array().unwrap().iter().map(|s| s["student"].as_str().unwrap().to_owned()).collect();
    students.sort();
    assert_eq!(students, ["a01", "a02", "a09", "badpy", "folder", "hostile", "py"]);

    // The upload report says who compiles before any analysis; the builds are kept, so the
    // analysis builds nothing again.
    let build = |file: &str| {
        upload["report"]["files"].as_array().unwrap().iter().find(|f| f["file"] == file).unwrap_or_else(|| panic!("{file}: {upload:#}"))["build"].clone()
    };
    assert_eq!(build("class.zip/class/a09.c")["compiles"]["language"], "C");
    assert_eq!(build("class.zip/class/a01.rs")["compiles"]["language"], "Rust");
    assert!(build("class.zip/class/a02.wasm").is_null(), "a module is not compiled");
    let message = build("class.zip/class/hostile.c")["does_not_compile"]["message"].as_str().unwrap_or_else(|| panic!("{upload:#}")).to_owned();
    assert!(message.contains("hostile.c:1:10: fatal error: '/etc/passwd' file not found"), "{message}");
    let page = client.get(&format!("/uploads/{}", reply.redirect_id())).body;
    assert!(page.contains("C, does not compile"), "{page}");
    assert_eq!(build("class.zip/class/py.py")["compiles"]["language"], "Python");
    let python_error = build("class.zip/class/badpy.py")["does_not_compile"]["message"].as_str().unwrap_or_else(|| panic!("{upload:#}")).to_owned();
    assert_eq!(python_error, "  File \"badpy.py\", line 1\n    print('a'\n         ^\nSyntaxError: '(' was never closed");
    assert!(page.contains("Python, does not compile"), "{page}");
    let kept = || std::fs::read_dir(data.path().join("builds")).map_or(0, |d| d.count());
    let built_at_upload = kept();
    assert!(built_at_upload >= 4, "the four builds are kept: {built_at_upload}");

    let id = run_analysis(&client, batch, &[("seed", "1"), ("stable_after", "500")]);
    let done = client.wait_for_analysis(id);
    assert_eq!(done["analysis"]["status"], "done", "{:#}", done["analysis"]);
    let answers = done["result"]["answers"].as_array().unwrap();
    let answer = |id: &str| answers.iter().find(|a| a["id"] == id).unwrap_or_else(|| panic!("{id} is graded"));
    assert!(answer("hostile")["rank"].as_u64() > answer("a01")["rank"].as_u64(), "below the programs that ran");
    assert_eq!(answer("hostile")["rank"], answer("badpy")["rank"], "the two that did not build share the last rank");
    assert_eq!(answer("hostile")["passed"], 0);
    let error = answer("hostile")["build"]["error"].as_str().unwrap();
    assert!(error.contains("hostile.c:1:10: fatal error: '/etc/passwd' file not found"), "{error}");
    assert_eq!(answer("a01")["build"]["language"], "Rust");
    assert_eq!(answer("a09")["build"]["language"], "C");
    assert_eq!(answer("py")["build"]["language"], "Python");
    assert!(answer("badpy")["build"]["error"].as_str().unwrap().ends_with("SyntaxError: '(' was never closed"));
    assert!(answer("a02")["build"].is_null(), "a module is graded as it is");
    assert_eq!(answer("folder")["failed"], answer("a09")["failed"], "the same program, as a folder");
    assert_eq!(kept(), built_at_upload, "the analysis found every build kept at upload");

    let page = client.get(&format!("/analyses/{id}"));
    assert!(page.body.contains("did not compile"), "the ranking says so");
    assert!(page.body.contains("did not run: SyntaxError at line 1"), "a Python hand-in's refusal in Python's words");
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let hostile_page = client.get(&issue_link(&client, batch, "hostile"));
    assert!(hostile_page.body.contains("did not compile, and so fails all"), "{}", hostile_page.body);
    let python_page = client.get(&issue_link(&client, batch, "badpy"));
    assert!(python_page.body.contains("Your program did not run: SyntaxError at line 1, so it could not be tested"), "{}", python_page.body);
    assert!(python_page.body.contains("earned 0 of 100 points: it never ran, so no input could be graded."), "{}", python_page.body);
    assert!(
        hostile_page.body.contains("&#39;/etc/passwd&#39; file not found") || hostile_page.body.contains("'/etc/passwd' file not found"),
        "{}",
        hostile_page.body
    );
    let a09_page = client.get(&issue_link(&client, batch, "a09"));
    assert!(!a09_page.body.contains("passwd"), "another student's compile error is not shown");
    assert!(a09_page.body.contains("Test t"), "a09's own bugs: {}", a09_page.body);

    for (what, text) in [("the analysis", done.to_string()), ("the student's page", hostile_page.body.clone())] {
        assert!(!text.contains(&secret), "{what} shows the host's /etc/passwd");
    }
    for entry in walk(data.path()) {
        let bytes = std::fs::read(&entry).unwrap();
        assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_bytes()), "{} holds the host's /etc/passwd", entry.display());
    }
}

/// Every file under `dir`.
pub fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { files.extend(walk(&path)) } else { files.push(path) }
    }
    files
}

/// The files of a new C problem (`bugrank new-problem`) as `(path in a folder, bytes)`,
/// with `edits` applied.
fn new_problem_files(edits: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
    new_c_problem_files(false, edits)
}

/// [`new_problem_files`] of a function-level problem when `functions` (`--functions`).
pub fn new_c_problem_files(functions: bool, edits: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("largest");
    web::cli::new_problem::new_problem(&dir, "largest", web::cli::new_problem::AuthorLanguage::C, functions).unwrap();
    for (file, text) in edits {
        std::fs::write(dir.join(file), text).unwrap();
    }
    let mut files = Vec::new();
    let harness: &[&str] = if functions { &["interface.h", "harness.c"] } else { &[] };
    for name in ["problem.toml", "statement.md", "reference.c", "generator.c", "submissions/correct.c", "submissions/buggy.c"].iter().chain(harness) {
        files.push((format!("largest/{name}"), std::fs::read(dir.join(name)).unwrap()));
    }
    files
}

#[test]
fn a_function_level_problem_shows_its_harness_builds_hand_ins_with_it_and_says_what_does_not_fit() {
    if !can_build() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    let files = new_c_problem_files(true, &[]);
    let problem = upload_ready(&client, "stack.zip", &bundle(&files));
    let page = client.get(&format!("/problems/{problem}")).body;
    assert!(page.contains("Ready: every check passed."), "{page}");
    assert!(page.contains("<h2>Harness</h2>") && page.contains("int stack_push(int value);"), "the interface is on the problem's page: {page}");

    let text = |name: &str| files.iter().find(|(n, _)| n.ends_with(name)).unwrap().1.clone();
    let with_main = [text("submissions/correct.c"), b"int main(void) { stack_init(1); return stack_push(3); }\n".to_vec()].concat();
    let without_pop = String::from_utf8(text("submissions/correct.c")).unwrap().replace("int stack_pop(void)", "static int unused_pop(void)");
    let archive = zip(&[
        ("class/a01.c", &text("submissions/correct.c")),
        ("class/a02.c", &text("submissions/buggy.c")),
        ("class/a03.c", &with_main),
        ("class/a04.c", without_pop.as_bytes()),
    ]);
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Stacks"), ("course", "C101")], &[("modules", "class.zip", &archive)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let upload = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    let build = |file: &str| {
        upload["report"]["files"].as_array().unwrap().iter().find(|f| f["file"] == file).unwrap_or_else(|| panic!("{file}: {upload:#}"))["build"].clone()
    };
    assert_eq!(build("class.zip/class/a01.c")["compiles"]["language"], "C", "{upload:#}");
    let message = |file: &str| build(file)["does_not_compile"]["message"].as_str().unwrap_or_else(|| panic!("{upload:#}")).to_owned();
    assert_eq!(build("class.zip/class/a03.c")["compiles"]["language"], "C", "a main kept for the student's tests is left out: {upload:#}");
    assert!(message("class.zip/class/a04.c").starts_with("Your file does not define `stack_pop`"), "{upload:#}");

    let batch = upload["batch"].as_i64().unwrap();
    let id = run_analysis(&client, batch, &[("seed", "1"), ("stable_after", "500")]);
    let done = client.wait_for_analysis(id);
    assert_eq!(done["analysis"]["status"], "done", "{:#}", done["analysis"]);
    let answers = done["result"]["answers"].as_array().unwrap();
    let answer = |id: &str| answers.iter().find(|a| a["id"] == id).unwrap_or_else(|| panic!("{id} is graded")).clone();
    assert_eq!(answer("a01")["failed"].as_array().unwrap().len(), 0, "the correct one prints as it works, and passes");
    assert_eq!(answer("a02")["failed"].as_array().unwrap().len(), 1);
    assert!(answer("a03")["build"]["warnings"].as_str().unwrap().starts_with("Your file defines `main`, which is left out"), "{:#}", answer("a03"));
    assert_eq!(answer("a03")["failed"].as_array().unwrap().len(), 0, "its functions are a01's");
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let link = issue_link(&client, batch, "a02");
    let a02 = client.get(&link).body;
    assert!(a02.contains("The calls in order") && a02.contains("first-difference"), "{a02}");
    // Shown once, as the calls: not again as the raw input and outputs (one tap away).
    assert!(a02.contains("<summary>The input as the harness reads it</summary>"), "{a02}");
    assert!(!a02.contains("<th>Expected</th><td>") && !a02.contains("<th>Input</th>"), "no second copy of the outputs: {a02}");
    let statement = client.get(&format!("{link}/{id}/statement")).body;
    assert!(statement.contains("int stack_pop(void);"), "the student sees the interface: {statement}");
}

#[test]
fn a_python_hand_in_using_a_forbidden_sort_is_told_so_at_upload_in_the_ranking_and_on_its_page_with_the_line() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    // The search class forbids sort, sorted and bisect (its problem.toml's [rules.python]).
    // s018 sorts a copy with `.sort()` and is right by its output; s007 is right and obeys.
    let (upload, upload_id) =
        upload_cohort_class(&client, "search", &["problem.toml", "statement.md", "reference.py", "generator.py", "harness.py"], &["s018.py", "s007.py"]);
    assert_eq!(build_of(&upload, "s018.py")["compiles"]["rules_broken"], serde_json::json!(["uses `sort` (line 3): `s2.sort()`"]), "{upload:#}");
    assert!(build_of(&upload, "s007.py")["compiles"].get("rules_broken").is_none(), "{upload:#}");
    let page = client.get(&format!("/uploads/{upload_id}")).body;
    assert!(page.contains("breaks the assignment's rules</strong> (it costs points whatever it prints): uses `sort` (line 3): `s2.sort()`"), "{page}");

    let batch = upload["batch"].as_i64().unwrap();
    let id = run_analysis(&client, batch, &[("seed", "1"), ("stable_after", "200")]);
    let done = client.wait_for_analysis(id);
    let answer = |id: &str| done["result"]["answers"].as_array().unwrap().iter().find(|a| a["id"] == id).unwrap().clone();
    assert_eq!(
        (answer("s018")["points"]["points"].as_f64(), answer("s018")["failed"].as_array().unwrap().len()),
        (Some(0.0), 0),
        "right by its output, no points"
    );
    assert_eq!(answer("s007")["points"]["points"].as_f64(), Some(100.0));
    let ranking = client.get(&format!("/analyses/{id}")).body;
    assert!(ranking.contains("breaks a rule: uses `sort` (line 3)"), "{ranking}");
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let page = client.get(&issue_link(&client, batch, "s018")).body;
    assert!(
        page.contains("It breaks the assignment's rules, which no output shows:") && page.contains("it uses `sort` (line 3): <code>s2.sort()</code>"),
        "{page}"
    );
    assert!(page.contains("Its sources break a rule of the assignment, whatever they print: it uses `sort` (line 3), which costs points."), "{page}");
}

#[test]
fn a_c_hand_in_calling_a_forbidden_qsort_is_told_so_at_upload_with_the_line() {
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    // The search class in C forbids qsort and bsearch (its problem.toml's [rules.c]):
    // found in the calls of each hand-in's compiled code at upload, as Python's are.
    let (upload, _) = upload_cohort_class(
        &client,
        "search-c",
        &["problem.toml", "statement.md", "reference.c", "generator.py", "harness.c", "interface.h"],
        &["s018.c", "s007.c"],
    );
    assert_eq!(
        build_of(&upload, "s018.c")["compiles"]["rules_broken"],
        serde_json::json!(["uses `qsort` (line 12): `qsort(s2, n, sizeof(int), cmp);`"]),
        "{upload:#}"
    );
    assert!(build_of(&upload, "s007.c")["compiles"].get("rules_broken").is_none(), "{upload:#}");
}

/// Uploads the problem of the fixture cohort `cohort` (bundled from its `problem_files`)
/// and, as a batch of it, the class of its `hand_ins` (files of its `submissions/`, in
/// `class.zip`): the upload's report (`/api/uploads/N`) and its number.
fn upload_cohort_class(client: &Client, cohort: &str, problem_files: &[&str], hand_ins: &[&str]) -> (serde_json::Value, i64) {
    let dir = fixture(&format!("../cohorts/{cohort}"));
    let files: Vec<(String, Vec<u8>)> = problem_files.iter().map(|f| (format!("{cohort}/{f}"), std::fs::read(dir.join(f)).unwrap())).collect();
    let problem = upload_ready(client, &format!("{cohort}.zip"), &bundle(&files));
    let hand_ins: Vec<(String, Vec<u8>)> = hand_ins.iter().map(|f| (format!("class/{f}"), std::fs::read(dir.join("submissions").join(f)).unwrap())).collect();
    let class = zip(&hand_ins.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>());
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", cohort), ("course", "C101")], &[("modules", "class.zip", &class)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    (client.api(&format!("/api/uploads/{}", reply.redirect_id())), reply.redirect_id())
}

/// The build report of the hand-in `file` of the class uploaded by [`upload_cohort_class`].
fn build_of(upload: &serde_json::Value, file: &str) -> serde_json::Value {
    let path = format!("class.zip/class/{file}");
    upload["report"]["files"].as_array().unwrap().iter().find(|f| f["file"] == path).unwrap_or_else(|| panic!("{file}: {upload:#}"))["build"].clone()
}

/// A problem bundle (a zip) of `files`.
pub fn bundle(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    zip(&files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>())
}

#[test]
fn a_problem_bundle_of_sources_is_built_in_the_sandbox_and_its_page_shows_the_check_report() {
    if !can_build() {
        return;
    }
    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();

    // Without the guest library in the bundle: the generator gets bugrank's own.
    let problem = upload_ready(&client, "largest.zip", &bundle(&new_problem_files(&[])));
    let page = client.get(&format!("/problems/{problem}")).body;
    assert!(page.contains("Problem check") && page.contains("Ready: every check passed."), "{page}");
    for check in [
        "the generator replays",
        "the reference handles the 1000 generated inputs",
        "the correct example `correct` passes every input",
        "the buggy example `buggy` fails some input",
    ] {
        assert!(page.contains(check), "the page lists `{check}`");
    }
    assert!(page.contains("The reference&#39;s fuel per input: min ") || page.contains("The reference's fuel per input: min "), "{page}");
    // The checked modules are kept beside the sources: later analyses run those.
    let stored: Vec<std::path::PathBuf> = walk(&data.path().join("problems")).into_iter().filter(|p| p.ends_with("reference.c")).collect();
    assert_eq!(stored.len(), 1, "{stored:?}");
    for module in ["reference.wasm", "generator.wasm", "check.json"] {
        assert!(stored[0].with_file_name(module).is_file(), "{module} is stored beside the sources");
    }

    // The problem accepts C only: a Rust source is rejected at upload, naming why.
    let c_only = "title = \"largest\"\nlanguages = [\"c\"]\n";
    let c_only = upload_ready(&client, "c-only.zip", &bundle(&new_problem_files(&[("problem.toml", c_only)])));
    assert!(client.get(&format!("/problems/{c_only}")).body.contains("not in this problem"), "Rust and C++ are shown as not accepted");
    let rust = b"fn main() { println!(\"empty\"); }\n";
    let c = b"#include <stdio.h>\nint main(void) { puts(\"empty\"); return 0; }\n";
    let reply =
        client.upload(&format!("/problems/{c_only}/batches"), &[("name", "One"), ("course", "C101")], &[("modules", "s1.rs", rust), ("modules", "s2.c", c)]);
    let upload = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    let files = upload["report"]["files"].as_array().unwrap_or_else(|| panic!("{upload:#}"));
    let rejected = files.iter().find(|f| f["file"] == "s1.rs").unwrap_or_else(|| panic!("{upload:#}"))["rejected"].as_str().unwrap().to_owned();
    assert!(rejected.contains("this problem accepts sources in C (or modules), not Rust"), "{rejected}");
    assert!(files.iter().find(|f| f["file"] == "s2.c").unwrap()["rejected"].is_null(), "{upload:#}");

    // A reference that includes a host file does not compile, and the file's content
    // appears nowhere; the bundle is refused with the compiler's message.
    let secret = std::fs::read_to_string("/etc/passwd").unwrap().lines().next().unwrap().to_owned();
    let hostile = "#include \"/etc/passwd\"\nint main(void) { return 0; }\n";
    let check = upload_bundle(&client, "/problems", "hostile.zip", &bundle(&new_problem_files(&[("reference.c", hostile)])));
    assert_eq!(check["status"], "refused", "{check:#}");
    let page = client.get(&format!("/problems/checks/{}", check["id"])).body;
    assert!(page.contains("reference.c does not compile"), "{page}");
    assert!(!page.contains(&secret), "the host's password file stays out of the page");
}

#[test]
fn a_bundle_with_the_courses_tests_checks_them_and_its_analysis_and_bug_lists_name_them() {
    if !can_build() {
        return;
    }
    // The judge package of the average problem, imported: its data are the course's tests.
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("average");
    let package = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/packages/average");
    course::import::import_package(&package, &dir).unwrap();
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for path in walk(&dir) {
        let name = path.strip_prefix(root.path()).unwrap().display().to_string();
        files.push((name, std::fs::read(&path).unwrap()));
    }
    assert!(files.iter().any(|(name, _)| name == "average/tests/secret-04-large-n.in"), "{:?}", files.iter().map(|f| &f.0).collect::<Vec<_>>());

    let data = tempfile::tempdir().unwrap();
    let service = Service::start(data.path(), &[]);
    let client = service.instructor();
    let problem = upload_ready(&client, "average.zip", &bundle(&files));
    let page = client.get(&format!("/problems/{problem}")).body;
    assert!(page.contains("Ready: every check passed."), "{page}");
    assert!(page.contains("the reference agrees with the course") && page.contains("by running out of time"), "{page}");

    let file = |name: &str| files.iter().find(|(n, _)| n.ends_with(name)).unwrap().1.clone();
    let archive = zip(&[
        ("class/s1.c", &file("submissions/correct-average.c")),
        ("class/s2.c", &file("submissions/wrong-int_division.c")),
        ("class/s3.c", &file("submissions/crash-small_array.c")),
    ]);
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Averages"), ("course", "C101")], &[("modules", "class.zip", &archive)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let batch = client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().unwrap();
    let id = run_analysis(&client, batch, &[("seed", "1"), ("stable_after", "200")]);
    let done = client.wait_for_analysis(id);
    assert_eq!(done["analysis"]["status"], "done", "{:#}", done["analysis"]);
    let suite: Vec<String> = done["result"]["suite"].as_array().unwrap().iter().map(|t| t["course_test"].as_str().unwrap_or("-").to_owned()).collect();
    assert_eq!(suite, ["sample-1", "secret-04-large-n"], "every test is the course's, by name");
    let page = client.get(&format!("/analyses/{id}")).body;
    assert!(page.contains("The course&#39;s 6 tests ran first") || page.contains("The course's 6 tests ran first"), "{page}");
    assert_eq!(client.post(&format!("/batches/{batch}/release"), &[("released", "1")]).status, 303);
    let s3 = client.get(&issue_link(&client, batch, "s3")).body;
    assert!(s3.contains("Of the course&#39;s own tests, it fails") || s3.contains("Of the course's own tests, it fails"), "{s3}");
    assert!(s3.contains("secret-04-large-n") && s3.contains("more characters, not shown"), "the long input is cut: {s3}");
}
