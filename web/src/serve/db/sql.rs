//! The two SQL engines the store runs on: SQLite (a file under `--data`, the default) and
//! PostgreSQL (`--database postgres://...`, shared by several processes).
//!
//! [`crate::serve::db`] writes each query once, in the SQL both engines accept, with `?1`
//! placeholders; this module binds [`Value`]s, reads rows back as values, and gives each
//! query a connection, in a transaction when asked. Where the two dialects differ the query
//! asks [`Engine`] for its engine's words (there are two such places).
//!
//! Both engines are driven synchronously from the calling thread, as SQLite always was:
//! every query is a few rows and takes well under a millisecond.
//! - SQLite: one connection behind a mutex (SQLite serialises writers anyway); WAL mode.
//! - PostgreSQL: a few connections, each behind a mutex. tokio-postgres's connections run
//!   on a small runtime of the store's own; a query is a future of channel messages to its
//!   connection, awaited with `futures_executor::block_on`, which works on any thread,
//!   also on actix-web's (where the sync `postgres` crate would panic: it starts a runtime
//!   inside a runtime).

use std::sync::{Mutex, MutexGuard};

use tokio_postgres::types::{ToSql, Type};

/// A value bound to a placeholder or read from a column.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Bool(bool),
    Bytes(Vec<u8>),
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Bool(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_owned())
    }
}
impl From<&String> for Value {
    fn from(v: &String) -> Value {
        Value::Text(v.clone())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl From<&[u8]> for Value {
    fn from(v: &[u8]) -> Value {
        Value::Bytes(v.to_vec())
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// `[Value]` from a list of anything that converts: `args![batch, name, None::<i64>]`.
macro_rules! args {
    ($($value:expr),* $(,)?) => { &[$($crate::serve::db::sql::Value::from($value)),*] as &[$crate::serve::db::sql::Value] };
}
pub(crate) use args;

/// What went wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// (The server's own words after the client's: tokio-postgres says only "db error".)
    #[error("PostgreSQL: {0}{detail}", detail = .0.as_db_error().map(|e| format!(": {}", e.message())).unwrap_or_default())]
    Postgres(#[from] tokio_postgres::Error),
    /// A column held what the query did not expect (a bug, or a store written by a newer
    /// bugrank).
    #[error("column {column} of `{sql}` holds {found:?}, not {wanted}")]
    Type { sql: String, column: usize, found: Value, wanted: &'static str },
    #[error("cannot connect to PostgreSQL at {url}: {reason}")]
    Connect { url: String, reason: String },
    /// A state this bugrank does not know in a column that holds one (written by a newer
    /// bugrank, or a bug): refused, not taken for another.
    #[error("the store's {column} holds `{value}`, which this bugrank does not know")]
    UnknownState { column: &'static str, value: String },
    /// The database was migrated by a newer bugrank than this one.
    #[error("the database's schema is version {found}, newer than this bugrank's ({known}): upgrade bugrank")]
    Newer { found: i64, known: i64 },
}

/// A stored database result.
pub type DbResult<T> = Result<T, DbError>;

/// One row of a query's result.
#[derive(Debug)]
pub struct Row<'q> {
    sql: &'q str,
    values: Vec<Value>,
}

impl<'q> Row<'q> {
    /// The columns from `first` on, as a row of their own: for a reader of a group of
    /// columns (a table's row) that a query selects after others. (A type error then
    /// names the column by its place in the group.)
    pub fn columns_from(&self, first: usize) -> Row<'q> {
        Row { sql: self.sql, values: self.values[first..].to_vec() }
    }

    fn wrong(&self, column: usize, wanted: &'static str) -> DbError {
        DbError::Type { sql: self.sql.to_owned(), column, found: self.values[column].clone(), wanted }
    }

    pub fn int(&self, column: usize) -> DbResult<i64> {
        self.opt_int(column)?.ok_or_else(|| self.wrong(column, "an integer"))
    }

    pub fn opt_int(&self, column: usize) -> DbResult<Option<i64>> {
        match &self.values[column] {
            Value::Null => Ok(None),
            Value::Int(v) => Ok(Some(*v)),
            _ => Err(self.wrong(column, "an integer")),
        }
    }

    /// A flag: SQLite keeps it as 0 or 1, PostgreSQL as a boolean.
    pub fn bool(&self, column: usize) -> DbResult<bool> {
        match &self.values[column] {
            Value::Bool(v) => Ok(*v),
            Value::Int(v) => Ok(*v != 0),
            _ => Err(self.wrong(column, "a boolean")),
        }
    }

    pub fn text(&self, column: usize) -> DbResult<String> {
        self.opt_text(column)?.ok_or_else(|| self.wrong(column, "text"))
    }

    pub fn opt_text(&self, column: usize) -> DbResult<Option<String>> {
        match &self.values[column] {
            Value::Null => Ok(None),
            Value::Text(v) => Ok(Some(v.clone())),
            _ => Err(self.wrong(column, "text")),
        }
    }

    pub fn bytes(&self, column: usize) -> DbResult<Vec<u8>> {
        match &self.values[column] {
            Value::Bytes(v) => Ok(v.clone()),
            _ => Err(self.wrong(column, "bytes")),
        }
    }

    pub fn opt_real(&self, column: usize) -> DbResult<Option<f64>> {
        match &self.values[column] {
            Value::Null => Ok(None),
            Value::Real(v) => Ok(Some(*v)),
            Value::Int(v) => Ok(Some(*v as f64)),
            _ => Err(self.wrong(column, "a number")),
        }
    }
}

/// The engine a store runs on, for the few words the two dialects spell differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

impl Engine {
    /// The position of `needle` in `haystack` (1-based, 0 when absent).
    pub fn position(self, haystack: &str, needle: &str) -> String {
        match self {
            Engine::Sqlite => format!("instr({haystack}, {needle})"),
            Engine::Postgres => format!("strpos({haystack}, {needle})"),
        }
    }

    /// The database's clock in seconds since the epoch: leases are judged by one clock,
    /// whichever machine asks.
    pub fn now(self) -> &'static str {
        match self {
            Engine::Sqlite => "CAST(strftime('%s', 'now') AS INTEGER)",
            Engine::Postgres => "CAST(extract(epoch FROM clock_timestamp()) AS BIGINT)",
        }
    }

    /// What a `SELECT` that claims rows of a queue ends with: PostgreSQL locks the rows
    /// it returns and skips those another transaction holds; SQLite has one writer at a
    /// time, so there is nothing to skip.
    pub fn skip_locked(self) -> &'static str {
        match self {
            Engine::Sqlite => "",
            Engine::Postgres => " FOR UPDATE SKIP LOCKED",
        }
    }
}

/// A connection (or a transaction on one) the queries run on.
pub trait Conn {
    fn engine(&self) -> Engine;
    /// Runs a statement; the number of rows it changed.
    fn execute(&mut self, sql: &str, args: &[Value]) -> DbResult<u64>;
    /// Runs a query; its rows.
    fn query<'q>(&mut self, sql: &'q str, args: &[Value]) -> DbResult<Vec<Row<'q>>>;

    /// Runs a sequence of statements without arguments (a migration).
    fn batch(&mut self, sql: &str) -> DbResult<()>;

    /// The first row, if any.
    fn query_opt<'q>(&mut self, sql: &'q str, args: &[Value]) -> DbResult<Option<Row<'q>>> {
        Ok(self.query(sql, args)?.into_iter().next())
    }

    /// The one row a query must return (an aggregate, an `INSERT ... RETURNING`).
    fn query_one<'q>(&mut self, sql: &'q str, args: &[Value]) -> DbResult<Row<'q>> {
        let row = self.query_opt(sql, args)?;
        Ok(row.expect("the query returns one row"))
    }
}

