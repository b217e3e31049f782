/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: a suite's guest and its launch.  Each suite's guest
 * (initramfs guest on null-co, render's small guest with the drive on a
 * sparse file, the database guest), its job directory, started as our QEMU
 * with a QMP socket and a control serial port (its command line from
 * qemu/cmdline.c), or as a libvirt domain (--connect).  vm.c follows it
 * from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmdline.h"
#include "paths.h"
#include "run-int.h"

static JsonNode *mon_qmp_socket(void *h, const char *cmd, const char *args,
                                int timeout_ms, GError **errp)
{
    return nvm_qmp_exec(h, cmd, args, timeout_ms, errp);
}

static JsonNode *mon_libvirt(void *h, const char *cmd, const char *args,
                             int timeout_ms, GError **errp)
{
    (void)timeout_ms;           /* libvirt's own monitor timeout applies */
    return nvm_lv_guest_qmp(h, cmd, args, errp);
}

/* DIR/domain.xml, or DIR/domain-SUITE.xml when the run has several suites */
static char *domain_xml_path(const Run *r)
{
    return r->n_order == 1 ? g_build_filename(r->dir, "domain.xml", NULL) :
           g_strdup_printf("%s/domain-%s.xml", r->dir,
                           nvm_run_suites[r->cfg.suite]);
}

/* a guest's memory, QEMU's -m SIZE (M or G), in MiB */
static unsigned mem_mib(const char *size)
{
    char *end;
    guint64 n = g_ascii_strtoull(size, &end, 10);

    return (unsigned)(*end == 'G' ? n * 1024 : n);
}

/* The drive's backing file for the suites whose data must stay (swap, a
 * database): sparse, so only what the guest writes takes host space. */
static bool make_backing(Run *r, const char *path, GError **errp)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

    if (fd < 0 || ftruncate(fd, r->p->capacity_bytes) < 0) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                    "cannot make the drive's backing file %s: %s", path,
                    g_strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return false;
    }
    close(fd);
    return true;
}

/* The job directory of the current suite: the agent as run.sh, the
 * suite's plan (@plan_text, as /job/plan) and files (GuestCfg.files;
 * directories are copied whole). */
static char *make_jobdir(Run *r, const char *plan_text, GError **errp)
{
    g_autofree char *jobdir = g_strdup_printf("%s/job-%s", r->tmp,
                                              nvm_run_suites[r->cfg.suite]);
    g_autofree char *agent = g_getenv("NVMIMIC_AGENT") ?
        g_strdup(g_getenv("NVMIMIC_AGENT")) :
        g_build_filename(nvm_path_vm_images(), "agent.sh", NULL);
    g_autofree char *runsh = g_build_filename(jobdir, "run.sh", NULL);
    g_autofree char *planf = g_build_filename(jobdir, "plan", NULL);
    g_autofree char *text = NULL;
    gsize len;

    g_mkdir_with_parents(jobdir, 0755);
    if (!g_file_get_contents(agent, &text, &len, errp) ||
        !g_file_set_contents(runsh, text, len, errp) ||
        !g_file_set_contents(planf, plan_text, -1, errp)) {
        return NULL;
    }
    for (unsigned i = 0; r->cfg.files && i + 1 < r->cfg.files->len; i += 2) {
        const char *src = g_ptr_array_index(r->cfg.files, i);
        g_autofree char *dst = g_build_filename(jobdir,
            (char *)g_ptr_array_index(r->cfg.files, i + 1), NULL);
        const char *cp[] = { "cp", "-RL", src, dst, NULL };
        int st;

        if (!g_file_test(src, G_FILE_TEST_EXISTS)) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                        "%s is missing (the %s suite needs it)", src,
                        nvm_run_suites[r->cfg.suite]);
            return NULL;
        }
        if (!g_spawn_sync(NULL, (char **)cp, NULL, G_SPAWN_SEARCH_PATH, NULL,
                          NULL, NULL, NULL, &st, errp) ||
            !g_spawn_check_wait_status(st, errp)) {
            g_prefix_error(errp, "copying %s into the job: ", src);
            return NULL;
        }
    }
    return g_steal_pointer(&jobdir);
}

