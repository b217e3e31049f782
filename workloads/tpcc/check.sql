-- SPDX-License-Identifier: GPL-2.0-or-later
-- TPC-C consistency conditions 1-4 (clause 3.3.2).  Prints one row per
-- condition: its number and how many warehouses/districts violate it.
SELECT 1 AS condition, count(*) AS violations FROM (
    SELECT w_id FROM warehouse JOIN district ON d_w_id = w_id
    GROUP BY w_id, w_ytd HAVING w_ytd <> sum(d_ytd)) AS v
UNION ALL
SELECT 2, count(*) FROM district d
WHERE d.d_next_o_id - 1 IS DISTINCT FROM
          (SELECT max(o_id) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id)
   OR d.d_next_o_id - 1 IS DISTINCT FROM
          (SELECT max(no_o_id) FROM new_order
           WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id)
UNION ALL
SELECT 3, count(*) FROM (
    SELECT no_w_id, no_d_id FROM new_order GROUP BY no_w_id, no_d_id
    HAVING max(no_o_id) - min(no_o_id) + 1 <> count(*)) AS v
UNION ALL
SELECT 4, count(*) FROM (
    SELECT o_w_id, o_d_id FROM orders o GROUP BY o_w_id, o_d_id
    HAVING sum(o_ol_cnt) <> (SELECT count(*) FROM order_line
                             WHERE ol_w_id = o.o_w_id AND ol_d_id = o.o_d_id)) AS v
ORDER BY 1;