// --- SQLite ---

fn bind_sqlite(value: &Value) -> rusqlite::types::Value {
    use rusqlite::types::Value as V;
    match value {
        Value::Null => V::Null,
        Value::Int(v) => V::Integer(*v),
        Value::Real(v) => V::Real(*v),
        Value::Text(v) => V::Text(v.clone()),
        Value::Bool(v) => V::Integer(*v as i64),
        Value::Bytes(v) => V::Blob(v.clone()),
    }
}

fn read_sqlite(value: rusqlite::types::ValueRef) -> Value {
    use rusqlite::types::ValueRef as V;
    match value {
        V::Null => Value::Null,
        V::Integer(v) => Value::Int(v),
        V::Real(v) => Value::Real(v),
        V::Text(v) => Value::Text(String::from_utf8_lossy(v).into_owned()),
        V::Blob(v) => Value::Bytes(v.to_vec()),
    }
}

/// A SQLite connection (or a transaction, which derefs to one): what the queries run on.
struct SqliteConn<'c>(&'c rusqlite::Connection);

impl Conn for SqliteConn<'_> {
    fn engine(&self) -> Engine {
        Engine::Sqlite
    }

    fn execute(&mut self, sql: &str, args: &[Value]) -> DbResult<u64> {
        let mut statement = self.0.prepare_cached(sql)?;
        Ok(statement.execute(rusqlite::params_from_iter(args.iter().map(bind_sqlite)))? as u64)
    }

    fn query<'q>(&mut self, sql: &'q str, args: &[Value]) -> DbResult<Vec<Row<'q>>> {
        let mut statement = self.0.prepare_cached(sql)?;
        let columns = statement.column_count();
        let mut rows = statement.query(rusqlite::params_from_iter(args.iter().map(bind_sqlite)))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let values = (0..columns).map(|c| row.get_ref(c).map(read_sqlite)).collect::<Result<_, _>>()?;
            out.push(Row { sql, values });
        }
        Ok(out)
    }

    fn batch(&mut self, sql: &str) -> DbResult<()> {
        Ok(self.0.execute_batch(sql)?)
    }
}