/* The suite's kernel arguments, then --guest-append's (after those every
 * guest of nvmimic has: nvm_qemu_kernel_append()). */
static char *kernel_extra(const Run *r)
{
    return g_strdup_printf("%s%s%s", r->cfg.append ? r->cfg.append : "",
                           r->cfg.append && r->o.guest_append ? " " : "",
                           r->o.guest_append ? r->o.guest_append : "");
}

/*
 * The job channel (qemu/cmdline.h, vm-images/guest-init): the current
 * suite's job directory as the tar @jobtar, and an empty sparse results
 * disk, r->results_img, that the guest writes its tar onto (vm.c unpacks it
 * into r->gdir after the power-off).
 */
static bool make_channel(Run *r, const char *plan_text, const char *jobtar,
                         GError **errp)
{
    g_autofree char *jobdir = make_jobdir(r, plan_text, errp);
    const char *tar[] = { "tar", "-cf", jobtar, "-C", jobdir, ".", NULL };
    int st = 0, fd;

    if (!jobdir) {
        return false;
    }
    g_free(r->results_img);
    r->results_img = g_build_filename(r->tmp, "results.img", NULL);
    if (!g_spawn_sync(NULL, (char **)tar, NULL, G_SPAWN_SEARCH_PATH, NULL,
                      NULL, NULL, NULL, &st, errp) ||
        !g_spawn_check_wait_status(st, errp)) {
        g_prefix_error(errp, "cannot archive the job: ");
        return false;
    }
    fd = open(r->results_img, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, RESULTS_DISK_BYTES) < 0) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot create %s: "
                    "%s", r->results_img, g_strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return false;
    }
    close(fd);
    return true;
}

static bool start_guest_lv(Run *r, const char *plan_text, GError **errp)
{
    g_autofree char *jobtar = g_strdup_printf("%s/job-%s.tar", r->tmp,
                                              nvm_run_suites[r->cfg.suite]);
    g_autofree char *backing = g_build_filename(r->tmp, "drive.raw", NULL);
    g_autoptr(NvmLvSpec) s = nvm_lv_spec_new();
    bool simtime = !strcmp(r->o.mode, "simtime");
    NvmLvDisk *d;

    if (!make_channel(r, plan_text, jobtar, errp)) {
        return false;
    }
    g_free(r->lv_console);
    r->lv_console = g_build_filename(r->tmp, "console.log", NULL);
    unlink(r->lv_console);

    s->name = g_strdup_printf("nvmimic-run-%d-%08x", (int)getpid(),
                              g_random_int());
    g_free(s->qemu);
    s->qemu = g_strdup(r->o.qemu);
    s->remote_emulator = true;
    g_free(s->domain_type);
    s->domain_type = g_strdup(simtime ? "qemu" : "kvm");
    s->icount = simtime;
    s->icount_shift = r->o.icount_shift;
    s->profile = g_strdup(r->profile_path);
    s->profile_dir = g_strdup(r->o.profile_dir);
    if (r->cfg.backed) {
        /* a sparse file here, a sparse volume there */
        if (!make_backing(r, backing, errp)) {
            return false;
        }
        s->disk = g_strdup(backing);
        s->disk_format = g_strdup("raw");
    } else {
        s->null_bytes = r->p->capacity_bytes;
    }
    s->seed = r->o.seed;
    s->memory_mib = mem_mib(r->cfg.mem);
    s->vcpus = r->cfg.smp;
    s->kernel = g_build_filename(r->cfg.guest_dir, "vmlinuz", NULL);
    s->initrd = g_build_filename(r->cfg.guest_dir, "initramfs.cpio.gz", NULL);
    {
        g_autofree char *extra = kernel_extra(r);

        s->append = nvm_qemu_kernel_append(simtime, extra);
    }
    /* the database guest's root: uploaded, so a copy of the run's own */
    s->boot_disk = g_strdup(r->cfg.boot_disk);
    d = g_new0(NvmLvDisk, 1);
    d->file = g_strdup(jobtar);
    d->format = g_strdup("raw");
    d->serial = g_strdup("nvmimic-job");
    d->readonly = true;
    g_ptr_array_add(s->disks, d);
    d = g_new0(NvmLvDisk, 1);
    d->file = g_strdup(r->results_img);
    d->format = g_strdup("raw");
    d->serial = g_strdup("nvmimic-results");
    g_ptr_array_add(s->disks, d);
    /* the host may be another machine: the files go there as storage
     * volumes, the serial ports come back through the connection (serial0
     * into lv_console, serial1 the control channel) */
    s->serial_log = g_strdup(r->lv_console);
    s->ctl_serial = true;
    s->upload = true;
    s->pool = g_strdup(r->o.pool);
    if (!nvm_lv_spec_check(s, errp)) {
        return false;
    }
    {
        g_autofree char *xml = nvm_lv_domain_xml(s);
        g_autofree char *xf = domain_xml_path(r);

        g_file_set_contents(xf, xml, -1, NULL);
    }
    r->lv = nvm_lv_guest_start(r->o.connect, s, errp);
    if (!r->lv) {
        r->host_lost = g_error_matches(*errp, NVM_LV_ERROR,
                                       NVM_LV_ERROR_HOST);
        return false;
    }
    {
        /* as defined there: the volumes' paths */
        g_autofree char *xf = domain_xml_path(r);

        g_file_set_contents(xf, nvm_lv_guest_xml(r->lv), -1, NULL);
    }
    r->mon.exec = mon_libvirt;
    r->mon.h = r->lv;
    r->accel = g_strdup(simtime ? "tcg icount" : "kvm");
    r->ctl = nvm_lv_guest_ctl(r->lv, errp);
    return r->ctl != NULL;
}

