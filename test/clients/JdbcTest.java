// Every flakeid type (and the snowflake bigints) through pgJDBC (Debian's
// libpostgresql-jdbc-java), in both of its string modes:
//   * the default (stringtype=varchar): setString sends varchar, which no
//     flakeid type takes implicitly, so the SQL casts (?::sno) or the value
//     goes as setObject(i, s, Types.OTHER) or a PGobject (examples/java);
//   * stringtype=unspecified in the URL: setString works on its own.
// TAP output.  The server comes from the libpq environment
// (test/clients/run); FLAKEID_PGBOUNCER (host:port of a pgbouncer in
// transaction mode) adds a part through it.
import java.sql.*;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.io.StringReader;
import java.util.*;

import org.postgresql.PGConnection;
import org.postgresql.util.PGobject;
import org.postgresql.util.PSQLException;

public class JdbcTest {
	static final String[] TYPES = {"sno", "flax", "siq", "kuid", "kuid96"};
	static final Map<String, Integer> WIDTHS = Map.of("sno", 10, "flax", 12, "siq", 14, "kuid", 8, "kuid96", 12);
	static final Map<String, String> GENERATORS = Map.of("sno", "sno_new()", "flax", "flax_new()",
			"siq", "siq_new('user')", "kuid", "kuid_new()", "kuid96", "kuid96_new()");
	static int count = 0, failed = 0;

	static void ok(boolean passed, String description) {
		count++;
		if (!passed)
			failed++;
		System.out.println((passed ? "ok " : "not ok ") + count + " - JDBC: " + description);
	}

	static String url(String host, String port, String options) {
		String user = Optional.ofNullable(System.getenv("PGUSER")).orElse(System.getProperty("user.name"));
		String db = Optional.ofNullable(System.getenv("PGDATABASE")).orElse(user);
		return "jdbc:postgresql://" + host + ":" + port + "/" + db + "?user=" + user + options;
	}

	public static void main(String[] args) throws Exception {
		String host = Optional.ofNullable(System.getenv("PGHOST")).orElse("localhost");
		if (host.startsWith("/"))
			host = "localhost";
		String port = Optional.ofNullable(System.getenv("PGPORT")).orElse("5432");
		try {
			try (Connection c = DriverManager.getConnection(url(host, port, ""))) {
				c.createStatement().execute("CREATE EXTENSION IF NOT EXISTS flakeid");
				c.createStatement().execute("DROP TABLE IF EXISTS client_jdbc");
				StringBuilder columns = new StringBuilder("n int PRIMARY KEY, snowflake bigint NOT NULL DEFAULT snowflake_new(), vc kuid96[]");
				for (String t : TYPES)
					columns.append(", ").append(t).append(' ').append(t).append(" NOT NULL DEFAULT ").append(GENERATORS.get(t));
				c.createStatement().execute("CREATE TABLE client_jdbc (" + columns + ")");
				defaultMode(c);
			}
			try (Connection c = DriverManager.getConnection(url(host, port, "&stringtype=unspecified"))) {
				unspecifiedMode(c);
				c.createStatement().execute("DROP TABLE client_jdbc");
			}
			String bouncer = System.getenv("FLAKEID_PGBOUNCER");
			if (bouncer != null && !bouncer.isEmpty())
				throughPgbouncer(bouncer.split(":")[0], bouncer.split(":")[1]);
		} catch (Exception e) {
			ok(false, "unexpected " + e);
		}
		System.out.println("1.." + count);
		System.exit(failed > 0 ? 1 : 0);
	}

