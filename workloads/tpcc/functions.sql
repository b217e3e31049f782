-- SPDX-License-Identifier: GPL-2.0-or-later
-- The five TPC-C transactions as PL/pgSQL functions, after the profiles of
-- TPC-C clauses 2.4 - 2.8.  Input data that the specification generates on the
-- terminal is partly generated here (order lines), partly by the pgbench
-- scripts (warehouse, district, customer, amounts), so one SQL round trip makes
-- one transaction.

-- Start clean: an older version may have left overloads with other signatures.
DO $$
DECLARE f regprocedure;
BEGIN
    FOR f IN SELECT p.oid::regprocedure FROM pg_proc p
             WHERE p.proname IN ('tpcc_nurand', 'tpcc_customer_by_name',
                                 'tpcc_new_order', 'tpcc_payment',
                                 'tpcc_order_status', 'tpcc_delivery',
                                 'tpcc_stock_level') LOOP
        EXECUTE 'DROP FUNCTION ' || f;
    END LOOP;
END $$;

-- NURand(A, x, y) of clause 2.1.6 with run-time constant c.
CREATE OR REPLACE FUNCTION tpcc_nurand(a int, x int, y int, c int) RETURNS int
LANGUAGE sql VOLATILE AS $$
    SELECT (((floor(random() * (a + 1))::int
              | (x + floor(random() * (y - x + 1))::int)) + c) % (y - x + 1)) + x
$$;

-- Customer selected by last name: the one at position ceil(n / 2) of those
-- with that name, sorted by C_FIRST (clause 2.5.2.2).
CREATE OR REPLACE FUNCTION tpcc_customer_by_name(p_w int, p_d int, p_last text)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    ids int[];
BEGIN
    SELECT array_agg(c_id ORDER BY c_first) INTO ids
    FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
    IF ids IS NULL THEN
        RAISE EXCEPTION 'tpcc: no customer named % in warehouse % district %',
            p_last, p_w, p_d;
    END IF;
    RETURN ids[(array_length(ids, 1) + 1) / 2];
END $$;

-- New-Order (clause 2.4).  p_rbk = 1 (1 % of calls) makes the last item id
-- unused, so the transaction is rolled back after doing its work; returns the
-- new order's id, or -1 for a rolled-back one.  Lines are processed in
-- (supply warehouse, item) order so concurrent New-Orders never deadlock on
-- STOCK.
CREATE OR REPLACE FUNCTION tpcc_new_order(p_w int, p_d int, p_c int,
                                          p_ol_cnt int, p_rbk int, p_nw int)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    items int[]; supply int[]; qty int[];
    all_local int := 1;
    w_tax numeric; d_tax numeric; o_id int;
    c_disc numeric; c_last text; c_credit text;
    r record; n int := 0;
    price numeric; iname text; idata text; sdata text; dist text;
    amount numeric; total numeric := 0; brand text;
BEGIN
    FOR i IN 1 .. p_ol_cnt LOOP
        items[i] := tpcc_nurand(8191, 1, 100000, 7911);
        supply[i] := p_w;
        IF p_nw > 1 AND random() < 0.01 THEN
            supply[i] := 1 + (p_w + floor(random() * (p_nw - 1))::int) % p_nw;
            all_local := 0;
        END IF;
        qty[i] := 1 + floor(random() * 10)::int;
    END LOOP;
    IF p_rbk = 1 THEN
        items[p_ol_cnt] := 100001;
    END IF;

    BEGIN
        SELECT w.w_tax INTO w_tax FROM warehouse w WHERE w.w_id = p_w;
        UPDATE district SET d_next_o_id = d_next_o_id + 1
        WHERE d_w_id = p_w AND d_id = p_d
        RETURNING district.d_tax, d_next_o_id - 1 INTO d_tax, o_id;
        SELECT c.c_discount, c.c_last, c.c_credit INTO c_disc, c_last, c_credit
        FROM customer c WHERE c.c_w_id = p_w AND c.c_d_id = p_d AND c.c_id = p_c;
        INSERT INTO orders VALUES (o_id, p_d, p_w, p_c, now(), NULL, p_ol_cnt,
                                   all_local);
        INSERT INTO new_order VALUES (o_id, p_d, p_w);

        FOR r IN SELECT u.i, u.sw, u.q
                 FROM unnest(items, supply, qty) AS u(i, sw, q)
                 ORDER BY u.sw, u.i LOOP
            n := n + 1;
            SELECT i_price, i_name, i_data INTO price, iname, idata
            FROM item WHERE i_id = r.i;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'tpcc: item number is not valid'
                    USING ERRCODE = 'TC001';
            END IF;
            UPDATE stock SET
                s_quantity = CASE WHEN s_quantity - r.q >= 10
                                  THEN s_quantity - r.q
                                  ELSE s_quantity - r.q + 91 END,
                s_ytd = s_ytd + r.q,
                s_order_cnt = s_order_cnt + 1,
                s_remote_cnt = s_remote_cnt + (r.sw <> p_w)::int
            WHERE s_w_id = r.sw AND s_i_id = r.i
            RETURNING CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02
                               WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
                               WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06
                               WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
                               WHEN 9 THEN s_dist_09 ELSE s_dist_10 END,
                      s_data
            INTO dist, sdata;
            amount := r.q * price;
            brand := CASE WHEN idata LIKE '%ORIGINAL%' AND sdata LIKE '%ORIGINAL%'
                          THEN 'B' ELSE 'G' END;
            INSERT INTO order_line VALUES (o_id, p_d, p_w, n, r.i, r.sw, NULL,
                                           r.q, amount, dist);
            total := total + amount;
        END LOOP;
        total := total * (1 - c_disc) * (1 + w_tax + d_tax);
        RETURN o_id;
    EXCEPTION WHEN SQLSTATE 'TC001' THEN
        -- Everything since BEGIN is undone, D_NEXT_O_ID included.
        RETURN -1;
    END;
