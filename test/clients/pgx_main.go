// Every flakeid type (and the snowflake bigints) through Go's pgx v4
// (Debian's golang-github-jackc-pgx-v4-dev), the way a Go service uses it,
// with no registration of the types: IDs are plain strings.  TAP output;
// the connection comes from the libpq environment (test/clients/run).  With
// FLAKEID_PGBOUNCER (host:port of a pgbouncer in transaction mode) set, a
// last part checks the settings docs/CLIENTS.md gives for it.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgx/v4"
)

var types = []string{"sno", "flax", "siq", "kuid", "kuid96"}
var widths = map[string]int{"sno": 10, "flax": 12, "siq": 14, "kuid": 8, "kuid96": 12}
var generators = map[string]string{
	"sno": "sno_new()", "flax": "flax_new()", "siq": "siq_new('user')",
	"kuid": "kuid_new()", "kuid96": "kuid96_new()", "snowflake": "snowflake_new()",
}

var count, failed int

func ok(passed bool, format string, args ...interface{}) {
	count++
	verdict := "ok"
	if !passed {
		failed++
		verdict = "not ok"
	}
	fmt.Printf("%s %d - pgx: %s\n", verdict, count, fmt.Sprintf(format, args...))
}

func must(err error, what string) {
	if err != nil {
		ok(false, "%s: %v", what, err)
		fmt.Printf("1..%d\n", count)
		os.Exit(1)
	}
}

