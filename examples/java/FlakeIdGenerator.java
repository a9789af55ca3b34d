package flakeid.examples;

import java.io.Serializable;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Properties;

import org.hibernate.HibernateException;
import org.hibernate.MappingException;
import org.hibernate.dialect.Dialect;
import org.hibernate.engine.SessionImplementor;
import org.hibernate.id.Configurable;
import org.hibernate.id.IdentifierGenerator;
import org.hibernate.type.Type;

/**
 * Hibernate's identifier generator for a flakeid primary key: it asks the
 * server for a new ID before the insert, the way a sequence generator does,
 * so Hibernate knows the key at once (and can batch inserts).  Parameters:
 * "type" (sno, flax, siq, kuid or kuid96) and "generator", the SQL call
 * (sno_new(0), siq_new('user'), ...; default <type>_new()).
 *
 * Hibernate 3.6's API (Debian's libhibernate3-java); in 5 and 6 generate()
 * takes a SharedSessionContractImplementor.
 */
public class FlakeIdGenerator implements IdentifierGenerator, Configurable {
	private String type;
	private String call;

	@Override
	public void configure(Type hibernateType, Properties parameters, Dialect dialect) throws MappingException {
		type = parameters.getProperty("type");
		if (type == null || !type.matches("sno|flax|siq|kuid|kuid96"))
			throw new MappingException("FlakeIdGenerator needs \"type\": sno, flax, siq, kuid or kuid96");
		call = parameters.getProperty("generator", type + "_new()");
	}

	@Override
	public Serializable generate(SessionImplementor session, Object entity) throws HibernateException {
		try (PreparedStatement statement = session.connection().prepareStatement("SELECT (" + call + ")::text");
				ResultSet rows = statement.executeQuery()) {
			rows.next();
			return new FlakeId(type, rows.getString(1));
		} catch (SQLException e) {
			throw new HibernateException("could not get a new " + type + " from " + call, e);
		}
	}
}