/*
 * The database disk on the loaded image: a throwaway qcow2 overlay of the
 * drive's size over it (qemu-img, Debian's qemu-utils), then the
 * topology's devices, all timed by the profile, the model's mapping set
 * from the image's allocated blocks.
 */
static bool sql_disk_args(Run *r, NvmQemuLine *line, GError **errp)
{
    const char *topo = r->o.sql_topology;
    const char *qemu_img = g_getenv("NVMIMIC_QEMU_IMG") ?
                           g_getenv("NVMIMIC_QEMU_IMG") : "qemu-img";
    g_autofree char *ovl = g_build_filename(r->tmp, "db.qcow2", NULL);
    g_autofree char *size = g_strdup_printf("%" G_GUINT64_FORMAT,
                                            r->p->capacity_bytes);
    const char *mk[] = { qemu_img, "create", "-q", "-f", "qcow2", "-b",
                         r->sql_image, "-F", "raw", ovl, size, NULL };
    const char *wc = r->p->volatile_write_cache ? "on" : "off";
    bool nvme = !strcmp(topo, "nvme");
    /* the device or filter named nvm0: QMP's id, as for the NVMe drive */
    NvmQemuDrive drive = {
        .node = nvme ? "nvmdisk" : "dbdisk", .file = ovl, .format = "qcow2",
        .id = "nvm0", .profile = r->profile_path, .has_seed = true,
        .seed = r->o.seed, .map_allocated = true,
    };
    g_autofree char *out = NULL;
    g_autofree char *blockdev = NULL, *filter = NULL;
    g_autoptr(GError) e = NULL;
    int st = 0;

    unlink(ovl);
    if (!g_spawn_sync(NULL, (char **)mk, NULL, G_SPAWN_SEARCH_PATH |
                      G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &out, &st,
                      &e) || !g_spawn_check_wait_status(st, NULL)) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot make the "
                    "database's overlay with %s (Debian's qemu-utils; make "
                    "deps): %s", qemu_img,
                    e ? e->message : out ? g_strstrip(out) : "failed");
        return false;
    }
    if (nvme) {
        nvm_qemu_drive(line, &drive);
        return true;
    }
    blockdev = nvm_qemu_drive_blockdev(&drive);
    filter = nvm_qemu_drive_filter(&drive);
    nvm_qemu_add(line, "-blockdev", blockdev, "-blockdev", filter, "-device",
                 NULL);
    if (!strcmp(topo, "sas")) {
        /* the reviews' HBA: VMware's "LSI Logic SAS" is the SAS1068 */
        nvm_qemu_add(line, "mptsas1068,id=sas0", "-device", NULL);
        /* a SAS address (the disk's WWN): QEMU's mptsas reports the
         * WWN as the end device's address, and Linux's mptsas attaches
         * no device whose address is 0, scsi-hd's default */
        nvm_qemu_addf(line, "scsi-hd,bus=sas0.0,drive=nvm0,wwn=%s,"
                      "write-cache=%s", SQL_SAS_WWN, wc);
    } else {
        /* notified in the vCPU's MMIO write, as the NVMe doorbell: no
         * event loop turn between submission and the model's timer */
        nvm_qemu_addf(line, "virtio-blk-pci,drive=nvm0,serial=%s,"
                      "ioeventfd=off,write-cache=%s", SQL_VIRTIO_SERIAL, wc);
    }
    return true;
}

