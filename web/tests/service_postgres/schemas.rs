//! The two engines' schemas say the same: a new SQLite store and a new PostgreSQL database,
//! each made by the store's own migrations, have the same tables, columns (by name, with
//! a coarse class of type and whether they may be NULL), keys, foreign keys and indexes.

use std::collections::BTreeSet;

use crate::postgres::Postgres;

/// Tables PostgreSQL has and SQLite has not, on purpose: the files SQLite keeps under
/// `--data`, the count of applied migrations (SQLite's is `PRAGMA user_version`), and the
/// rounds of work that several processes share (a SQLite store has one process).
const POSTGRES_ONLY: &[&str] = &["files", "bugrank_schema", "run_rounds", "run_shards"];

/// A schema as facts, one a line: `table T`, `column T.C: integer, not null`,
/// `primary key T (a, b)`, `unique T (a)`, `foreign key T.C -> U.D`,
/// `index N on T (a, b), unique, partial`.
type Schema = BTreeSet<String>;

/// The class of a column's type where the two engines' types mean the same: SQLite's by
/// its type affinity; PostgreSQL's flags are booleans that SQLite keeps as integers.
fn class(engine_type: &str) -> String {
    let t = engine_type.to_ascii_lowercase();
    let class = if t.contains("int") || t == "boolean" {
        "integer"
    } else if t.contains("char") || t.contains("clob") || t.contains("text") {
        "text"
    } else if t.contains("real") || t.contains("floa") || t.contains("doub") {
        "real"
    } else if t.contains("blob") || t == "bytea" {
        "bytes"
    } else {
        return format!("unknown type {engine_type}");
    };
    class.to_owned()
}

fn column(table: &str, name: &str, engine_type: &str, not_null: bool) -> String {
    format!("column {table}.{name}: {}{}", class(engine_type), if not_null { ", not null" } else { "" })
}

fn index(name: &str, table: &str, columns: &str, unique: bool, partial: bool) -> String {
    format!("index {name} on {table} ({columns}){}{}", if unique { ", unique" } else { "" }, if partial { ", partial" } else { "" })
}

fn sqlite_schema(path: &std::path::Path) -> Schema {
    drop(web::serve::db::Db::open(path).expect("a new SQLite store"));
    let conn = rusqlite::Connection::open(path).unwrap();
    let strings = |sql: &str, args: &[&str]| -> Vec<Vec<String>> {
        let mut statement = conn.prepare(sql).unwrap();
        let columns = statement.column_count();
        statement
            .query_map(rusqlite::params_from_iter(args), |r| (0..columns).map(|c| r.get::<_, rusqlite::types::Value>(c)).collect::<Result<Vec<_>, _>>())
            .unwrap()
            .map(|row| {
                row.unwrap()
                    .into_iter()
                    .map(|v| match v {
                        rusqlite::types::Value::Integer(i) => i.to_string(),
                        rusqlite::types::Value::Text(t) => t,
                        rusqlite::types::Value::Null => String::new(),
                        other => panic!("{other:?}"),
                    })
                    .collect()
            })
            .collect()
    };
    let mut facts = Schema::new();
    let tables = strings("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'", &[]);
    for table in tables.iter().map(|r| &r[0]) {
        facts.insert(format!("table {table}"));
        let mut key = Vec::new();
        for c in strings("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)", &[table]) {
            let in_key: usize = c[3].parse().unwrap();
            // A primary key's columns are never NULL (SQLite's own quirk aside).
            facts.insert(column(table, &c[0], &c[1], c[2] == "1" || in_key > 0));
            if in_key > 0 {
                key.push((in_key, c[0].clone()));
            }
        }
        key.sort();
        if !key.is_empty() {
            facts.insert(format!("primary key {table} ({})", key.into_iter().map(|(_, c)| c).collect::<Vec<_>>().join(", ")));
        }
        for f in strings("SELECT \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?1)", &[table]) {
            facts.insert(format!("foreign key {table}.{} -> {}.{}", f[0], f[1], f[2]));
        }
        for i in strings("SELECT name, \"unique\", origin, partial FROM pragma_index_list(?1)", &[table]) {
            let columns =
                strings("SELECT name FROM pragma_index_info(?1) ORDER BY seqno", &[&i[0]]).into_iter().map(|r| r[0].clone()).collect::<Vec<_>>().join(", ");
            match i[2].as_str() {
                // The primary key's, already a fact.
                "pk" => {}
                "u" => {
                    facts.insert(format!("unique {table} ({columns})"));
                }
                _ => {
                    facts.insert(index(&i[0], table, &columns, i[1] == "1", i[3] == "1"));
                }
            }
        }
    }
    facts
}

