//! Every flakeid type through Rust's SQLx, whose PostgreSQL driver, like
//! tokio-postgres, reads results and sends parameters in binary (pgx_ulid's
//! issues 27 and 53): each type is a Rust type named for SQLx by its
//! PostgreSQL name (`PgTypeInfo::with_name`), decoded from and encoded to
//! its bytes.  Checks: DEFAULT generation, the bytes against `id::bytea`,
//! the text against `id::text`, the bytes and the text sent back, ORDER BY,
//! a time range, bad values (22P02, 22P03), binary COPY in (bytes, and text
//! as binary values) and out through `copy_in_raw` and `copy_out_raw`.  TAP
//! output; the connection from the libpq environment (PgConnectOptions reads
//! it).
use futures_util::StreamExt;
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::postgres::{PgArgumentBuffer, PgConnectOptions, PgConnection, PgDatabaseError, PgTypeInfo, PgValueRef};
use sqlx::{AssertSqlSafe, Connection, Decode, Encode, Postgres, Row, Type};

/// SQL made with format! (the type's name in it), which SQLx 0.9 takes only so marked
macro_rules! sqlf {
    ($($arg:tt)*) => { AssertSqlSafe(format!($($arg)*)) };
}

macro_rules! flakeid_type {
    ($rust:ident, $pg:expr) => {
        /// an ID's bytes, of the PostgreSQL type of that name
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
        struct $rust(Vec<u8>);
        impl Type<Postgres> for $rust {
            fn type_info() -> PgTypeInfo {
                PgTypeInfo::with_name($pg)
            }
        }
        impl<'r> Decode<'r, Postgres> for $rust {
            fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
                Ok($rust(value.as_bytes()?.to_vec()))
            }
        }
        impl From<Vec<u8>> for $rust {
            fn from(bytes: Vec<u8>) -> Self {
                $rust(bytes)
            }
        }
        impl Encode<'_, Postgres> for $rust {
            fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
                buf.extend_from_slice(&self.0);
                Ok(IsNull::No)
            }
        }
    };
}
flakeid_type!(Sno, "sno");
flakeid_type!(Flax, "flax");
flakeid_type!(Siq, "siq");
flakeid_type!(Kuid, "kuid");
flakeid_type!(Kuid96, "kuid96");

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
        println!("{} {} - SQLx: {}", if passed { "ok" } else { "not ok" }, self.count, what);
    }
}

fn pg_error(e: &sqlx::Error) -> Option<(String, String)> {
    let db = e.as_database_error()?.try_downcast_ref::<PgDatabaseError>()?;
    Some((db.code().to_string(), db.detail().unwrap_or("").to_string()))
}