/* What an earlier guest left in its directory must not pass for this one's
 * (the files the guest's results tar and QEMU write there). */
static void clear_gdir(const Run *r)
{
    static const char *const old[] = {
        "console.log", "qemu.log", "qemu-cmdline", "rc", "job.log",
        "dmesg.txt", "boot-to-job-s", "fio.json", "device-stats.json",
    };

    g_mkdir_with_parents(r->gdir, 0755);
    for (unsigned i = 0; i < G_N_ELEMENTS(old); i++) {
        g_autofree char *p = g_build_filename(r->gdir, old[i], NULL);

        unlink(p);
    }
}

/*
 * Realtime runs use KVM where the host lets us open it (QEMU still falls
 * back to TCG when KVM does not start); NULL, or why not.
 */
static const char *kvm_unusable(void)
{
    if (access("/dev/kvm", F_OK) < 0) {
        return "no /dev/kvm";
    }
    if (access("/dev/kvm", R_OK | W_OK) < 0) {
        return "no read/write access to /dev/kvm";
    }
    return NULL;
}

/*
 * Our QEMU with the current suite's guest (qemu/cmdline.c builds the
 * line): the guest booted from its kernel, the job channel, the agent's
 * serial port a file QEMU appends to (ttyS1; the console is ttyS0, into
 * r->gdir/console.log), QMP on a socket, the drive under test.  QEMU's own
 * output goes to r->gdir/qemu.log, its command line to
 * r->gdir/qemu-cmdline.
 */