	static void defaultMode(Connection c) throws Exception {
		// DEFAULT generation, the keys back through getGeneratedKeys, in a batch
		Map<String, List<String>> ids = new HashMap<>();
		List<Long> snowflakes = new ArrayList<>();
		try (PreparedStatement insert = c.prepareStatement("INSERT INTO client_jdbc (n) VALUES (?)",
				new String[] {"sno", "flax", "siq", "kuid", "kuid96", "snowflake"})) {
			for (int n = 1; n <= 50; n++) {
				insert.setInt(1, n);
				insert.addBatch();
			}
			int[] done = insert.executeBatch();
			ResultSet keys = insert.getGeneratedKeys();
			while (keys.next()) {
				for (String t : TYPES)
					ids.computeIfAbsent(t, k -> new ArrayList<>()).add(keys.getString(t));
				snowflakes.add(keys.getLong("snowflake"));
			}
			ok(done.length == 50 && snowflakes.size() == 50, "a batch of 50 inserts, every DEFAULT generator's value back through getGeneratedKeys");
		}

		for (String t : TYPES) {
			List<String> mine = ids.get(t);
			try (ResultSet r = c.createStatement().executeQuery("SELECT " + t + "::text, " + t + "::bytea FROM client_jdbc WHERE n = 1")) {
				r.next();
				ok(r.getString(1).equals(mine.get(0)) && r.getBytes(2).length == WIDTHS.get(t),
						t + ": getString is " + t + "::text (" + mine.get(0) + "), getBytes of ::bytea its " + WIDTHS.get(t) + " bytes");
			}
			// the default mode: setString goes as varchar, which needs ?::type
			int hits = 0;
			try (PreparedStatement p = c.prepareStatement("SELECT n FROM client_jdbc WHERE " + t + " = ?::" + t)) {
				for (int i = 0; i < mine.size(); i++) {
					p.setString(1, mine.get(i));
					try (ResultSet r = p.executeQuery()) {
						if (r.next() && r.getInt(1) == i + 1)
							hits++;
					}
				}
			}
			ok(hits == 50, t + ": setString with ?::" + t + " finds each row (" + hits + "/50)");
			String sqlstate = null;
			try (PreparedStatement p = c.prepareStatement("SELECT n FROM client_jdbc WHERE " + t + " = ?")) {
				p.setString(1, mine.get(0));
				p.executeQuery();
			} catch (PSQLException e) {
				sqlstate = e.getSQLState();
			}
			ok("42883".equals(sqlstate), t + ": a bare setString is refused in the default mode, as documented (" + sqlstate + ": operator does not exist)");
			try (PreparedStatement p = c.prepareStatement("SELECT n FROM client_jdbc WHERE " + t + " = ?")) {
				p.setObject(1, mine.get(4), Types.OTHER);
				ResultSet r = p.executeQuery();
				boolean other = r.next() && r.getInt(1) == 5;
				PGobject value = new PGobject();
				value.setType(t);
				value.setValue(mine.get(5));
				p.setObject(1, value);
				r = p.executeQuery();
				ok(other && r.next() && r.getInt(1) == 6, t + ": setObject(i, s, Types.OTHER) and a PGobject of type " + t + " find their rows");
			}
			// bytes in binary through bytea
			try (PreparedStatement p = c.prepareStatement("SELECT n FROM client_jdbc WHERE " + t + " = ?::bytea::" + t)) {
				ResultSet r = c.createStatement().executeQuery("SELECT " + t + "::bytea FROM client_jdbc WHERE n = 7");
				r.next();
				p.setBytes(1, r.getBytes(1));
				r = p.executeQuery();
				ok(r.next() && r.getInt(1) == 7, t + ": setBytes with ?::bytea::" + t + " finds its row");
			}
			// the time as OffsetDateTime, and a range query with OffsetDateTime bounds
			OffsetDateTime at;
			try (ResultSet r = c.createStatement().executeQuery("SELECT " + t + "_time(" + t + ") FROM client_jdbc WHERE n = 1")) {
				r.next();
				at = r.getObject(1, OffsetDateTime.class);
			}
			OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
			ok(at != null && Math.abs(ChronoUnit.SECONDS.between(at, now)) < 600, t + "_time() is an OffsetDateTime of now (" + at + ")");
			try (PreparedStatement p = c.prepareStatement("SELECT count(*) FROM client_jdbc WHERE " + t + " <@ tstzrange(?, ?)")) {
				p.setObject(1, at.minusHours(1));
				p.setObject(2, now.plusHours(1));
				ResultSet r = p.executeQuery();
				r.next();
				ok(r.getInt(1) == 50, t + " <@ tstzrange(?, ?) with OffsetDateTime bounds finds every row (" + r.getInt(1) + ")");
			}
			// ORDER BY: Java's String order of these ASCII texts is the IDs' order
			List<String> sorted = new ArrayList<>(mine);
			Collections.sort(sorted);
			List<String> ordered = new ArrayList<>();
			try (ResultSet r = c.createStatement().executeQuery("SELECT " + t + " FROM client_jdbc ORDER BY " + t)) {
				while (r.next())
					ordered.add(r.getString(1));
			}
			ok(ordered.equals(sorted) && (t.equals("flax") || mine.equals(sorted)),
					"ORDER BY " + t + " is the strings' order" + (t.equals("flax") ? "" : ", which is insertion order"));
			// a bad literal: 22P02 with its DETAIL
			try (PreparedStatement p = c.prepareStatement("SELECT ?::" + t)) {
				p.setString(1, "not-an-id!");
				p.executeQuery();
				ok(false, "a bad " + t + " literal is refused");
			} catch (PSQLException e) {
				String detail = e.getServerErrorMessage() == null ? null : e.getServerErrorMessage().getDetail();
				ok("22P02".equals(e.getSQLState()) && detail != null && !detail.isEmpty(),
						"a bad " + t + " literal is 22P02 with a DETAIL (" + detail + ")");
			}
		}

		// COPY through CopyManager, text format
		c.createStatement().execute("CREATE TEMP TABLE copied (sno sno, flax flax, siq siq, kuid kuid, kuid96 kuid96, snowflake bigint)");
		StringBuilder lines = new StringBuilder();
		for (int i = 0; i < 50; i++) {
			for (String t : TYPES)
				lines.append(ids.get(t).get(i)).append('\t');
			lines.append(snowflakes.get(i)).append('\n');
		}
		long copied = c.unwrap(PGConnection.class).getCopyAPI().copyIn("COPY copied FROM STDIN", new StringReader(lines.toString()));
		try (ResultSet r = c.createStatement().executeQuery("SELECT count(*) FROM copied JOIN client_jdbc USING (sno, flax, siq, kuid, kuid96, snowflake)")) {
			r.next();
			ok(copied == 50 && r.getInt(1) == 50, "CopyManager.copyIn of the IDs' text: 50 rows equal their source");
		}
		// masks (issue 64): a token is plain text both ways, setString in the default mode; test/clients/run gives the server a key
		List<String> masked = new ArrayList<>(Arrays.asList(TYPES));
		masked.add("snowflake");
		for (String t : masked) {
			String token;
			try (ResultSet r = c.createStatement().executeQuery("SELECT " + t + "_mask(" + t + ", 'orders') FROM client_jdbc WHERE n = 7")) {
				r.next();
				token = r.getString(1);
			}
			try (PreparedStatement p = c.prepareStatement("SELECT n FROM client_jdbc WHERE " + t + " = " + t + "_unmask(?, 'orders')")) {
				p.setString(1, token);
				ResultSet r = p.executeQuery();
				ok(token != null && r.next() && r.getInt(1) == 7, t + "_mask's token from getString, sent back with setString to " + t + "_unmask, finds its row");
			}
		}
		// snowflakes as long
		List<Long> sortedFlakes = new ArrayList<>(snowflakes);
		Collections.sort(sortedFlakes);
		try (PreparedStatement p = c.prepareStatement("SELECT n FROM client_jdbc WHERE snowflake = ?")) {
			p.setLong(1, snowflakes.get(9));
			ResultSet r = p.executeQuery();
			ok(r.next() && r.getInt(1) == 10 && sortedFlakes.equals(snowflakes), "snowflakes are increasing longs; setLong finds a row");
		}
		// a kuid96[] vector clock: getArray gives PGobjects, createArrayOf("kuid96", ...) sends them
		try (ResultSet r = c.createStatement().executeQuery("UPDATE client_jdbc SET vc = kuid96_vclock() WHERE n = 1 RETURNING vc")) {
			r.next();
			Object[] clock = (Object[]) r.getArray(1).getArray();
			PreparedStatement p = c.prepareStatement("SELECT kuid96_vclock_descends(kuid96_vclock(?), vc) FROM client_jdbc WHERE n = 1");
			p.setArray(1, c.createArrayOf("kuid96", clock));
			ResultSet d = p.executeQuery();
			boolean descends = d.next() && d.getBoolean(1);
			ok(clock.length == 1 && clock[0] instanceof PGobject && ((PGobject) clock[0]).getType().equals("kuid96")
					&& ((PGobject) clock[0]).getValue().length() == 16 && descends,
					"a kuid96[] vector clock: getArray() holds PGobjects of type kuid96 (" + clock[0]
							+ "), createArrayOf(\"kuid96\", them) sends it back, and ticked it descends");
		}
	}