// --- PostgreSQL ---

/// `?1` placeholders as PostgreSQL's `$1`. The queries hold no `?` in a string literal.
fn postgres_sql(sql: &str) -> String {
    sql.replace('?', "$")
}

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut tokio_postgres::types::private::BytesMut,
    ) -> Result<tokio_postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        // The server says which type it wants (every integer column is a BIGINT, but an
        // argument may meet an INT4 expression or a REAL one).
        match self {
            Value::Null => Ok(tokio_postgres::types::IsNull::Yes),
            Value::Int(v) if *ty == Type::INT4 => i32::try_from(*v)?.to_sql(ty, out),
            Value::Int(v) if *ty == Type::FLOAT8 => (*v as f64).to_sql(ty, out),
            Value::Int(v) => v.to_sql(ty, out),
            Value::Real(v) => v.to_sql(ty, out),
            Value::Text(v) => v.to_sql(ty, out),
            Value::Bool(v) => v.to_sql(ty, out),
            Value::Bytes(v) => v.as_slice().to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

fn read_postgres(row: &tokio_postgres::Row, column: usize) -> DbResult<Value> {
    let ty = row.columns()[column].type_();
    let value = if *ty == Type::INT8 {
        row.try_get::<_, Option<i64>>(column)?.map(Value::Int)
    } else if *ty == Type::INT4 {
        row.try_get::<_, Option<i32>>(column)?.map(|v| Value::Int(v.into()))
    } else if *ty == Type::BOOL {
        row.try_get::<_, Option<bool>>(column)?.map(Value::Bool)
    } else if *ty == Type::BYTEA {
        row.try_get::<_, Option<Vec<u8>>>(column)?.map(Value::Bytes)
    } else if *ty == Type::FLOAT8 {
        row.try_get::<_, Option<f64>>(column)?.map(Value::Real)
    } else {
        row.try_get::<_, Option<String>>(column)?.map(Value::Text)
    };
    Ok(value.unwrap_or(Value::Null))
}

fn postgres_args(args: &[Value]) -> Vec<&(dyn ToSql + Sync)> {
    args.iter().map(|v| v as &(dyn ToSql + Sync)).collect()
}

/// A PostgreSQL client or a transaction of one, with its connection's prepared
/// statements: what the queries run on.
struct PostgresConn<'c, C: tokio_postgres::GenericClient + Sync> {
    client: &'c C,
    prepared: &'c mut Prepared,
}

