package flakeid.examples;

import java.io.Serializable;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Objects;

import org.postgresql.util.PGobject;

/**
 * A flakeid ID (sno, flax, siq, kuid, kuid96) in Java: its PostgreSQL type
 * and its canonical text.  Immutable; equal when type and text are equal;
 * ordered like the database orders them (the canonical texts of one type
 * sort by byte, and these are ASCII).
 *
 * Plain JDBC needs nothing of this class: read with getString, and send
 * with setObject(i, text, Types.OTHER) or with "?::sno" in the SQL.  A bare
 * setString works only with stringtype=unspecified in the connection URL,
 * because pgJDBC otherwise sends strings as varchar, and no flakeid type
 * takes a varchar without a cast.
 */
public final class FlakeId implements Comparable<FlakeId>, Serializable {
	private static final long serialVersionUID = 1L;
	private final String type;
	private final String text;

	public FlakeId(String type, String text) {
		this.type = Objects.requireNonNull(type);
		this.text = Objects.requireNonNull(text);
	}

	public String type() {
		return type;
	}

	@Override
	public String toString() {
		return text;
	}

	/** The value as a parameter: a PGobject names the type, so the server parses the text as one. */
	public PGobject toPGobject() throws SQLException {
		PGobject value = new PGobject();
		value.setType(type);
		value.setValue(text);
		return value;
	}

	public void bind(PreparedStatement statement, int index) throws SQLException {
		statement.setObject(index, toPGobject());
	}

	/** The column's value, or null. */
	public static FlakeId read(ResultSet rows, String column, String type) throws SQLException {
		String text = rows.getString(column);
		return text == null ? null : new FlakeId(type, text);
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof FlakeId && ((FlakeId) other).type.equals(type) && ((FlakeId) other).text.equals(text);
	}

	@Override
	public int hashCode() {
		return Objects.hash(type, text);
	}

	@Override
	public int compareTo(FlakeId other) {
		if (!type.equals(other.type))
			throw new ClassCastException("a " + type + " and a " + other.type + " do not compare");
		return text.compareTo(other.text);
	}
}
