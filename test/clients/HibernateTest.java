// flakeid through Hibernate 3.6 (Debian's libhibernate3-java) with the
// mapping classes of examples/java: a sno primary key from FlakeIdGenerator,
// a siq column filled by its DEFAULT, both as FlakeId through
// FlakeIdUserType.  Every check goes through Hibernate's own API: save, get,
// HQL with typed parameters, update, delete.  TAP output; the server comes
// from the libpq environment (test/clients/run).
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.*;

import org.hibernate.Hibernate;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.hibernate.cfg.Configuration;
import org.hibernate.type.Type;

import flakeid.examples.FlakeId;
import flakeid.examples.FlakeIdUserType;

public class HibernateTest {
	public static class Event {
		private FlakeId id;
		private FlakeId ref;
		private String name;

		public FlakeId getId() { return id; }
		public void setId(FlakeId id) { this.id = id; }
		public FlakeId getRef() { return ref; }
		public void setRef(FlakeId ref) { this.ref = ref; }
		public String getName() { return name; }
		public void setName(String name) { this.name = name; }
	}

	// the mapping a user copies (docs/CLIENTS.md): the key from the server's
	// generator before the insert, the siq from the column's DEFAULT
	static final String MAPPING = "<?xml version='1.0'?>\n"
			+ "<!DOCTYPE hibernate-mapping PUBLIC '-//Hibernate/Hibernate Mapping DTD 3.0//EN' 'http://www.hibernate.org/dtd/hibernate-mapping-3.0.dtd'>\n"
			+ "<hibernate-mapping default-lazy='false'>\n"
			+ "  <typedef name='sno' class='flakeid.examples.FlakeIdUserType'><param name='type'>sno</param></typedef>\n"
			+ "  <typedef name='siq' class='flakeid.examples.FlakeIdUserType'><param name='type'>siq</param></typedef>\n"
			+ "  <class name='HibernateTest$Event' table='client_hibernate'>\n"
			+ "    <id name='id' type='sno'>\n"
			+ "      <generator class='flakeid.examples.FlakeIdGenerator'><param name='type'>sno</param><param name='generator'>sno_new(0)</param></generator>\n"
			+ "    </id>\n"
			+ "    <property name='ref' type='siq' generated='insert' insert='false' update='false'/>\n"
			+ "    <property name='name'/>\n"
			+ "  </class>\n"
			+ "</hibernate-mapping>\n";

	static int count = 0, failed = 0;

	static void ok(boolean passed, String description) {
		count++;
		if (!passed)
			failed++;
		System.out.println((passed ? "ok " : "not ok ") + count + " - Hibernate: " + description);
	}

	public static void main(String[] args) {
		try {
			run();
		} catch (Exception e) {
			ok(false, "unexpected " + e);
			e.printStackTrace(System.out);
		}
		System.out.println("1.." + count);
		System.exit(failed > 0 ? 1 : 0);
	}