/// the checks of one type, whose Rust type is T
async fn one_type<T>(conn: &mut PgConnection, tap: &mut Tap, t: &str, width: usize) -> Result<(), sqlx::Error>
where
    T: for<'r> Decode<'r, Postgres> + for<'q> Encode<'q, Postgres> + Type<Postgres> + Clone + Ord + Send + Sync + Unpin + AsRef<[u8]> + From<Vec<u8>> + 'static,
{
    let rows = sqlx::query(sqlf!("SELECT {t}, {t}::bytea, {t}::text FROM client_sqlx ORDER BY n")).fetch_all(&mut *conn).await?;
    let ids: Vec<T> = rows.iter().map(|r| r.get::<T, _>(0)).collect();
    let bytea: Vec<Vec<u8>> = rows.iter().map(|r| r.get::<Vec<u8>, _>(1)).collect();
    let texts: Vec<String> = rows.iter().map(|r| r.get::<String, _>(2)).collect();
    tap.ok(
        ids.len() == 50 && ids.iter().zip(&bytea).all(|(id, b)| id.as_ref().len() == width && id.as_ref() == &b[..]),
        format!("{t} decodes from its {width} bytes, equal to {t}::bytea ({})", texts[0]),
    );
    let mut hits = 0;
    for (k, id) in ids.iter().enumerate() {
        let n: Option<i32> = sqlx::query_scalar(sqlf!("SELECT n FROM client_sqlx WHERE {t} = $1")).bind(id.clone()).fetch_optional(&mut *conn).await?;
        hits += (n == Some(k as i32 + 1)) as usize;
    }
    tap.ok(hits == 50, format!("{t} bound as its bytes finds each row ({hits}/50)"));
    let n: Option<i32> = sqlx::query_scalar(sqlf!("SELECT n FROM client_sqlx WHERE {t} = $1::text::{t}")).bind(&texts[4]).fetch_optional(&mut *conn).await?;
    tap.ok(n == Some(5), format!("{t} text bound as $1::text::{t} finds its row"));
    let ordered: Vec<T> = sqlx::query_scalar(sqlf!("SELECT {t} FROM client_sqlx ORDER BY {t}")).fetch_all(&mut *conn).await?;
    let mut sorted = ids.clone();
    sorted.sort();
    tap.ok(ordered == sorted, format!("ORDER BY {t} is the order of its bytes"));
    if t != "flax" {
        tap.ok(ids == sorted, format!("{t}s from one statement increase with n"));
    }
    let now: f64 = sqlx::query_scalar("SELECT extract(epoch FROM now())::float8").fetch_one(&mut *conn).await?;
    let (inside, before): (i64, i64) = sqlx::query_as(sqlf!(
        "SELECT count(*) FILTER (WHERE {t} <@ tstzrange(to_timestamp($1), to_timestamp($2))), count(*) FILTER (WHERE {t} <@ tstzrange(NULL, to_timestamp($1))) FROM client_sqlx"
    ))
    .bind(now - 3600.0)
    .bind(now + 3600.0)
    .fetch_one(&mut *conn)
    .await?;
    tap.ok(inside == 50 && before == 0, format!("{t} <@ tstzrange(...) with bound times: {inside} in the hour, {before} before"));
    let bad = sqlx::query(sqlf!("SELECT $1::text::{t}")).bind("not-an-id!").fetch_one(&mut *conn).await;
    let e = bad.err().and_then(|e| pg_error(&e));
    tap.ok(
        e.as_ref().map_or(false, |(code, detail)| code == "22P02" && !detail.is_empty()),
        format!("a bad {t} text is 22P02 with a DETAIL ({e:?})"),
    );
    let short = sqlx::query(sqlf!("SELECT $1::{t}")).bind(T::from(vec![1, 2, 3])).fetch_one(&mut *conn).await;
    let e = short.err().and_then(|e| pg_error(&e));
    tap.ok(
        e.as_ref().map_or(false, |(code, detail)| code == "22P03" && !detail.is_empty()),
        format!("3 bytes bound as a {t} are 22P03 with a DETAIL ({e:?})"),
    );
    Ok(())
}

macro_rules! as_ref_bytes {
    ($($rust:ident),*) => { $(impl AsRef<[u8]> for $rust { fn as_ref(&self) -> &[u8] { &self.0 } })* };
}
as_ref_bytes!(Sno, Flax, Siq, Kuid, Kuid96);

/// a binary COPY stream of rows of byte fields (PostgreSQL's COPY BINARY format)
fn copy_binary(rows: &[Vec<Vec<u8>>]) -> Vec<u8> {
    let mut out = b"PGCOPY\n\xff\r\n\0".to_vec();
    out.extend_from_slice(&0i32.to_be_bytes());
    out.extend_from_slice(&0i32.to_be_bytes());
    for row in rows {
        out.extend_from_slice(&(row.len() as i16).to_be_bytes());
        for field in row {
            out.extend_from_slice(&(field.len() as i32).to_be_bytes());
            out.extend_from_slice(field);
        }
    }
    out.extend_from_slice(&(-1i16).to_be_bytes());
    out
}

/// the rows of a binary COPY stream, each a list of its fields' bytes
fn parse_binary(data: &[u8]) -> Option<Vec<Vec<Vec<u8>>>> {
    let mut at = 11 + 4;
    let ext = i32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?) as usize;
    at += 4 + ext;
    let mut rows = Vec::new();
    loop {
        let fields = i16::from_be_bytes(data.get(at..at + 2)?.try_into().ok()?);
        at += 2;
        if fields == -1 {
            return Some(rows);
        }
        let mut row = Vec::new();
        for _ in 0..fields {
            let len = i32::from_be_bytes(data.get(at..at + 4)?.try_into().ok()?) as usize;
            row.push(data.get(at + 4..at + 4 + len)?.to_vec());
            at += 4 + len;
        }
        rows.push(row);
    }
}

