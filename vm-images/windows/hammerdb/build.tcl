# SPDX-License-Identifier: GPL-2.0-or-later
# nvmimic: build the reviews' TPC-C schema in SQL Server with HammerDB (user-supplied,
# 4.x).  Run by agent.ps1 as: hammerdbcli.bat auto build.tcl
# Scale 1,500 warehouses (about 150 GB of data at HammerDB's schema; the reviews quote
# ~333 GB for their tool), built by as many virtual users as the VM has vCPUs.
puts "nvmimic: building TPC-C schema, 1500 warehouses"
dbset db mssqls
dbset bm TPC-C
diset connection mssqls_server {(local)}
diset connection mssqls_tcp false
diset connection mssqls_authentication windows
diset tpcc mssqls_dbase tpcc
diset tpcc mssqls_count_ware 1500
set vus 16
if {[info exists ::env(NUMBER_OF_PROCESSORS)]} { set vus $::env(NUMBER_OF_PROCESSORS) }
diset tpcc mssqls_num_vu $vus
diset tpcc mssqls_imdb false
diset tpcc mssqls_use_bcp true
buildschema
puts "nvmimic: TPC-C schema built"