/// A connection's prepared statements, by their SQL: each query is parsed and planned
/// once per connection, not on every call (which cost a round trip and the server's
/// parsing each time).
type Prepared = std::collections::HashMap<String, tokio_postgres::Statement>;

impl<C: tokio_postgres::GenericClient + Sync> PostgresConn<'_, C> {
    fn statement(&mut self, sql: &str) -> DbResult<tokio_postgres::Statement> {
        if let Some(statement) = self.prepared.get(sql) {
            return Ok(statement.clone());
        }
        let statement = futures_executor::block_on(self.client.prepare(&postgres_sql(sql)))?;
        self.prepared.insert(sql.to_owned(), statement.clone());
        Ok(statement)
    }
}

impl<C: tokio_postgres::GenericClient + Sync> Conn for PostgresConn<'_, C> {
    fn engine(&self) -> Engine {
        Engine::Postgres
    }

    fn execute(&mut self, sql: &str, args: &[Value]) -> DbResult<u64> {
        let statement = self.statement(sql)?;
        Ok(futures_executor::block_on(self.client.execute(&statement, &postgres_args(args)))?)
    }

    fn query<'q>(&mut self, sql: &'q str, args: &[Value]) -> DbResult<Vec<Row<'q>>> {
        let statement = self.statement(sql)?;
        let rows = futures_executor::block_on(self.client.query(&statement, &postgres_args(args)))?;
        rows.iter().map(|row| Ok(Row { sql, values: (0..row.len()).map(|c| read_postgres(row, c)).collect::<DbResult<_>>()? })).collect()
    }

    fn batch(&mut self, sql: &str) -> DbResult<()> {
        Ok(futures_executor::block_on(self.client.batch_execute(sql))?)
    }
}

/// Connections to PostgreSQL kept open; each query takes a free one.
const POSTGRES_CONNECTIONS: usize = 4;

/// A pool of PostgreSQL connections.
pub struct Postgres {
    url: String,
    config: tokio_postgres::Config,
    /// Runs the connections' I/O; the store's queries only send and await messages.
    runtime: tokio::runtime::Runtime,
    clients: Vec<Mutex<Option<(tokio_postgres::Client, Prepared)>>>,
    /// Which connection the next query that finds none free waits for.
    turn: std::sync::atomic::AtomicUsize,
}

impl Postgres {
    /// Connects to `url` (`postgres://user:password@host:port/database`, or the key=value
    /// form). The password may come from `PGPASSWORD` instead of the URL.
    pub fn connect(url: &str) -> DbResult<Postgres> {
        let connect_error = |reason: String| DbError::Connect { url: redacted(url), reason };
        let mut config: tokio_postgres::Config = url.parse().map_err(|e: tokio_postgres::Error| connect_error(e.to_string()))?;
        if config.get_password().is_none()
            && let Ok(password) = std::env::var("PGPASSWORD")
        {
            config.password(password);
        }
        config.application_name("bugrank");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("postgres-io")
            .enable_all()
            .build()
            .map_err(|e| connect_error(format!("cannot start its I/O thread: {e}")))?;
        let pool =
            Postgres { url: redacted(url), config, runtime, clients: (0..POSTGRES_CONNECTIONS).map(|_| Mutex::new(None)).collect(), turn: Default::default() };
        // Fail now, with the reason, rather than at the first page.
        drop(pool.client()?);
        Ok(pool)
    }