static bool start_guest_qemu(Run *r, const char *plan_text, GError **errp)
{
    g_autofree char *jobtar = g_strdup_printf("%s/job-%s.tar", r->tmp,
                                              nvm_run_suites[r->cfg.suite]);
    g_autofree char *ctl = g_build_filename(r->tmp, "agent.log", NULL);
    g_autofree char *qctl = nvm_qemu_opt_value(ctl);
    g_autofree char *qmp = g_build_filename(r->tmp, "qmp.sock", NULL);
    g_autofree char *log = g_build_filename(r->gdir, "qemu.log", NULL);
    g_autofree char *console = g_build_filename(r->gdir, "console.log", NULL);
    g_autofree char *cmdfile = g_build_filename(r->gdir, "qemu-cmdline",
                                                NULL);
    g_autofree char *backing = g_build_filename(r->tmp, "drive.raw", NULL);
    g_autofree char *extra = kernel_extra(r);
    g_autofree char *cmdtext = NULL;
    bool simtime = !strcmp(r->o.mode, "simtime");
    bool sqldb = r->cfg.suite == S_SQL && r->sql_image;
    g_autoptr(NvmQemuLine) line = nvm_qemu_line_new(r->o.qemu);
    NvmQemuDrive drive = {
        .node = "nvmdisk", .null_bytes = r->p->capacity_bytes,
        .null_read_zeroes = true, .file = r->cfg.backed ? backing : NULL,
        .format = "raw", .id = "nvm0", .profile = r->profile_path,
        .has_seed = true, .seed = r->o.seed,
    };
    pid_t pid;

    clear_gdir(r);
    if (!make_channel(r, plan_text, jobtar, errp)) {
        return false;
    }
    unlink(ctl);
    unlink(qmp);
    if (r->cfg.backed && !sqldb && !make_backing(r, backing, errp)) {
        return false;
    }
    g_free(r->kvm_why);
    r->kvm_why = NULL;
    nvm_qemu_firmware(line);
    if (simtime) {
        nvm_qemu_machine(line, NVM_QEMU_TCG);
        nvm_qemu_icount(line, r->o.icount_shift, true);
    } else {
        const char *why = kvm_unusable();

        r->kvm_why = g_strdup(why);
        nvm_qemu_machine(line, why ? NVM_QEMU_TCG : NVM_QEMU_KVM_OR_TCG);
    }
    nvm_qemu_guest(line, r->cfg.guest_dir, r->cfg.mem, r->cfg.smp, console,
                   simtime, extra);
    /* in simulated time the guest reads its job through fw_cfg and
     * touches no virtio disk until the job has run (their I/O completes
     * at host speed) */
    nvm_qemu_job_disks(line, jobtar, r->results_img, simtime);
    nvm_qemu_add(line, "-chardev", NULL);
    nvm_qemu_addf(line, "file,id=nvmctl,path=%s", qctl);
    nvm_qemu_add(line, "-serial", "chardev:nvmctl", "-S", "-no-shutdown",
                 NULL);
    /* the guest's random numbers (the kernel's seed from the boot loader) */
    nvm_qemu_add(line, "-seed", NULL);
    nvm_qemu_addf(line, "%" G_GUINT64_FORMAT, r->o.seed);
    nvm_qemu_add(line, "-qmp", NULL);
    nvm_qemu_addf(line, "unix:%s,server=on,wait=off", qmp);
    if (sqldb) {
        if (!sql_disk_args(r, line, errp)) {
            return false;
        }
    } else {
        nvm_qemu_drive(line, &drive);
    }
    if (r->cfg.boot_disk) {
        g_autofree char *boot = nvm_qemu_opt_value(r->cfg.boot_disk);

        nvm_qemu_add(line, "-drive", NULL);
        nvm_qemu_addf(line, "file=%s,if=virtio,format=raw,snapshot=on", boot);
    }
    cmdtext = nvm_qemu_line_text(line);
    g_file_set_contents(cmdfile, cmdtext, -1, NULL);

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "fork: %s",
                    g_strerror(errno));
        return false;
    }
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int nul = open("/dev/null", O_RDONLY);

        setpgid(0, 0);          /* Ctrl-C is ours to handle, not the guest's */
        signal(SIGINT, SIG_DFL);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (nul >= 0) {
            dup2(nul, 0);
        }
        execv(r->o.qemu, nvm_qemu_argv(line));
        fprintf(stderr, "exec %s: %s\n", r->o.qemu, g_strerror(errno));
        _exit(127);
    }
    r->child = pid;
    setpgid(pid, pid);

    /* The sockets appear once QEMU has started. */
    for (int i = 0; i < BOOT_TIMEOUT_S * 10; i++) {
        g_autofree char *why = NULL;

        if (run_interrupted) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_CANCELLED, "interrupted");
            return false;
        }
        if (!run_guest_alive(r, &why)) {
            g_autofree char *l = NULL;

            g_file_get_contents(log, &l, NULL, NULL);
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED,
                        "QEMU did not start: %s",
                        l && *g_strstrip(l) ? l : why);
            return false;
        }
        if (g_file_test(ctl, G_FILE_TEST_EXISTS) &&
            g_file_test(qmp, G_FILE_TEST_EXISTS)) {
            break;
        }
        g_usleep(100 * 1000);
    }
    r->qmp = nvm_qmp_connect(qmp, 30000, errp);
    if (!r->qmp) {
        return false;
    }
    r->mon.exec = mon_qmp_socket;
    r->mon.h = r->qmp;
    r->ctl = nvm_line_open_file(ctl, errp);
    return r->ctl != NULL;
}

