-- SPDX-License-Identifier: GPL-2.0-or-later
-- TPC-C Stock-Level (clause 2.8): 4 % of the mix; the terminal's own district.
-- Variables from tpcc.sh (-D): nw (warehouses), key_*/think_* (us), c_id_c,
-- c_last_c (NURand run-time constants), n (starts at 0).
-- Home warehouse of this terminal (one pgbench client per virtual user).
\set w :client_id % :nw + 1
\set d (:client_id / :nw) % 10 + 1
\set threshold random(10, 20)
\sleep :key_sl us
SELECT tpcc_stock_level(:w, :d, :threshold);
-- Think time: negative exponential with mean :think_sl us, truncated at 10
-- means (clause 5.2.5.4), drawn from a MINSTD generator keyed by (client, n)
-- so that tpcc-report.py can recompute it and subtract it from the logged
-- transaction time.  n counts this client's completed transactions.
\set x ((:client_id + 1) * 1000003 + :n * 7919 + 17) % 2147483647
\set x (:x * 48271) % 2147483647
\set x (:x * 48271) % 2147483647
\set think int(least(-ln((:x + 1) / 2147483648.0), 10.0) * :think_sl)
\sleep :think us
\set n :n + 1