    fn open(&self) -> DbResult<tokio_postgres::Client> {
        let config = self.config.clone();
        let connecting = self.runtime.spawn(async move {
            let (client, connection) = config.connect(tokio_postgres::NoTls).await?;
            tokio::spawn(connection);
            Ok::<_, tokio_postgres::Error>(client)
        });
        match futures_executor::block_on(connecting) {
            Ok(Ok(client)) => Ok(client),
            Ok(Err(e)) => Err(DbError::Connect { url: self.url.clone(), reason: e.to_string() }),
            Err(e) => Err(DbError::Connect { url: self.url.clone(), reason: e.to_string() }),
        }
    }

    /// Takes the advisory lock `key` on a connection of its own (not one of the pool's,
    /// which the holder's queries need meanwhile), waiting while another process holds
    /// it; the lock ends with the returned connection.
    pub fn lock(&self, key: i64) -> DbResult<tokio_postgres::Client> {
        let client = self.open()?;
        futures_executor::block_on(client.execute("SELECT pg_advisory_lock($1)", &[&key]))?;
        Ok(client)
    }

    /// A free connection (waiting for one if all are busy), opened again if it was lost.
    fn client(&self) -> DbResult<MutexGuard<'_, Option<(tokio_postgres::Client, Prepared)>>> {
        let free = self.clients.iter().find_map(|c| c.try_lock().ok());
        let mut guard = match free {
            Some(guard) => guard,
            None => {
                // All busy: wait for the connections in turn, not all for the first.
                let turn = self.turn.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                self.clients[turn % self.clients.len()].lock().unwrap_or_else(|p| p.into_inner())
            }
        };
        if guard.as_ref().is_none_or(|(c, _)| c.is_closed()) {
            *guard = Some((self.open()?, Prepared::new()));
        }
        Ok(guard)
    }
}

/// `url` without its password, for messages.
pub fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.find(':') {
                Some(colon) => format!("{}{}:***{}", &url[..scheme + 3], &credentials[..colon], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

// --- either ---

/// The engine a store runs on, with its connections.
pub enum Backend {
    Sqlite(Mutex<rusqlite::Connection>),
    Postgres(Box<Postgres>),
}

impl Backend {
    pub fn engine(&self) -> Engine {
        match self {
            Backend::Sqlite(_) => Engine::Sqlite,
            Backend::Postgres(_) => Engine::Postgres,
        }
    }

    /// Runs `work` on a connection, outside any transaction (each statement its own).
    pub fn run<T>(&self, work: impl FnOnce(&mut dyn Conn) -> DbResult<T>) -> DbResult<T> {
        match self {
            // A panic while the lock was held poisons nothing that matters: SQLite rolled
            // the statement back.
            Backend::Sqlite(conn) => work(&mut SqliteConn(&conn.lock().unwrap_or_else(|p| p.into_inner()))),
            Backend::Postgres(pool) => {
                let mut guard = pool.client()?;
                let (client, prepared) = guard.as_mut().expect("client() opened it");
                work(&mut PostgresConn { client: &*client, prepared })
            }
        }
    }

    /// Runs `work` in one transaction: committed if it returns `Ok`, rolled back if not.
    pub fn transaction<T>(&self, work: impl FnOnce(&mut dyn Conn) -> DbResult<T>) -> DbResult<T> {
        match self {
            Backend::Sqlite(conn) => {
                let mut conn = conn.lock().unwrap_or_else(|p| p.into_inner());
                let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
                let out = work(&mut SqliteConn(&tx))?;
                tx.commit()?;
                Ok(out)
            }
            Backend::Postgres(pool) => {
                let mut guard = pool.client()?;
                let (client, prepared) = guard.as_mut().expect("client() opened it");
                let tx = futures_executor::block_on(client.transaction())?;
                let out = work(&mut PostgresConn { client: &tx, prepared })?;
                futures_executor::block_on(tx.commit())?;
                Ok(out)
            }
        }
    }
}