END $$;

-- Payment (clause 2.5).  p_by_name: select the customer by C_LAST = name
-- number p_last (0..999), else by p_c.  Returns the customer's id.
CREATE OR REPLACE FUNCTION tpcc_payment(p_w int, p_d int, p_c_w int, p_c_d int,
                                        p_c int, p_by_name boolean, p_last int,
                                        p_amount numeric)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    wname text; dname text; cid int; credit text; cdata text;
BEGIN
    UPDATE warehouse SET w_ytd = w_ytd + p_amount WHERE w_id = p_w
    RETURNING w_name INTO wname;
    UPDATE district SET d_ytd = d_ytd + p_amount
    WHERE d_w_id = p_w AND d_id = p_d
    RETURNING d_name INTO dname;
    IF p_by_name THEN
        cid := tpcc_customer_by_name(p_c_w, p_c_d, tpcc_lastname(p_last));
    ELSE
        cid := p_c;
    END IF;
    UPDATE customer SET c_balance = c_balance - p_amount,
                        c_ytd_payment = c_ytd_payment + p_amount,
                        c_payment_cnt = c_payment_cnt + 1
    WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = cid
    RETURNING c_credit, c_data INTO credit, cdata;
    IF credit = 'BC' THEN
        UPDATE customer SET c_data = left(format('%s %s %s %s %s %s | ', cid,
                                                 p_c_d, p_c_w, p_d, p_w, p_amount)
                                          || cdata, 500)
        WHERE c_w_id = p_c_w AND c_d_id = p_c_d AND c_id = cid;
    END IF;
    INSERT INTO history VALUES (cid, p_c_d, p_c_w, p_d, p_w, now(), p_amount,
                                left(wname || '    ' || dname, 24));
    RETURN cid;
END $$;

-- Order-Status (clause 2.6), read-only.  Returns the number of lines of the
-- customer's last order.
CREATE OR REPLACE FUNCTION tpcc_order_status(p_w int, p_d int, p_c int,
                                             p_by_name boolean, p_last int)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    cid int; bal numeric; o_num int; carrier int; n int := 0; r record;
BEGIN
    IF p_by_name THEN
        cid := tpcc_customer_by_name(p_w, p_d, tpcc_lastname(p_last));
    ELSE
        cid := p_c;
    END IF;
    SELECT c_balance INTO bal FROM customer
    WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = cid;
    SELECT o_id, o_carrier_id INTO o_num, carrier FROM orders
    WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = cid
    ORDER BY o_id DESC LIMIT 1;
    FOR r IN SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount,
                    ol_delivery_d
             FROM order_line
             WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = o_num LOOP
        n := n + 1;
    END LOOP;
    RETURN n;
END $$;

-- Delivery (clause 2.7), run directly rather than queued: delivers the oldest
-- undelivered order of each of the ten districts.  SKIP LOCKED lets two
-- concurrent Deliveries of one warehouse take different orders instead of one
-- finding none.  Returns the number of orders delivered.
CREATE OR REPLACE FUNCTION tpcc_delivery(p_w int, p_carrier int)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    o_num int; cid int; total numeric; n int := 0;
BEGIN
    FOR d IN 1 .. 10 LOOP
        DELETE FROM new_order
        WHERE (no_w_id, no_d_id, no_o_id) =
              (SELECT no_w_id, no_d_id, no_o_id FROM new_order
               WHERE no_w_id = p_w AND no_d_id = d
               ORDER BY no_o_id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING no_o_id INTO o_num;
        CONTINUE WHEN NOT FOUND;
        UPDATE orders SET o_carrier_id = p_carrier
        WHERE o_w_id = p_w AND o_d_id = d AND o_id = o_num
        RETURNING o_c_id INTO cid;
        WITH l AS (
            UPDATE order_line SET ol_delivery_d = now()
            WHERE ol_w_id = p_w AND ol_d_id = d AND ol_o_id = o_num
            RETURNING ol_amount)
        SELECT sum(ol_amount) INTO total FROM l;
        UPDATE customer SET c_balance = c_balance + total,
                            c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = p_w AND c_d_id = d AND c_id = cid;
        n := n + 1;
    END LOOP;
    RETURN n;
END $$;

-- Stock-Level (clause 2.8), read-only: distinct items of the district's last
-- 20 orders whose stock is below the threshold.
CREATE OR REPLACE FUNCTION tpcc_stock_level(p_w int, p_d int, p_threshold int)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    next_o int; n int;
BEGIN
    SELECT d_next_o_id INTO next_o FROM district
    WHERE d_w_id = p_w AND d_id = p_d;
    SELECT count(DISTINCT s_i_id) INTO n
    FROM order_line JOIN stock ON s_w_id = p_w AND s_i_id = ol_i_id
    WHERE ol_w_id = p_w AND ol_d_id = p_d
      AND ol_o_id >= next_o - 20 AND ol_o_id < next_o
      AND s_quantity < p_threshold;
    RETURN n;
END $$;