	static void run() throws Exception {
		String host = Optional.ofNullable(System.getenv("PGHOST")).filter(h -> !h.startsWith("/")).orElse("localhost");
		String user = Optional.ofNullable(System.getenv("PGUSER")).orElse(System.getProperty("user.name"));
		String db = Optional.ofNullable(System.getenv("PGDATABASE")).orElse(user);
		Configuration cfg = new Configuration()
				.setProperty("hibernate.connection.driver_class", "org.postgresql.Driver")
				.setProperty("hibernate.connection.url", "jdbc:postgresql://" + host + ":" + System.getenv("PGPORT") + "/" + db + "?user=" + user)
				.setProperty("hibernate.dialect", "org.hibernate.dialect.PostgreSQLDialect")
				// no bytecode library (javassist) is needed without lazy proxies
				.setProperty("hibernate.bytecode.use_reflection_optimizer", "false");
		cfg.addInputStream(new ByteArrayInputStream(MAPPING.getBytes(StandardCharsets.UTF_8)));
		SessionFactory factory = cfg.buildSessionFactory();

		Session session = factory.openSession();
		session.createSQLQuery("CREATE EXTENSION IF NOT EXISTS flakeid").executeUpdate();
		session.createSQLQuery("DROP TABLE IF EXISTS client_hibernate").executeUpdate();
		session.createSQLQuery("CREATE TABLE client_hibernate (id sno PRIMARY KEY, ref siq NOT NULL DEFAULT siq_new('user'), name text)").executeUpdate();

		// save: the key comes from FlakeIdGenerator, ref from the DEFAULT
		Transaction tx = session.beginTransaction();
		List<Event> saved = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			Event e = new Event();
			e.setName("event " + i);
			session.save(e);
			saved.add(e);
		}
		tx.commit();
		List<FlakeId> keys = new ArrayList<>();
		for (Event e : saved)
			keys.add(e.getId());
		List<FlakeId> sorted = new ArrayList<>(keys);
		Collections.sort(sorted);
		ok(keys.stream().allMatch(k -> k != null && k.type().equals("sno") && k.toString().length() == 16)
				&& new HashSet<>(keys).size() == 20 && sorted.equals(keys),
				"session.save() of 20 entities: sno keys from FlakeIdGenerator (sno_new(0)), distinct and increasing (" + keys.get(0) + ")");
		ok(saved.stream().allMatch(e -> e.getRef() != null && e.getRef().toString().length() == 23),
				"the siq column's DEFAULT is read back into the saved entity (generated=\"insert\"): " + saved.get(0).getRef());
		session.close();

		// get by key, in a new session
		session = factory.openSession();
		Event found = (Event) session.get(Event.class, keys.get(5));
		ok(found != null && found.getName().equals("event 5") && found.getRef().equals(saved.get(5).getRef()),
				"session.get(Event.class, a FlakeId) finds its entity with its siq");

		// HQL: a FlakeId as a typed parameter, and ORDER BY the key
		Properties siqParameter = new Properties();
		siqParameter.setProperty("type", "siq");
		Type siqType = Hibernate.custom(FlakeIdUserType.class, siqParameter);
		Event byRef = (Event) session.createQuery("from HibernateTest$Event where ref = :ref")
				.setParameter("ref", saved.get(7).getRef(), siqType).uniqueResult();
		ok(byRef != null && byRef.getName().equals("event 7"), "HQL: where ref = :ref with a FlakeId of type siq");
		@SuppressWarnings("unchecked")
		List<Event> ordered = session.createQuery("from HibernateTest$Event order by id desc").list();
		List<FlakeId> descending = new ArrayList<>(sorted);
		Collections.reverse(descending);
		List<FlakeId> got = new ArrayList<>();
		for (Event e : ordered)
			got.add(e.getId());
		ok(got.equals(descending), "HQL: order by id desc gives the keys in reverse order");
		// a time range: native SQL through Hibernate, mapped back to entities
		@SuppressWarnings("unchecked")
		List<Event> recent = session.createSQLQuery("SELECT * FROM client_hibernate WHERE id <@ tstzrange(now() - interval '1 hour', NULL)")
				.addEntity(Event.class).list();
		ok(recent.size() == 20, "SQL through Hibernate: id <@ tstzrange(...) maps back 20 entities");

		// update and delete through the session
		tx = session.beginTransaction();
		found.setName("renamed");
		session.update(found);
		session.delete(session.get(Event.class, keys.get(0)));
		tx.commit();
		session.close();
		session = factory.openSession();
		Event renamed = (Event) session.get(Event.class, keys.get(5));
		long left = ((Number) session.createQuery("select count(*) from HibernateTest$Event").uniqueResult()).longValue();
		ok(renamed.getName().equals("renamed") && session.get(Event.class, keys.get(0)) == null && left == 19,
				"session.update and session.delete by a FlakeId key");
		session.createSQLQuery("DROP TABLE client_hibernate").executeUpdate();
		session.close();
		factory.close();
	}
}