fn postgres_schema(server: &Postgres, data: &std::path::Path) -> Schema {
    drop(web::serve::db::Db::connect(&server.database_for(data)).expect("a new PostgreSQL database"));
    let rows = |sql: &str| -> Vec<Vec<String>> {
        let out = server.query(data, sql);
        out.lines().map(|l| l.split('|').map(str::to_owned).collect()).collect()
    };
    let ours = |table: &str| !POSTGRES_ONLY.contains(&table);
    let mut facts = Schema::new();
    for t in rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'") {
        if ours(&t[0]) {
            facts.insert(format!("table {}", t[0]));
        }
    }
    for c in rows("SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public'") {
        if ours(&c[0]) {
            facts.insert(column(&c[0], &c[1], &c[2], c[3] == "NO"));
        }
    }
    let foreign_keys = "SELECT t.relname, a.attname, u.relname, b.attname FROM pg_constraint k
        JOIN pg_class t ON t.oid = k.conrelid JOIN pg_class u ON u.oid = k.confrelid
        JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
        JOIN pg_attribute b ON b.attrelid = k.confrelid AND b.attnum = k.confkey[1]
        JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public' AND k.contype = 'f'";
    for f in rows(foreign_keys) {
        if ours(&f[0]) {
            facts.insert(format!("foreign key {}.{} -> {}.{}", f[0], f[1], f[2], f[3]));
        }
    }
    // Each index: its table, name, whether it backs the primary key or a UNIQUE
    // constraint, whether it is unique or partial, its columns in order.
    let indexes = "SELECT t.relname, i.relname, x.indisprimary,
            EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid AND k.contype = 'u'),
            x.indisunique, x.indpred IS NOT NULL,
            (SELECT string_agg(a.attname, ', ' ORDER BY k.n) FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, n)
                 JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum)
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
        JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = 'public'";
    for i in rows(indexes) {
        if !ours(&i[0]) {
            continue;
        }
        let (table, columns) = (&i[0], &i[6]);
        facts.insert(match (i[2].as_str(), i[3].as_str()) {
            ("t", _) => format!("primary key {table} ({columns})"),
            (_, "t") => format!("unique {table} ({columns})"),
            _ => index(&i[1], table, columns, i[4] == "t", i[5] == "t"),
        });
    }
    facts
}

#[test]
fn a_new_sqlite_store_and_a_new_postgres_database_have_the_same_schema() {
    let temp = tempfile::tempdir().unwrap();
    let sqlite = sqlite_schema(&temp.path().join("bugrank.sqlite"));
    let postgres = postgres_schema(Postgres::shared(), temp.path());
    // Each kind of fact is read on both (or a query that reads nothing would pass).
    let kinds = [
        "column analyses.status: text, not null",
        "primary key roster (batch_id, student)",
        "unique courses (name)",
        "foreign key batches.course_id -> courses.id",
        "index one_current_submission on submissions (batch_id, student), unique, partial",
    ];
    for fact in kinds {
        assert!(sqlite.contains(fact) && postgres.contains(fact), "{fact}: on SQLite {}, on PostgreSQL {}", sqlite.contains(fact), postgres.contains(fact));
    }
    let differences: Vec<String> = sqlite
        .difference(&postgres)
        .map(|f| format!("only on SQLite: {f}"))
        .chain(postgres.difference(&sqlite).map(|f| format!("only on PostgreSQL: {f}")))
        .collect();
    assert!(differences.is_empty(), "the schemas differ ({} differences):\n{}", differences.len(), differences.join("\n"));
}
