//! Every flakeid type (and the snowflake bigints) through Rust's
//! tokio-postgres, the binary protocol's path (pgx_ulid's issues 27 and 53:
//! SQLx and binary COPY): tokio-postgres asks for every result in binary and
//! sends every parameter in binary, so an ID arrives as its bytes (the
//! type's send function) and goes back as them (its receive function).
//! A type it does not know is read and written through `Raw`, which accepts
//! any type and carries its bytes.  Checks: DEFAULT generation, the bytes
//! against `id::bytea`, the text against `id::text`, bytes and text sent
//! back as parameters, ORDER BY, a time range with SystemTime bounds, bad
//! values (22P02 and 22P03 with a DETAIL), binary COPY in (raw bytes, and
//! text as a binary value) and out.  TAP output; the connection comes from
//! the libpq environment (test/clients/run), read here since tokio-postgres
//! does not.
use bytes::BytesMut;
use futures_util::{pin_mut, StreamExt};
use std::error::Error;
use std::time::{Duration, SystemTime};
use tokio_postgres::binary_copy::{BinaryCopyInWriter, BinaryCopyOutStream};
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{to_sql_checked, FromSql, IsNull, ToSql, Type};
use tokio_postgres::{Client, NoTls};

/// An ID's binary value, of whatever type the server says
#[derive(Debug, Clone, PartialEq)]
struct Raw(Vec<u8>);

impl<'a> FromSql<'a> for Raw {
    fn from_sql(_: &Type, raw: &'a [u8]) -> Result<Raw, Box<dyn Error + Sync + Send>> {
        Ok(Raw(raw.to_vec()))
    }
    fn accepts(_: &Type) -> bool {
        true
    }
}

impl ToSql for Raw {
    fn to_sql(&self, _: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        out.extend_from_slice(&self.0);
        Ok(IsNull::No)
    }
    fn accepts(_: &Type) -> bool {
        true
    }
    to_sql_checked!();
}

const TYPES: [(&str, usize, &str); 5] = [
    ("sno", 10, "sno_new()"),
    ("flax", 12, "flax_new()"),
    ("siq", 14, "siq_new('user')"),
    ("kuid", 8, "kuid_new()"),
    ("kuid96", 12, "kuid96_new()"),
];

struct Tap {
    count: usize,
    failed: usize,
}

impl Tap {
    fn ok(&mut self, passed: bool, what: String) {
        self.count += 1;
        if !passed {
            self.failed += 1;
        }
        println!("{} {} - Rust: {}", if passed { "ok" } else { "not ok" }, self.count, what);
    }
}

fn env(name: &str, default: &str) -> String {
    std::env::var(name).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| default.to_string())
}

fn detail(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.code().code(), db.detail().unwrap_or("no DETAIL")),
        None => format!("{}", e),
    }
}