func main() {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "")
	must(err, "connect")
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS flakeid")
	must(err, "CREATE EXTENSION")
	_, err = conn.Exec(ctx, "DROP TABLE IF EXISTS client_pgx")
	must(err, "drop")
	columns := []string{"n int PRIMARY KEY", "snowflake bigint NOT NULL DEFAULT snowflake_new()", "vc kuid96[]"}
	for _, t := range types {
		columns = append(columns, fmt.Sprintf("%s %s NOT NULL DEFAULT %s", t, t, generators[t]))
	}
	_, err = conn.Exec(ctx, "CREATE TABLE client_pgx ("+strings.Join(columns, ", ")+")")
	must(err, "CREATE TABLE")

	// DEFAULT generation, IDs scanned into strings
	ids := map[string][]string{}
	rows, err := conn.Query(ctx, "INSERT INTO client_pgx (n) SELECT generate_series(1, 50) RETURNING n, sno, flax, siq, kuid, kuid96, snowflake")
	must(err, "insert")
	var snowflakes []int64
	for rows.Next() {
		var n int
		var s [5]string
		var sf int64
		must(rows.Scan(&n, &s[0], &s[1], &s[2], &s[3], &s[4], &sf), "scan")
		for i, t := range types {
			ids[t] = append(ids[t], s[i])
		}
		snowflakes = append(snowflakes, sf)
	}
	must(rows.Err(), "rows")
	ok(len(snowflakes) == 50, "50 rows inserted through every DEFAULT generator")

	for _, t := range types {
		// text out: the canonical string
		var text string
		must(conn.QueryRow(ctx, fmt.Sprintf("SELECT %s::text FROM client_pgx WHERE n = 1", t)).Scan(&text), t+" text")
		ok(text == ids[t][0], "%s scans into a string equal to %s::text (%s)", t, t, text)

		// a string parameter, plain and as $1::type
		hits := 0
		for i, id := range ids[t] {
			var n int
			if conn.QueryRow(ctx, fmt.Sprintf("SELECT n FROM client_pgx WHERE %s = $1", t), id).Scan(&n) == nil && n == i+1 {
				hits++
			}
		}
		ok(hits == 50, "%s sent back as a plain string parameter finds its row (%d/50)", t, hits)
		var n int
		err = conn.QueryRow(ctx, fmt.Sprintf("SELECT n FROM client_pgx WHERE %s = $1::%s", t, t), ids[t][7]).Scan(&n)
		ok(err == nil && n == 8, "%s sent as $1::%s finds its row", t, t)

		// bytes: read as bytea, sent back in binary through bytea
		var raw []byte
		must(conn.QueryRow(ctx, fmt.Sprintf("SELECT %s::bytea FROM client_pgx WHERE n = 3", t)).Scan(&raw), t+" bytes")
		ok(len(raw) == widths[t], "%s::bytea scans into its %d bytes", t, widths[t])
		err = conn.QueryRow(ctx, fmt.Sprintf("SELECT n FROM client_pgx WHERE %s = $1::bytea::%s", t, t), raw).Scan(&n)
		ok(err == nil && n == 3, "%s bytes sent in binary as $1::bytea::%s find their row", t, t)

		// the time as time.Time
		var at time.Time
		var epoch float64
		must(conn.QueryRow(ctx, fmt.Sprintf("SELECT %s_time(%s), extract(epoch FROM %s_time(%s))::float8 FROM client_pgx WHERE n = 1", t, t, t, t)).Scan(&at, &epoch), t+" time")
		ok(!at.IsZero() && time.Since(at) < 10*time.Minute && time.Since(at) > -time.Minute &&
			abs(float64(at.UnixNano())/1e9-epoch) < 1e-3, "%s_time() scans into a time.Time of now (%s)", t, at.UTC().Format(time.RFC3339Nano))

		// ORDER BY the ID, compared with Go's own byte order of the strings
		// (flax is random within its millisecond: only its order is checked)
		sorted := append([]string(nil), ids[t]...)
		sort.Strings(sorted)
		var ordered []string
		rows, err = conn.Query(ctx, fmt.Sprintf("SELECT %s FROM client_pgx ORDER BY %s", t, t))
		must(err, t+" order")
		for rows.Next() {
			var s string
			must(rows.Scan(&s), "scan")
			ordered = append(ordered, s)
		}
		ok(strings.Join(ordered, ",") == strings.Join(sorted, ","), "ORDER BY %s is the strings' byte order", t)
		if t != "flax" {
			ok(strings.Join(ids[t], ",") == strings.Join(sorted, ","), "%s from one session increase with insertion", t)
		}

		// a time range through <@ tstzrange, bounds as time.Time parameters
		var inRange int
		err = conn.QueryRow(ctx, fmt.Sprintf("SELECT count(*) FROM client_pgx WHERE %s <@ tstzrange($1, $2)", t),
			at.Add(-time.Hour), time.Now().Add(time.Hour)).Scan(&inRange)
		ok(err == nil && inRange == 50, "%s <@ tstzrange($1, $2) with time.Time bounds finds every row (%d)", t, inRange)

		// a bad literal: 22P02 with its DETAIL
		_, err = conn.Exec(ctx, fmt.Sprintf("SELECT $1::%s", t), "not-an-id!")
		var pgErr *pgconn.PgError
		ok(errors.As(err, &pgErr) && pgErr.Code == "22P02" && strings.Contains(pgErr.Message, "invalid input syntax for type "+t) && pgErr.Detail != "",
			"a bad %s literal is 22P02 with a DETAIL (%v)", t, detailOf(pgErr))
	}

	// COPY: pgx copies in binary; strings of an unknown type go as their
	// bytes, which each type's receive function reads as its canonical text
	_, err = conn.Exec(ctx, "CREATE TEMP TABLE copied (sno sno, flax flax, siq siq, kuid kuid, kuid96 kuid96, snowflake bigint)")
	must(err, "temp table")
	var copyRows [][]interface{}
	for i := range snowflakes {
		copyRows = append(copyRows, []interface{}{ids["sno"][i], ids["flax"][i], ids["siq"][i], ids["kuid"][i], ids["kuid96"][i], snowflakes[i]})
	}
	copied, err := conn.CopyFrom(ctx, pgx.Identifier{"copied"}, []string{"sno", "flax", "siq", "kuid", "kuid96", "snowflake"}, pgx.CopyFromRows(copyRows))
	ok(err == nil && copied == 50, "CopyFrom of string IDs into every type (%d rows, %v)", copied, err)
	var same int
	must(conn.QueryRow(ctx, "SELECT count(*) FROM copied JOIN client_pgx USING (sno, flax, siq, kuid, kuid96, snowflake)").Scan(&same), "copied")
	ok(same == 50, "every copied row equals its source (%d/50)", same)
	// raw bytes copy too, as a string of them (pgx takes no []byte for a type it does not know)
	_, err = conn.Exec(ctx, "TRUNCATE copied")
	must(err, "truncate")
	var raws [][]interface{}
	rows, err = conn.Query(ctx, "SELECT sno::bytea, flax::bytea, siq::bytea, kuid::bytea, kuid96::bytea, snowflake FROM client_pgx")
	must(err, "bytes")
	for rows.Next() {
		var b [5][]byte
		var sf int64
		must(rows.Scan(&b[0], &b[1], &b[2], &b[3], &b[4], &sf), "scan")
		raws = append(raws, []interface{}{string(b[0]), string(b[1]), string(b[2]), string(b[3]), string(b[4]), sf})
	}
	copied, err = conn.CopyFrom(ctx, pgx.Identifier{"copied"}, []string{"sno", "flax", "siq", "kuid", "kuid96", "snowflake"}, pgx.CopyFromRows(raws))
	must(conn.QueryRow(ctx, "SELECT count(*) FROM copied JOIN client_pgx USING (sno, flax, siq, kuid, kuid96, snowflake)").Scan(&same), "copied")
	ok(err == nil && copied == 50 && same == 50, "CopyFrom of raw bytes as string(b) (%d rows, %d equal, %v)", copied, same, err)
	// a string that is no ID fails the copy with 22P03
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"copied"}, []string{"sno"}, pgx.CopyFromRows([][]interface{}{{"BRPK4Q72XWF2M63L"}}))
	var pgErr *pgconn.PgError
	ok(errors.As(err, &pgErr) && pgErr.Code == "22P03" && strings.Contains(pgErr.Detail, "16-character canonical text"),
		"CopyFrom of an uppercase sno string is 22P03 (%v)", detailOf(pgErr))

	// snowflakes are int64
	sortedFlakes := append([]int64(nil), snowflakes...)
	sort.Slice(sortedFlakes, func(i, j int) bool { return sortedFlakes[i] < sortedFlakes[j] })
	var at time.Time
	err = conn.QueryRow(ctx, "SELECT snowflake_time($1) FROM client_pgx WHERE snowflake = $1", snowflakes[0]).Scan(&at)
	ok(err == nil && time.Since(at) < 10*time.Minute && fmt.Sprint(sortedFlakes) == fmt.Sprint(snowflakes),
		"snowflakes scan into increasing int64s, and go back as int64 parameters")

	// a kuid96[] vector clock through text[]
	var clock []string
	must(conn.QueryRow(ctx, "UPDATE client_pgx SET vc = kuid96_vclock() WHERE n = 1 RETURNING vc::text[]").Scan(&clock), "vclock")
	var ticked []string
	must(conn.QueryRow(ctx, "SELECT kuid96_vclock($1::text[]::kuid96[])::text[]", clock).Scan(&ticked), "tick")
	var descends bool
	must(conn.QueryRow(ctx, "SELECT kuid96_vclock_descends($1::text[]::kuid96[], vc) FROM client_pgx WHERE n = 1", ticked).Scan(&descends), "descends")
	ok(len(clock) == 1 && len(ticked) == 1 && ticked[0] > clock[0] && descends,
		"a kuid96[] vector clock as []string: ticked from a text[] parameter, it descends the stored one")

	// masks (issue 64): a token is plain text both ways; test/clients/run gives the server a key
	for _, t := range append(append([]string(nil), types...), "snowflake") {
		var token string
		var n int
		err := conn.QueryRow(ctx, fmt.Sprintf("SELECT %s_mask(%s, 'orders') FROM client_pgx WHERE n = 7", t, t)).Scan(&token)
		if err == nil {
			err = conn.QueryRow(ctx, fmt.Sprintf("SELECT n FROM client_pgx WHERE %s = %s_unmask($1, 'orders')", t, t), token).Scan(&n)
		}
		ok(err == nil && token != "" && n == 7, "%s_mask scans into a string, which as a string parameter to %s_unmask finds its row (%v)", t, t, err)
	}

	if bouncer := os.Getenv("FLAKEID_PGBOUNCER"); bouncer != "" {
		throughPgbouncer(ctx, bouncer)
	}
	_, err = conn.Exec(ctx, "DROP TABLE client_pgx")
	must(err, "drop")
	fmt.Printf("1..%d\n", count)
	if failed > 0 {
		os.Exit(1)
	}
}