/*
 * Boot the current suite's guest with @plan_text as its plan: QEMU starts
 * paused (run_resume_guest() lets it run), a libvirt domain running (the
 * states are then queued while the guest boots, seconds before its first
 * mark).  The agent's serial port is a file QEMU appends to (the guest
 * never waits for the host to read it); with -no-shutdown QEMU outlives the
 * guest's power-off until the host has read the last marks
 * (run_stop_guest()).
 */
bool run_start_guest(Run *r, const char *plan_text, GError **errp)
{
    return r->o.connect ? start_guest_lv(r, plan_text, errp) :
                          start_guest_qemu(r, plan_text, errp);
}

/* The first line of QEMU's log that names KVM, or NULL. */
static char *kvm_line(const char *log)
{
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;

    if (!g_file_get_contents(log, &text, NULL, NULL)) {
        return NULL;
    }
    lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        if (strstr(*l, "KVM") || strstr(*l, "kvm")) {
            return g_strdup(g_strstrip(*l));
        }
    }
    return NULL;
}

/* Let the guest that run_start_guest() left paused run. */
bool run_resume_guest(Run *r, GError **errp)
{
    g_autofree char *log = g_build_filename(r->gdir, "qemu.log", NULL);
    bool simtime = !strcmp(r->o.mode, "simtime");
    bool kvm = false;
    JsonNode *n;

    if (r->lv) {
        return true;            /* libvirt runs it as soon as it starts */
    }
    if (!simtime) {
        /* which accelerator QEMU took */
        g_autoptr(JsonNode) k = nvm_qmp_exec(r->qmp, "query-kvm", NULL, 10000,
                                             errp);
        JsonObject *o = k && JSON_NODE_HOLDS_OBJECT(k) ?
                        json_node_get_object(k) : NULL;

        if (!k) {
            return false;
        }
        kvm = o && json_object_get_boolean_member_with_default(o, "enabled",
                                                               false);
    }
    n = nvm_qmp_exec(r->qmp, "cont", NULL, 10000, errp);
    if (!n) {
        g_prefix_error(errp, "starting the guest: ");
        return false;
    }
    json_node_unref(n);
    g_free(r->accel);
    r->accel = g_strdup(simtime ? "tcg icount" : kvm ? "kvm" : "tcg");
    if (!simtime && !kvm) {
        g_autofree char *line = r->kvm_why ? NULL : kvm_line(log);

        fprintf(stderr, "nvmimic run: warning: KVM not usable (%s); realtime "
                "mode runs TCG in real time (slow, host-limited)\n",
                r->kvm_why ? r->kvm_why : line ? line : "QEMU did not start "
                "it");
    }
    return true;
}

void run_cfg_clear(GuestCfg *c)
{
    g_free(c->guest_dir);
    g_free(c->append);
    g_free(c->boot_disk);
    if (c->files) {
        g_ptr_array_free(c->files, TRUE);
    }
    memset(c, 0, sizeof(*c));
}

static void cfg_file(GuestCfg *c, char *src, const char *name)
{
    g_ptr_array_add(c->files, src);
    g_ptr_array_add(c->files, g_strdup(name));
}

/*
 * The database guest: its boot disk, the database disk's place (dbinit's
 * nvmimic.dbdev=) and, unless --connect, the loaded database of W
 * warehouses under a throwaway overlay; the job gets workloads/tpcc and a
 * postgresql.conf: the SQL Server-like settings and the run's sizes.
 */
