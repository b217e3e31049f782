# SPDX-License-Identifier: GPL-2.0-or-later
# nvmimic: the Windows workload agent.  Runs the job in job.ini (suites four-corners and/or
# tpcc) and copies everything to the results disk (FAT, label NVMRESULTS), which the host
# reads with mtools (collect-results.sh) -- then powers off.  Same contract as the Linux
# guests: an rc file (0: every suite ran), a log, one file per measurement.
param([string]$Home_ = 'C:\nvmimic')
$ErrorActionPreference = 'Stop'
$out = "$Home_\results"
Remove-Item -Recurse -Force $out -ErrorAction SilentlyContinue
New-Item -ItemType Directory -Force $out | Out-Null
Start-Transcript "$out\agent.log" | Out-Null

function Read-Ini($path) {
    $h = @{}
    foreach ($l in Get-Content $path) {
        if ($l -match '^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$') { $h[$Matches[1]] = $Matches[2] }
    }
    return $h
}

# IOPS of a DiskSpd -Rxml result: I/Os over all threads and targets / test time.
function DiskSpd-Iops($file) {
    [xml]$x = Get-Content $file
    $ts = $x.Results.TimeSpan
    $n = 0.0
    foreach ($t in $ts.Thread) { foreach ($g in $t.Target) { $n += [double]$g.ReadCount + [double]$g.WriteCount } }
    return $n / [double]$ts.TestTimeSeconds
}

$rc = 0
try {
    $job = Read-Ini "$Home_\job.ini"
    $suites = $job.suites -split ','
    Write-Output "nvmimic: job $($job.run_id), profile $($job.profile), suites $($job.suites)"

    if ($suites -contains 'four-corners') {
        $diskspd = "$Home_\tools\diskspd.exe"
        if (-not (Test-Path $diskspd)) { throw "nvmimic: $diskspd not found (make-media.sh --diskspd)" }
        New-Item -ItemType Directory -Force 'D:\nvmimic' | Out-Null
        $jobs = (Get-Content "$Home_\jobs.json" -Raw | ConvertFrom-Json).workloads
        foreach ($w in $jobs) {
            $peakFile = "$out\$($w.name)-peak.xml"
            Write-Output "nvmimic: $($w.name) peak: diskspd $($w.args -join ' ') $($w.target)"
            & $diskspd @($w.args) $w.target | Out-File -Encoding ascii $peakFile
            if ($LASTEXITCODE -ne 0) { throw "nvmimic: diskspd failed ($($w.name) peak)" }
            $peak = if ($job.peak_source -eq 'model' -and $w.peak_iops) { [double]$w.peak_iops }
                    else { DiskSpd-Iops $peakFile }
            Write-Output ("nvmimic: {0} peak {1:N0} IOPS ({2})" -f $w.name, $peak, $job.peak_source)
            foreach ($pct in 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120) {
                # -g: bytes per millisecond per thread (diskspd_jobs.py has the same formula)
                $g = [math]::Max(1, [math]::Round($pct / 100.0 * $peak * $w.block_bytes / $w.threads / 1000.0))
                $f = "$out\{0}-{1:D3}.xml" -f $w.name, $pct
                & $diskspd @($w.args) "-g$g" $w.target | Out-File -Encoding ascii $f
                if ($LASTEXITCODE -ne 0) { throw "nvmimic: diskspd failed ($($w.name) $pct %)" }
            }
        }
        Remove-Item -Force 'D:\nvmimic\span.dat' -ErrorAction SilentlyContinue
    }

    if ($suites -contains 'tpcc') {
        # the reviews' 48 GB buffer pool
        & sqlcmd -E -b -Q "EXEC sp_configure 'show advanced options', 1; RECONFIGURE; EXEC sp_configure 'max server memory (MB)', $($job.sql_max_memory_mb); RECONFIGURE;" |
            Out-File -Encoding ascii "$out\sqlcmd.log"
        if ($LASTEXITCODE -ne 0) { throw "nvmimic: sqlcmd could not set max server memory" }
        $cli = Get-ChildItem -Recurse "$Home_\tools" -Filter 'hammerdbcli.bat' | Select-Object -First 1
        if (-not $cli) { throw "nvmimic: hammerdbcli.bat not found under $Home_\tools (make-media.sh --hammerdb)" }
        Push-Location $cli.DirectoryName
        $have = & sqlcmd -E -h -1 -Q "SET NOCOUNT ON; SELECT COUNT(*) FROM sys.databases WHERE name = 'tpcc'"
        if ("$have".Trim() -ne '1') {
            & $cli.FullName auto "$Home_\build.tcl" | Out-File -Encoding ascii "$out\hammerdb-build.txt"
        }
        & $cli.FullName auto "$Home_\run.tcl" | Out-File -Encoding ascii "$out\hammerdb-run.log"
        Pop-Location
        if (-not (Select-String -Quiet -Path "$out\hammerdb-run.log" -Pattern 'TEST RESULT')) {
            throw "nvmimic: HammerDB printed no TEST RESULT (see hammerdb-run.log)"
        }
    }
} catch {
    Write-Output "nvmimic: FAILED: $_"
    "$_" | Out-File -Encoding ascii "$out\error.txt"
    $rc = 1
}
"$rc" | Out-File -Encoding ascii "$out\rc"
Stop-Transcript | Out-Null

$res = Get-Volume | Where-Object { $_.FileSystemLabel -eq 'NVMRESULTS' -and $_.DriveLetter } | Select-Object -First 1
if ($res) {
    Copy-Item "$out\*" "$($res.DriveLetter):\" -Recurse -Force
    Write-VolumeCache -DriveLetter $res.DriveLetter -ErrorAction SilentlyContinue
} else {
    "nvmimic: no NVMRESULTS volume; results stay in $out" | Out-File -Append "$Home_\setup.log"
}
Stop-Computer -Force
