-- SPDX-License-Identifier: GPL-2.0-or-later
-- TPC-C New-Order (clause 2.4): 45 % of the mix.
-- Variables from tpcc.sh (-D): nw (warehouses), key_*/think_* (us), c_id_c,
-- c_last_c (NURand run-time constants), n (starts at 0).
-- Home warehouse of this terminal (one pgbench client per virtual user).
\set w :client_id % :nw + 1
\set d random(1, 10)
\set c (((random(0, 1023) | random(1, 3000)) + :c_id_c) % 3000) + 1
\set ol_cnt random(5, 15)
\set rbk random(1, 100)
\sleep :key_no us
SELECT tpcc_new_order(:w, :d, :c, :ol_cnt, :rbk, :nw);
-- Think time: negative exponential with mean :think_no us, truncated at 10
-- means (clause 5.2.5.4), drawn from a MINSTD generator keyed by (client, n)
-- so that tpcc-report.py can recompute it and subtract it from the logged
-- transaction time.  n counts this client's completed transactions.
\set x ((:client_id + 1) * 1000003 + :n * 7919 + 17) % 2147483647
\set x (:x * 48271) % 2147483647
\set x (:x * 48271) % 2147483647
\set think int(least(-ln((:x + 1) / 2147483648.0), 10.0) * :think_no)
\sleep :think us
\set n :n + 1
