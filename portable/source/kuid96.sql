
-- kuid96 (spec/kuid.md §3, I = 8): Mega (20) | SecHi (12) | Node (32) |
-- SecLo (8) | Tick (10) | Seq (14)
CREATE FUNCTION kuid96_pack(mega int8, sec int8, node int8, tick int8, seq int8) RETURNS kuid96
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (flakeid_be_bytes((mega << 12) | (sec >> 8), 4) || flakeid_be_bytes(node, 4)
            || flakeid_be_bytes(((sec & 255) << 24) | (tick << 14) | seq, 4))::kuid96;
CREATE FUNCTION kuid96_time(id kuid96) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN flakeid_timestamptz(((flakeid_be_int(id, 0, 4) >> 12) * 1000000
                                + (((flakeid_be_int(id, 0, 4) & 4095) << 8) | (flakeid_be_int(id, 8, 4) >> 24))) * 1000000
                               + (flakeid_be_int(id, 8, 4) >> 14 & 1023) * 1024);
CREATE FUNCTION kuid96_seq(id kuid96) RETURNS int4
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN (flakeid_be_int(id, 10, 2) & 16383)::int4;
CREATE FUNCTION kuid96_node(id kuid96) RETURNS int8
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN flakeid_be_int(id, 4, 4);
-- bounds of the whole 256-second window: the node outranks time inside it
CREATE FUNCTION kuid96_lower_bound(ts timestamptz) RETURNS kuid96
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT kuid96_pack(f.mega, f.sec & ~255::int8, 0, 0, 0) FROM kuid_fields(ts) f;
END;
CREATE FUNCTION kuid96_upper_bound(ts timestamptz) RETURNS kuid96
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT kuid96_pack(f.mega, f.sec | 255, 4294967295, 1023, 16383) FROM kuid_fields(ts) f;
END;
-- local <-> global, as the C edition's kuid96(kuid, node) and kuid(kuid96)
CREATE FUNCTION kuid96(id kuid, node int8) RETURNS kuid96
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN kuid96_pack(flakeid_be_int(id, 0, 8) >> 44 & 1048575, flakeid_be_int(id, 0, 8) >> 24 & 1048575, node,
                       flakeid_be_int(id, 0, 8) >> 14 & 1023, flakeid_be_int(id, 0, 8) & 16383);
CREATE FUNCTION kuid(id kuid96) RETURNS kuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN kuid_pack(flakeid_be_int(id, 0, 4) >> 12,
                     ((flakeid_be_int(id, 0, 4) & 4095) << 8) | (flakeid_be_int(id, 8, 4) >> 24),
                     flakeid_be_int(id, 8, 4) >> 14 & 1023, flakeid_be_int(id, 8, 4) & 16383);
-- this database's node: the fingerprint of flakeid.kuid_node (unset: 0)
CREATE FUNCTION kuid96_new() RETURNS kuid96
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
    RETURN kuid96(kuid_new(), CASE WHEN coalesce(current_setting('flakeid.kuid_node', true), '') = '' THEN 0
                                   ELSE kuid_node_hash(current_setting('flakeid.kuid_node', true)) END);