async fn run(client: &Client, tap: &mut Tap) -> Result<(), Box<dyn Error>> {
    client.batch_execute("CREATE EXTENSION IF NOT EXISTS flakeid; DROP TABLE IF EXISTS client_rust").await?;
    let columns: Vec<String> = TYPES.iter().map(|(t, _, g)| format!("{t} {t} NOT NULL DEFAULT {g}")).collect();
    client
        .batch_execute(&format!(
            "CREATE TABLE client_rust (n int PRIMARY KEY, snowflake bigint NOT NULL DEFAULT snowflake_new(), {})",
            columns.join(", ")
        ))
        .await?;

    // DEFAULT generation, every ID read in binary
    let rows = client
        .query("INSERT INTO client_rust (n) SELECT generate_series(1, 50) RETURNING n, snowflake, sno, flax, siq, kuid, kuid96", &[])
        .await?;
    let snowflakes: Vec<i64> = rows.iter().map(|r| r.get(1)).collect();
    tap.ok(rows.len() == 50, "50 rows inserted through every DEFAULT generator, returned in binary".into());
    let mut sorted_flakes = snowflakes.clone();
    sorted_flakes.sort();
    tap.ok(sorted_flakes == snowflakes, "snowflakes arrive as increasing i64s".into());

    for (i, (t, width, _)) in TYPES.iter().enumerate() {
        let ids: Vec<Raw> = rows.iter().map(|r| r.get(2 + i)).collect();
        tap.ok(ids.iter().all(|id| id.0.len() == *width), format!("{t} arrives in binary as its {width} bytes"));

        // the bytes are id::bytea, and the text id::text
        let check = client
            .query(&format!("SELECT {t}::bytea, {t}::text, {t} FROM client_rust ORDER BY n"), &[])
            .await?;
        let bytea: Vec<Vec<u8>> = check.iter().map(|r| r.get(0)).collect();
        tap.ok(ids.iter().map(|id| id.0.clone()).collect::<Vec<_>>() == bytea, format!("{t}'s binary value equals {t}::bytea"));
        let texts: Vec<String> = check.iter().map(|r| r.get(1)).collect();
        let text_len = if *t == "siq" { 23 } else if *t == "kuid" { 11 } else { 16 };
        tap.ok(texts.iter().all(|s| s.len() == text_len), format!("{t}::text arrives as a String of {text_len} characters ({})", texts[0]));

        // the bytes back as a binary parameter of the type itself, and the text as text
        let mut hits = 0;
        for (k, id) in ids.iter().enumerate() {
            let found = client.query_opt(&format!("SELECT n FROM client_rust WHERE {t} = $1"), &[id]).await?;
            if found.map(|r| r.get::<_, i32>(0)) == Some(k as i32 + 1) {
                hits += 1;
            }
        }
        tap.ok(hits == 50, format!("{t}'s bytes sent back as a binary parameter of type {t} find their row ({hits}/50)"));
        let found = client
            .query_opt(&format!("SELECT n FROM client_rust WHERE {t} = $1::text::{t}"), &[&texts[6]])
            .await?;
        tap.ok(found.map(|r| r.get::<_, i32>(0)) == Some(7), format!("{t} text sent as $1::text::{t} finds its row"));
        // a String parameter is text, so the type itself refuses it on the client: the cast above is needed
        let refused = client.query_opt(&format!("SELECT n FROM client_rust WHERE {t} = $1"), &[&texts[6]]).await;
        tap.ok(
            refused.as_ref().err().map_or(false, |e| e.to_string().contains("error serializing parameter")),
            format!("a String parameter for a {t} is refused by tokio-postgres (it sends binary): cast it ($1::text::{t})"),
        );

        // ORDER BY the ID is the order of its bytes and of its text
        let ordered: Vec<Raw> = client
            .query(&format!("SELECT {t} FROM client_rust ORDER BY {t}"), &[])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let mut by_bytes = ids.clone();
        by_bytes.sort_by(|a, b| a.0.cmp(&b.0));
        let mut by_text = texts.clone();
        by_text.sort();
        let ordered_text: Vec<String> = client
            .query(&format!("SELECT {t}::text FROM client_rust ORDER BY {t}"), &[])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        tap.ok(ordered == by_bytes && ordered_text == by_text, format!("ORDER BY {t} is the order of its bytes and of its text"));
        if *t != "flax" {
            tap.ok(ids == by_bytes, format!("{t}s from one session increase with insertion"));
        }

        // a time range, bounds as SystemTime; the ID's time as a SystemTime
        let now = SystemTime::now();
        let (lo, hi) = (now - Duration::from_secs(3600), now + Duration::from_secs(3600));
        let in_range: i64 = client
            .query_one(&format!("SELECT count(*) FROM client_rust WHERE {t} <@ tstzrange($1, $2)"), &[&lo, &hi])
            .await?
            .get(0);
        let before: i64 = client
            .query_one(&format!("SELECT count(*) FROM client_rust WHERE {t} <@ tstzrange(NULL, $1)"), &[&lo])
            .await?
            .get(0);
        tap.ok(in_range == 50 && before == 0, format!("{t} <@ tstzrange($1, $2) with SystemTime bounds: {in_range} in the hour, {before} before"));
        let at: SystemTime = client.query_one(&format!("SELECT {t}_time($1)"), &[&ids[0]]).await?.get(0);
        let age = now.duration_since(at).unwrap_or_default();
        tap.ok(age < Duration::from_secs(600), format!("{t}_time(bytes) arrives as a SystemTime of now ({age:?} ago)"));

        // bad values: text 22P02, bytes of a wrong length 22P03, each with a DETAIL
        let bad = client.query_one(&format!("SELECT $1::text::{t}"), &[&"not-an-id!"]).await;
        let e = bad.err();
        tap.ok(
            e.as_ref().map_or(false, |e| e.code() == Some(&SqlState::INVALID_TEXT_REPRESENTATION)
                && e.as_db_error().and_then(|d| d.detail()).is_some()),
            format!("a bad {t} text is 22P02 with a DETAIL ({})", e.as_ref().map_or("no error".into(), detail)),
        );
        let short = client.query_one(&format!("SELECT $1::{t}"), &[&Raw(vec![1, 2, 3])]).await;
        let e = short.err();
        tap.ok(
            e.as_ref().map_or(false, |e| e.code() == Some(&SqlState::INVALID_BINARY_REPRESENTATION)
                && e.as_db_error().and_then(|d| d.detail()).is_some()),
            format!("3 bytes sent as a {t} are 22P03 with a DETAIL ({})", e.as_ref().map_or("no error".into(), detail)),
        );
    }

    // binary COPY in: the IDs' bytes, then their text as binary values (what
    // a client that does not know the type sends); then binary COPY out
    client
        .batch_execute("CREATE TEMP TABLE copied (sno sno, flax flax, siq siq, kuid kuid, kuid96 kuid96, snowflake bigint)")
        .await?;
    let types: Vec<Type> = client
        .prepare("SELECT sno, flax, siq, kuid, kuid96, snowflake FROM copied")
        .await?
        .columns()
        .iter()
        .map(|c| c.type_().clone())
        .collect();
    let source = client.query("SELECT sno, flax, siq, kuid, kuid96, snowflake FROM client_rust ORDER BY n", &[]).await?;
    for as_text in [false, true] {
        client.batch_execute("TRUNCATE copied").await?;
        let texts = client
            .query("SELECT sno::text, flax::text, siq::text, kuid::text, kuid96::text FROM client_rust ORDER BY n", &[])
            .await?;
        let sink = client.copy_in("COPY copied FROM STDIN (FORMAT binary)").await?;
        let writer = BinaryCopyInWriter::new(sink, &types);
        pin_mut!(writer);
        for (row, text) in source.iter().zip(texts.iter()) {
            let values: Vec<Raw> = (0..5)
                .map(|c| if as_text { Raw(text.get::<_, String>(c).into_bytes()) } else { row.get::<_, Raw>(c) })
                .collect();
            let flake: i64 = row.get(5);
            writer
                .as_mut()
                .write(&[&values[0], &values[1], &values[2], &values[3], &values[4], &flake])
                .await?;
        }
        let copied = writer.finish().await?;
        let same: i64 = client
            .query_one("SELECT count(*) FROM copied JOIN client_rust USING (sno, flax, siq, kuid, kuid96, snowflake)", &[])
            .await?
            .get(0);
        let what = if as_text { "the IDs' text as binary values" } else { "the IDs' bytes" };
        tap.ok(copied == 50 && same == 50, format!("binary COPY FROM of {what}: {copied} rows, {same} equal to their source"));
    }
    let stream = client.copy_out("COPY (SELECT sno, flax, siq, kuid, kuid96, snowflake FROM client_rust ORDER BY n) TO STDOUT (FORMAT binary)").await?;
    let rows_out = BinaryCopyOutStream::new(stream, &types);
    pin_mut!(rows_out);
    let mut same = 0;
    let mut k = 0;
    while let Some(row) = rows_out.next().await {
        let row = row?;
        let equal = (0..5).all(|c| row.get::<Raw>(c) == source[k].get::<_, Raw>(c)) && row.get::<i64>(5) == source[k].get::<_, i64>(5);
        same += equal as usize;
        k += 1;
    }
    tap.ok(k == 50 && same == 50, format!("binary COPY TO: {k} rows, the IDs as their bytes, {same} equal to a query's"));
    // a binary COPY value of neither length is 22P03
    client.batch_execute("TRUNCATE copied").await?;
    let sink = client.copy_in("COPY copied (sno) FROM STDIN (FORMAT binary)").await?;
    let writer = BinaryCopyInWriter::new(sink, &types[..1]);
    pin_mut!(writer);
    let written = writer.as_mut().write(&[&Raw(b"BRPK4Q72XWF2M63L".to_vec())]).await;
    let e = match written {
        Ok(()) => writer.finish().await.err(),
        Err(e) => Some(e),
    };
    tap.ok(
        e.as_ref().map_or(false, |e| e.code() == Some(&SqlState::INVALID_BINARY_REPRESENTATION)),
        format!("binary COPY of an uppercase sno text is 22P03 ({})", e.as_ref().map_or("no error".into(), detail)),
    );

    client.batch_execute("DROP TABLE client_rust").await?;
    Ok(())
}

fn main() {
    let mut config = tokio_postgres::Config::new();
    config
        .host(&env("PGHOST", "localhost"))
        .port(env("PGPORT", "5432").parse().unwrap_or(5432))
        .user(&env("PGUSER", "postgres"))
        .dbname(&env("PGDATABASE", "postgres"));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let mut tap = Tap { count: 0, failed: 0 };
    let result = runtime.block_on(async {
        let (client, connection) = config.connect(NoTls).await?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                eprintln!("connection: {e}");
            }
        });
        run(&client, &mut tap).await
    });
    if let Err(e) = result {
        tap.ok(false, format!("the suite stopped: {e}"));
    }
    println!("1..{}", tap.count);
    std::process::exit(if tap.failed > 0 { 1 } else { 0 });
}