// throughPgbouncer: pgbouncer 1.18 in transaction mode keeps no prepared
// statement from one transaction to the next, so pgx must not cache them:
// statement_cache_mode=describe (or prefer_simple_protocol) is the setting
func throughPgbouncer(ctx context.Context, bouncer string) {
	parts := strings.SplitN(bouncer, ":", 2)
	config, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%s statement_cache_mode=describe", parts[0], parts[1]))
	must(err, "pgbouncer config")
	var conns []*pgx.Conn
	for i := 0; i < 3; i++ {
		c, err := pgx.ConnectConfig(ctx, config)
		must(err, "connect through pgbouncer")
		defer c.Close(ctx)
		conns = append(conns, c)
	}
	_, err = conns[0].Exec(ctx, "CREATE TABLE IF NOT EXISTS client_pgx_pooled (n int PRIMARY KEY, id sno NOT NULL DEFAULT sno_new())")
	must(err, "pooled table")
	_, err = conns[0].Exec(ctx, "TRUNCATE client_pgx_pooled")
	must(err, "truncate")
	var inserted []string
	errs := 0
	for n := 1; n <= 60; n++ {
		var id string
		// three clients take turns, each statement in its own transaction
		if conns[n%3].QueryRow(ctx, "INSERT INTO client_pgx_pooled (n) VALUES ($1) RETURNING id", n).Scan(&id) != nil {
			errs++
		}
		inserted = append(inserted, id)
	}
	sorted := append([]string(nil), inserted...)
	sort.Strings(sorted)
	ok(errs == 0 && strings.Join(sorted, ",") == strings.Join(inserted, ","),
		"through pgbouncer (transaction mode, statement_cache_mode=describe): 60 DEFAULT sno_new() from 3 clients take turns, in order (%d errors)", errs)
	var distinct int
	must(conns[0].QueryRow(ctx, "SELECT count(DISTINCT id) FROM client_pgx_pooled").Scan(&distinct), "distinct")
	ok(distinct == 60, "through pgbouncer: 60 distinct IDs (%d)", distinct)
	// a prepared statement used again and again, across pooled connections
	hits := 0
	for i, id := range inserted {
		var n int
		if conns[i%3].QueryRow(ctx, "SELECT n FROM client_pgx_pooled WHERE id = $1", id).Scan(&n) == nil && n == i+1 {
			hits++
		}
	}
	ok(hits == 60, "through pgbouncer: a string parameter finds each row from any client (%d/60)", hits)
	_, err = conns[0].Exec(ctx, "DROP TABLE client_pgx_pooled")
	must(err, "drop")
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func detailOf(e *pgconn.PgError) string {
	if e == nil {
		return "no PgError"
	}
	return e.Code + ": " + e.Detail
}
