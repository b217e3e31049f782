# SPDX-License-Identifier: GPL-2.0-or-later
# nvmimic: Windows guest setup, run at first logon (autounattend.xml) and then at every
# boot (a SYSTEM scheduled task it registers).  Windows PowerShell 4.0 (2012 R2) or later.
#
#   install phase (install.xml: no NVMe drive)  register the task, power off
#   run phase (run.xml: NVMe drive + results disk)
#     bring the NVMe drive online as D: (GPT, NTFS, 64 KiB clusters), install SQL Server
#     from its media with ConfigurationFile.ini when the job has tpcc, run agent.ps1
#     (the job), which copies its results to the NVMRESULTS disk and powers off.
# A job runs once per run_id (job.ini); new media with a new run_id runs again.
$ErrorActionPreference = 'Stop'
$Home_ = 'C:\nvmimic'
New-Item -ItemType Directory -Force $Home_ | Out-Null
Start-Transcript -Append "$Home_\setup.log" | Out-Null

function Read-Ini($path) {
    $h = @{}
    foreach ($l in Get-Content $path) {
        if ($l -match '^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$') { $h[$Matches[1]] = $Matches[2] }
    }
    return $h
}

# The NVMIMIC media (CD-ROM labelled NVMIMIC): copy it to C:\nvmimic when it is newer.
$media = Get-Volume | Where-Object { $_.FileSystemLabel -eq 'NVMIMIC' -and $_.DriveLetter } |
    Select-Object -First 1
if ($media) {
    $src = "$($media.DriveLetter):\nvmimic"
    $new = Read-Ini "$src\job.ini"
    $old = if (Test-Path "$Home_\job.ini") { Read-Ini "$Home_\job.ini" } else { @{} }
    if ($new.run_id -ne $old.run_id) {
        Write-Output "nvmimic: new job $($new.run_id) from $src"
        Copy-Item "$src\*" $Home_ -Recurse -Force
    }
}
if (-not (Test-Path "$Home_\job.ini")) { throw "nvmimic: no job.ini (NVMIMIC media not found)" }
$job = Read-Ini "$Home_\job.ini"

if (-not (Get-ScheduledTask -TaskName 'nvmimic' -ErrorAction SilentlyContinue)) {
    $a = New-ScheduledTaskAction -Execute 'powershell.exe' `
        -Argument "-NoProfile -ExecutionPolicy Bypass -File $Home_\setup.ps1"
    Register-ScheduledTask -TaskName 'nvmimic' -Trigger (New-ScheduledTaskTrigger -AtStartup) `
        -Action $a -User 'SYSTEM' -RunLevel Highest | Out-Null
    Write-Output "nvmimic: registered the boot-time task"
}

if (Test-Path "$Home_\done-$($job.run_id)") {
    Write-Output "nvmimic: job $($job.run_id) already ran; nothing to do"
    Stop-Transcript | Out-Null
    exit 0
}

# Every disk online and writable (Windows Server keeps new disks offline on some buses).
Get-Disk | Where-Object { $_.IsOffline } | Set-Disk -IsOffline $false
Get-Disk | Where-Object { $_.IsReadOnly -and -not $_.IsBoot } | Set-Disk -IsReadOnly $false

$nvme = Get-Disk | Where-Object { $_.BusType -eq 'NVMe' -or $_.FriendlyName -like "*$($job.model)*" } |
    Select-Object -First 1
if (-not $nvme) {
    Write-Output "nvmimic: install phase done (no NVMe drive attached); powering off"
    Stop-Transcript | Out-Null
    Stop-Computer -Force
    exit 0
}
Write-Output "nvmimic: NVMe drive: disk $($nvme.Number), $($nvme.FriendlyName), $($nvme.Size) bytes"

if ($nvme.PartitionStyle -eq 'RAW') {
    # Setup gave D: to the first CD-ROM: move any CD-ROM off D:
    $cd = Get-WmiObject Win32_Volume -Filter "DriveLetter='D:'"
    if ($cd -and $cd.DriveType -eq 5) {
        $used = (Get-WmiObject Win32_Volume | Where-Object { $_.DriveLetter }).DriveLetter
        $free = 'ZYXWVUTSRQPONMLKJIHGFE'.ToCharArray() | Where-Object { $used -notcontains "$($_):" } |
            Select-Object -First 1
        $cd.DriveLetter = "$($free):"
        $cd.Put() | Out-Null
    }
    Initialize-Disk -Number $nvme.Number -PartitionStyle GPT
    New-Partition -DiskNumber $nvme.Number -UseMaximumSize -DriveLetter D |
        Format-Volume -FileSystem NTFS -AllocationUnitSize 65536 -NewFileSystemLabel 'NVME' -Confirm:$false |
        Out-Null
    Write-Output "nvmimic: NVMe drive formatted as D:"
}

$suites = $job.suites -split ','
if ($suites -contains 'tpcc' -and -not (Get-Service MSSQLSERVER -ErrorAction SilentlyContinue)) {
    $sql = Get-Volume | Where-Object { $_.DriveType -eq 'CD-ROM' -and $_.DriveLetter } |
        Where-Object { Test-Path "$($_.DriveLetter):\setup.exe" } |
        Where-Object { Test-Path "$($_.DriveLetter):\x64" } | Select-Object -First 1
    if (-not $sql) { throw "nvmimic: SQL Server media (a CD-ROM with setup.exe and x64\) not found" }
    Write-Output "nvmimic: installing SQL Server from $($sql.DriveLetter):"
    $p = Start-Process -Wait -PassThru "$($sql.DriveLetter):\setup.exe" -ArgumentList `
        "/ConfigurationFile=$Home_\ConfigurationFile.ini", '/IAcceptSQLServerLicenseTerms', '/Q'
    if ($p.ExitCode -ne 0 -and $p.ExitCode -ne 3010) {
        throw "nvmimic: SQL Server setup failed with exit code $($p.ExitCode) (see its Setup Bootstrap\Log)"
    }
}

New-Item -ItemType File -Force "$Home_\done-$($job.run_id)" | Out-Null
Stop-Transcript | Out-Null
& "$Home_\agent.ps1" -Home_ $Home_