	static void unspecifiedMode(Connection c) throws Exception {
		for (String t : TYPES) {
			List<String> mine = new ArrayList<>();
			try (ResultSet r = c.createStatement().executeQuery("SELECT " + t + " FROM client_jdbc ORDER BY n")) {
				while (r.next())
					mine.add(r.getString(1));
			}
			int hits = 0;
			try (PreparedStatement p = c.prepareStatement("SELECT n FROM client_jdbc WHERE " + t + " = ?")) {
				for (int i = 0; i < mine.size(); i++) {
					p.setString(1, mine.get(i));
					ResultSet r = p.executeQuery();
					if (r.next() && r.getInt(1) == i + 1)
						hits++;
				}
			}
			ok(hits == 50, "stringtype=unspecified: a bare setString on " + t + " finds each row (" + hits + "/50)");
			try (PreparedStatement p = c.prepareStatement("INSERT INTO client_jdbc (n, " + t + ") VALUES (?, ?)")) {
				p.setInt(1, 1000);
				p.setString(2, mine.get(0));
				p.executeUpdate();
				ResultSet r = c.createStatement().executeQuery("SELECT count(*) FROM client_jdbc WHERE " + t + " = (SELECT " + t + " FROM client_jdbc WHERE n = 1)");
				r.next();
				ok(r.getInt(1) == 2, "stringtype=unspecified: setString inserts into a " + t + " column");
				c.createStatement().execute("DELETE FROM client_jdbc WHERE n = 1000");
			}
		}
	}

