-- SPDX-License-Identifier: GPL-2.0-or-later
-- TPC-C Order-Status (clause 2.6): 4 % of the mix; 60 % by last name.
-- Variables from tpcc.sh (-D): nw (warehouses), key_*/think_* (us), c_id_c,
-- c_last_c (NURand run-time constants), n (starts at 0).
-- Home warehouse of this terminal (one pgbench client per virtual user).
\set w :client_id % :nw + 1
\set d random(1, 10)
\set by_name random(1, 100) <= 60
\set c (((random(0, 1023) | random(1, 3000)) + :c_id_c) % 3000) + 1
\set last (((random(0, 255) | random(0, 999)) + :c_last_c) % 1000)
\sleep :key_os us
SELECT tpcc_order_status(:w, :d, :c, :by_name, :last);
-- Think time: negative exponential with mean :think_os us, truncated at 10
-- means (clause 5.2.5.4), drawn from a MINSTD generator keyed by (client, n)
-- so that tpcc-report.py can recompute it and subtract it from the logged
-- transaction time.  n counts this client's completed transactions.
\set x ((:client_id + 1) * 1000003 + :n * 7919 + 17) % 2147483647
\set x (:x * 48271) % 2147483647
\set x (:x * 48271) % 2147483647
\set think int(least(-ln((:x + 1) / 2147483648.0), 10.0) * :think_os)
\sleep :think us
\set n :n + 1
