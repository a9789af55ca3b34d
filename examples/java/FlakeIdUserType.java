package flakeid.examples;

import java.io.Serializable;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Properties;

import org.hibernate.HibernateException;
import org.hibernate.usertype.ParameterizedType;
import org.hibernate.usertype.UserType;

/**
 * Hibernate's custom type for flakeid columns, mapping them to FlakeId.
 * One class serves every type: its parameter "type" names it
 * (<type name="flakeid.examples.FlakeIdUserType"><param name="type">sno</param></type>).
 *
 * Written and tested against Hibernate 3.6 (Debian's libhibernate3-java).
 * Hibernate 5 and 6 keep the idea and change the signatures:
 * nullSafeGet/nullSafeSet take a SharedSessionContractImplementor (6: and
 * the column's position instead of its name), and 6's UserType is generic
 * (UserType<FlakeId>, getSqlType() returning Types.OTHER).
 */
public class FlakeIdUserType implements UserType, ParameterizedType {
	private String type;

	@Override
	public void setParameterValues(Properties parameters) {
		type = parameters.getProperty("type");
		if (type == null)
			throw new HibernateException("FlakeIdUserType needs its \"type\" parameter (sno, flax, siq, kuid or kuid96)");
	}

	@Override
	public int[] sqlTypes() {
		return new int[] {Types.OTHER};
	}

	@Override
	public Class<?> returnedClass() {
		return FlakeId.class;
	}

	@Override
	public Object nullSafeGet(ResultSet rows, String[] names, Object owner) throws SQLException {
		return FlakeId.read(rows, names[0], type);
	}

	@Override
	public void nullSafeSet(PreparedStatement statement, Object value, int index) throws SQLException {
		if (value == null)
			statement.setNull(index, Types.OTHER);
		else
			// the text as Types.OTHER: pgJDBC sends it untyped, and the server reads it as the column's type
			statement.setObject(index, value.toString(), Types.OTHER);
	}

	@Override
	public boolean equals(Object x, Object y) {
		return x == null ? y == null : x.equals(y);
	}

	@Override
	public int hashCode(Object x) {
		return x.hashCode();
	}

	// FlakeId is immutable, so copies are the value itself
	@Override
	public Object deepCopy(Object value) {
		return value;
	}

	@Override
	public boolean isMutable() {
		return false;
	}

	@Override
	public Serializable disassemble(Object value) {
		return (Serializable) value;
	}

	@Override
	public Object assemble(Serializable cached, Object owner) {
		return cached;
	}

	@Override
	public Object replace(Object original, Object target, Object owner) {
		return original;
	}
}