	// pgbouncer 1.18 in transaction mode keeps no prepared statement across
	// transactions: prepareThreshold=0 keeps pgJDBC from preparing them on the server
	static void throughPgbouncer(String host, String port) throws Exception {
		List<Connection> conns = new ArrayList<>();
		for (int i = 0; i < 3; i++)
			conns.add(DriverManager.getConnection(url(host, port, "&prepareThreshold=0&stringtype=unspecified")));
		conns.get(0).createStatement().execute("CREATE TABLE client_jdbc_pooled (n int PRIMARY KEY, id sno NOT NULL DEFAULT sno_new())");
		List<String> inserted = new ArrayList<>();
		int errors = 0;
		List<PreparedStatement> inserts = new ArrayList<>();
		for (Connection c : conns)
			inserts.add(c.prepareStatement("INSERT INTO client_jdbc_pooled (n) VALUES (?) RETURNING id"));
		for (int n = 1; n <= 60; n++) {
			// one PreparedStatement per client, used 20 times: past pgJDBC's usual threshold of 5
			PreparedStatement p = inserts.get(n % 3);
			p.setInt(1, n);
			try (ResultSet r = p.executeQuery()) {
				r.next();
				inserted.add(r.getString(1));
			} catch (SQLException e) {
				errors++;
			}
		}
		List<String> sorted = new ArrayList<>(inserted);
		Collections.sort(sorted);
		ok(errors == 0 && inserted.size() == 60 && sorted.equals(inserted) && new HashSet<>(inserted).size() == 60,
				"through pgbouncer (transaction mode, prepareThreshold=0): 60 DEFAULT sno_new() from 3 clients taking turns, distinct and in order (" + errors + " errors)");
		int hits = 0;
		for (int i = 0; i < inserted.size(); i++) {
			PreparedStatement p = conns.get(i % 3).prepareStatement("SELECT n FROM client_jdbc_pooled WHERE id = ?");
			p.setString(1, inserted.get(i));
			ResultSet r = p.executeQuery();
			if (r.next() && r.getInt(1) == i + 1)
				hits++;
		}
		ok(hits == 60, "through pgbouncer: setString finds each row from any client (" + hits + "/60)");
		conns.get(0).createStatement().execute("DROP TABLE client_jdbc_pooled");
		for (Connection c : conns)
			c.close();
	}
}