static bool sql_cfg(Run *r, GuestCfg *c, GError **errp)
{
    const RunOpts *o = &r->o;
    const char *dev = !strcmp(o->sql_topology, "sas") ? "/dev/sda" :
                      !strcmp(o->sql_topology, "virtio") ?
                      "serial:" SQL_VIRTIO_SERIAL : "/dev/nvme0n1";
    g_autofree char *base = g_build_filename(nvm_path_apps(), "tpcc",
                                             "postgresql.conf", NULL);
    g_autofree char *conf = g_build_filename(r->tmp, "postgresql.conf",
                                             NULL);
    g_autofree char *text = NULL;
    g_autofree char *all = NULL;

    g_free(c->guest_dir);
    c->guest_dir = g_strdup(o->dbguest_dir);
    c->boot_disk = g_build_filename(o->dbguest_dir, "dbguest.img", NULL);
    if (!g_file_test(c->boot_disk, G_FILE_TEST_EXISTS)) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                    "no database guest: %s is missing (build it with "
                    "'make dbguest', or set --dbguest-dir / "
                    "NVMIMIC_DBGUEST_DIR)", c->boot_disk);
        return false;
    }
    g_free(r->sql_image);
    r->sql_image = NULL;
    if (!o->connect) {
        g_autofree char *name = g_strdup_printf("tpcc-w%u.img", o->sql_w);
        g_autofree char *img = g_build_filename(o->sqldb_dir, name, NULL);

        if (!g_file_test(img, G_FILE_TEST_IS_REGULAR)) {
            g_set_error(errp, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                        "no loaded database for W=%u: %s is missing (build "
                        "it with 'make sqldb SQL_W=%u', or set --sqldb-dir "
                        "/ NVMIMIC_SQLDB_DIR)", o->sql_w, img, o->sql_w);
            return false;
        }
        r->sql_image = g_canonicalize_filename(img, NULL);
    }
    c->append = g_strdup_printf("root=LABEL=nvmimic-db rw "
                                "init=/sbin/nvmimic-dbinit nvmimic.dbdev=%s%s",
                                dev, r->sql_image ? " nvmimic.dbimage=1" : "");
    g_free(r->sql_mem);
    r->sql_mem = g_strdup_printf("%uM", o->sql_mem_mib);
    c->mem = r->sql_mem;
    c->smp = o->sql_smp;
    c->backed = true;
    if (!g_file_get_contents(base, &text, NULL, errp)) {
        return false;
    }
    all = g_strdup_printf("%s\n# nvmimic run: this run's sizes\n"
                          "shared_buffers = %uMB\nmax_connections = %u\n",
                          text, o->sql_buffers_mib, o->sql_users + 10);
    if (!g_file_set_contents(conf, all, -1, errp)) {
        return false;
    }
    cfg_file(c, g_build_filename(nvm_path_apps(), "tpcc", NULL), "tpcc");
    cfg_file(c, g_steal_pointer(&conf), "postgresql.conf");
    return true;
}

/* The guest of @suite: initramfs guest with null-co, except render (little
 * RAM, the drive on a file for swap) and sql (the database guest). */
bool run_cfg_for(Run *r, int suite, GError **errp)
{
    GuestCfg *c = &r->cfg;

    run_cfg_clear(c);
    c->suite = suite;
    c->mem = "1G";
    c->smp = 1;
    c->guest_dir = g_strdup(r->o.guest_dir);
    c->files = g_ptr_array_new_with_free_func(g_free);
    c->backed = r->o.backing_file;
    g_free(r->gdir);
    r->gdir = run_guest_dir_name(r, suite);
    switch (suite) {
    case S_VDI:
        for (unsigned i = 0; i < NVM_VDI_WORKLOADS; i++) {
            g_autofree char *base = g_path_get_basename(r->vdi[i].path);

            cfg_file(c, g_strdup(r->vdi[i].path), base);
        }
        break;
    case S_SEQ:
        cfg_file(c, g_build_filename(nvm_path_apps(), "seq",
                                     "seq-write.fio", NULL), "seq-write.fio");
        cfg_file(c, g_build_filename(nvm_path_apps(), "seq",
                                     "seq-read.fio", NULL), "seq-read.fio");
        break;
    case S_RENDER: {
        g_autofree char *mem = g_strdup_printf("%uM", r->o.render_mem_mib);
        const char *bin = nvm_path_render();

        r->render_mem = g_steal_pointer(&mem);
        c->mem = r->render_mem;
        c->backed = true;
        cfg_file(c, g_strdup(bin), "render");
        cfg_file(c, g_build_filename(nvm_path_apps(),
                                     "render", "run.sh", NULL), "render.sh");
        break;
    }
    case S_SQL:
        if (!sql_cfg(r, c, errp)) {
            return false;
        }
        break;
    }
    return true;
}
