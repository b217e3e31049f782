# SPDX-License-Identifier: GPL-2.0-or-later
# nvmimic: the reviews' SQL Server OLTP run with HammerDB (user-supplied, 4.x).
# Run by agent.ps1 as: hammerdbcli.bat auto run.tcl > hammerdb-run.log
# 15,000 virtual users with keying and think times (TPC-C's own pacing, which caps
# throughput per warehouse: average transaction latency is what tells drives apart),
# as 150 HammerDB virtual users x 100 asynchronous clients each (event-driven scaling;
# 15,000 threads would swamp a 16-vCPU VM), 2.5 hours of ramp-up (the reviews'
# preconditioning) then a 30-minute timed sample.  Time profiling reports per-
# transaction response times (parse_results.py hammerdb).
puts "nvmimic: TPC-C run, 15000 users, 150 min rampup + 30 min test"
dbset db mssqls
dbset bm TPC-C
diset connection mssqls_server {(local)}
diset connection mssqls_tcp false
diset connection mssqls_authentication windows
diset tpcc mssqls_dbase tpcc
diset tpcc mssqls_driver timed
diset tpcc mssqls_rampup 150
diset tpcc mssqls_duration 30
diset tpcc mssqls_total_iterations 1000000000
diset tpcc mssqls_allwarehouse true
diset tpcc mssqls_keyandthink true
diset tpcc mssqls_timeprofile true
diset tpcc mssqls_async_scale true
diset tpcc mssqls_async_client 100
diset tpcc mssqls_async_verbose false
diset tpcc mssqls_async_delay 1000
diset tpcc mssqls_connect_pool false
loadscript
vuset vu 150
vuset logtotemp 1
vuset showoutput 1
vuset unique 1
vucreate
vurun
vudestroy
puts "nvmimic: TPC-C run done"
