-- SPDX-License-Identifier: GPL-2.0-or-later
-- Population of the TPC-C-like database (TPC-C clause 4.3.3, essentials):
-- tpcc_load_items() once, then tpcc_load_warehouse(w) for w = 1..W (the driver
-- runs several of those in parallel on big hosts).  Random strings come from
-- md5() of random(): cheap, and of the lengths the specification gives.

-- The ten syllables of C_LAST (clause 4.3.2.3).
CREATE OR REPLACE FUNCTION tpcc_lastname(n int) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT s[n / 100 + 1] || s[n / 10 % 10 + 1] || s[n % 10 + 1]
    FROM (SELECT ARRAY['BAR', 'OUGHT', 'ABLE', 'PRI', 'PRES',
                       'ESE', 'ANTI', 'CALLY', 'ATION', 'EING']) AS t(s)
$$;

-- A random string of lo..hi characters.
CREATE OR REPLACE FUNCTION tpcc_astr(lo int, hi int) RETURNS text
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
    SELECT left(md5(random()::text) || md5(random()::text),
                lo + floor(random() * (hi - lo + 1))::int)
$$;

-- I_DATA / S_DATA: 26..50 characters, 10 % of them contain "ORIGINAL".
CREATE OR REPLACE FUNCTION tpcc_data() RETURNS text
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
    SELECT CASE WHEN random() < 0.1
                THEN overlay(s PLACING 'ORIGINAL'
                             FROM 1 + floor(random() * (length(s) - 8))::int)
                ELSE s END
    FROM (SELECT tpcc_astr(26, 50) AS s) AS t
$$;

CREATE OR REPLACE FUNCTION tpcc_zip() RETURNS text
LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
    SELECT lpad(floor(random() * 10000)::int::text, 4, '0') || '11111'
$$;

CREATE OR REPLACE PROCEDURE tpcc_load_items() LANGUAGE sql AS $$
    INSERT INTO item
    SELECT i, 1 + floor(random() * 10000)::int, tpcc_astr(14, 24),
           round((1 + random() * 99)::numeric, 2), tpcc_data()
    FROM generate_series(1, 100000) AS i;
$$;

CREATE OR REPLACE PROCEDURE tpcc_load_warehouse(w int) LANGUAGE sql AS $$
    INSERT INTO warehouse VALUES
        (w, tpcc_astr(6, 10), tpcc_astr(10, 20), tpcc_astr(10, 20),
         tpcc_astr(10, 20), upper(tpcc_astr(2, 2)), tpcc_zip(),
         round((random() * 0.2)::numeric, 4), 300000.00);

    INSERT INTO district
    SELECT d, w, tpcc_astr(6, 10), tpcc_astr(10, 20), tpcc_astr(10, 20),
           tpcc_astr(10, 20), upper(tpcc_astr(2, 2)), tpcc_zip(),
           round((random() * 0.2)::numeric, 4), 30000.00, 3001
    FROM generate_series(1, 10) AS d;

    INSERT INTO stock
    SELECT i, w, 10 + floor(random() * 91)::int,
           tpcc_astr(24, 24), tpcc_astr(24, 24), tpcc_astr(24, 24),
           tpcc_astr(24, 24), tpcc_astr(24, 24), tpcc_astr(24, 24),
           tpcc_astr(24, 24), tpcc_astr(24, 24), tpcc_astr(24, 24),
           tpcc_astr(24, 24), 0, 0, 0, tpcc_data()
    FROM generate_series(1, 100000) AS i;

    -- C_LAST: c_id 1..1000 take the names 0..999 in order, the rest
    -- NURand(255, 0, 999) with the load-time constant C = 157 (clause 2.1.6).
    INSERT INTO customer
    SELECT c, d, w, tpcc_astr(8, 16), 'OE',
           tpcc_lastname(CASE WHEN c <= 1000 THEN c - 1
                         ELSE ((floor(random() * 256)::int
                                | floor(random() * 1000)::int) + 157) % 1000 END),
           tpcc_astr(10, 20), tpcc_astr(10, 20), tpcc_astr(10, 20),
           upper(tpcc_astr(2, 2)), tpcc_zip(),
           lpad(floor(random() * 1e16)::bigint::text, 16, '0'), now(),
           CASE WHEN random() < 0.1 THEN 'BC' ELSE 'GC' END, 50000.00,
           round((random() * 0.5)::numeric, 4), -10.00, 10.00, 1, 0,
           tpcc_astr(300, 500)
    FROM generate_series(1, 10) AS d, generate_series(1, 3000) AS c;

    INSERT INTO history
    SELECT c, d, w, d, w, now(), 10.00, tpcc_astr(12, 24)
    FROM generate_series(1, 10) AS d, generate_series(1, 3000) AS c;

    -- O_C_ID is a random permutation of 1..3000 in each district; orders
    -- 2101..3000 are undelivered and have a NEW-ORDER row.
    WITH o AS (
        INSERT INTO orders
        SELECT o, d, w, c, now(),
               CASE WHEN o < 2101 THEN 1 + floor(random() * 10)::int END,
               5 + floor(random() * 11)::int, 1
        FROM (SELECT d, o,
                     row_number() OVER (PARTITION BY d ORDER BY random()) AS c
              FROM generate_series(1, 10) AS d,
                   generate_series(1, 3000) AS o) AS t
        RETURNING o_id, o_d_id, o_w_id, o_entry_d, o_ol_cnt
    ), no AS (
        INSERT INTO new_order
        SELECT o_id, o_d_id, o_w_id FROM o WHERE o_id >= 2101
    )
    INSERT INTO order_line
    SELECT o_id, o_d_id, o_w_id, n, 1 + floor(random() * 100000)::int, o_w_id,
           CASE WHEN o_id < 2101 THEN o_entry_d END, 5,
           CASE WHEN o_id < 2101 THEN 0.00
                ELSE round((0.01 + random() * 9999.98)::numeric, 2) END,
           tpcc_astr(24, 24)
    FROM o, generate_series(1, o_ol_cnt) AS n;
$$;