async fn run(conn: &mut PgConnection, tap: &mut Tap) -> Result<(), sqlx::Error> {
    sqlx::raw_sql("CREATE EXTENSION IF NOT EXISTS flakeid; DROP TABLE IF EXISTS client_sqlx").execute(&mut *conn).await?;
    sqlx::raw_sql(
        "CREATE TABLE client_sqlx (n int PRIMARY KEY, snowflake bigint NOT NULL DEFAULT snowflake_new(), sno sno NOT NULL DEFAULT sno_new(),
         flax flax NOT NULL DEFAULT flax_new(), siq siq NOT NULL DEFAULT siq_new('user'), kuid kuid NOT NULL DEFAULT kuid_new(),
         kuid96 kuid96 NOT NULL DEFAULT kuid96_new())",
    )
    .execute(&mut *conn)
    .await?;
    let rows = sqlx::query("INSERT INTO client_sqlx (n) SELECT generate_series(1, 50) RETURNING n, snowflake, sno, flax, siq, kuid, kuid96")
        .fetch_all(&mut *conn)
        .await?;
    let flakes: Vec<i64> = rows.iter().map(|r| r.get(1)).collect();
    let snos: Vec<Sno> = rows.iter().map(|r| r.get(2)).collect();
    let kuid96s: Vec<Kuid96> = rows.iter().map(|r| r.get(6)).collect();
    let mut sorted = flakes.clone();
    sorted.sort();
    tap.ok(
        rows.len() == 50 && flakes == sorted && snos.iter().all(|s| s.0.len() == 10) && kuid96s.iter().all(|k| k.0.len() == 12),
        "50 rows through every DEFAULT generator, RETURNING decoded: increasing i64 snowflakes, IDs as their bytes".into(),
    );
    one_type::<Sno>(conn, tap, "sno", 10).await?;
    one_type::<Flax>(conn, tap, "flax", 12).await?;
    one_type::<Siq>(conn, tap, "siq", 14).await?;
    one_type::<Kuid>(conn, tap, "kuid", 8).await?;
    one_type::<Kuid96>(conn, tap, "kuid96", 12).await?;

    // binary COPY: in, the IDs' bytes and then their text; out, their bytes
    sqlx::raw_sql("CREATE TEMP TABLE copied (sno sno, flax flax, siq siq, kuid kuid, kuid96 kuid96, snowflake bigint)").execute(&mut *conn).await?;
    let source = sqlx::query("SELECT sno::bytea, flax::bytea, siq::bytea, kuid::bytea, kuid96::bytea, snowflake, sno::text, flax::text, siq::text, kuid::text, kuid96::text FROM client_sqlx ORDER BY n")
        .fetch_all(&mut *conn)
        .await?;
    for as_text in [false, true] {
        sqlx::raw_sql("TRUNCATE copied").execute(&mut *conn).await?;
        let rows: Vec<Vec<Vec<u8>>> = source
            .iter()
            .map(|r| {
                let mut fields: Vec<Vec<u8>> =
                    (0..5).map(|c| if as_text { r.get::<String, _>(c + 6).into_bytes() } else { r.get::<Vec<u8>, _>(c) }).collect();
                fields.push(r.get::<i64, _>(5).to_be_bytes().to_vec());
                fields
            })
            .collect();
        let mut copy = conn.copy_in_raw("COPY copied FROM STDIN (FORMAT binary)").await?;
        copy.send(copy_binary(&rows)).await?;
        let copied = copy.finish().await?;
        let same: i64 = sqlx::query_scalar("SELECT count(*) FROM copied JOIN client_sqlx USING (sno, flax, siq, kuid, kuid96, snowflake)")
            .fetch_one(&mut *conn)
            .await?;
        let what = if as_text { "the IDs' text as binary values" } else { "the IDs' bytes" };
        tap.ok(copied == 50 && same == 50, format!("binary COPY FROM (copy_in_raw) of {what}: {copied} rows, {same} equal to their source"));
    }
    let mut out = Vec::new();
    {
        let mut stream = conn
            .copy_out_raw("COPY (SELECT sno, flax, siq, kuid, kuid96, snowflake FROM client_sqlx ORDER BY n) TO STDOUT (FORMAT binary)")
            .await?;
        while let Some(chunk) = stream.next().await {
            out.extend_from_slice(&chunk?);
        }
    }
    let parsed = parse_binary(&out).unwrap_or_default();
    let same = parsed
        .iter()
        .zip(&source)
        .filter(|(row, src)| (0..5).all(|c| row[c] == src.get::<Vec<u8>, _>(c)) && row[5] == src.get::<i64, _>(5).to_be_bytes())
        .count();
    tap.ok(parsed.len() == 50 && same == 50, format!("binary COPY TO (copy_out_raw): {} rows, the IDs as their bytes, {same} equal", parsed.len()));
    sqlx::raw_sql("DROP TABLE client_sqlx").execute(&mut *conn).await?;
    Ok(())
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime");
    let mut tap = Tap { count: 0, failed: 0 };
    let result = runtime.block_on(async {
        let mut conn = PgConnection::connect_with(&PgConnectOptions::new()).await?;
        let result = run(&mut conn, &mut tap).await;
        let _ = conn.close().await;
        result
    });
    if let Err(e) = result {
        tap.ok(false, format!("the suite stopped: {e}"));
    }
    println!("1..{}", tap.count);
    std::process::exit(if tap.failed > 0 { 1 } else { 0 });
}
