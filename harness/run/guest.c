/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nvmimic run: a suite's guest and its launch.  Each suite's guest
 * (initramfs guest on null-co, render's small guest with the drive on a
 * sparse file, the database guest), its job directory, started through
 * vm-images/run-guest.sh with a QMP socket and a control serial port, or
 * as a libvirt domain (--connect).  vm.c follows it from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* run-guest.sh's --mem SIZE (M or G) in MiB */
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

static bool start_guest_lv(Run *r, const char *plan_text, GError **errp)
{
    g_autofree char *jobdir = make_jobdir(r, plan_text, errp);
    g_autofree char *jobtar = g_strdup_printf("%s.tar", jobdir);
    g_autofree char *backing = g_build_filename(r->tmp, "drive.raw", NULL);
    g_autoptr(NvmLvSpec) s = nvm_lv_spec_new();
    bool simtime = !strcmp(r->o.mode, "simtime");
    const char *tar[] = { "tar", "-cf", jobtar, "-C", jobdir, ".", NULL };
    NvmLvDisk *d;
    int st = 0, fd;

    if (!jobdir) {
        return false;
    }
    g_free(r->lv_results);
    g_free(r->lv_console);
    r->lv_results = g_build_filename(r->tmp, "results.img", NULL);
    r->lv_console = g_build_filename(r->tmp, "console.log", NULL);
    unlink(r->lv_console);
    if (!g_spawn_sync(NULL, (char **)tar, NULL, G_SPAWN_SEARCH_PATH, NULL,
                      NULL, NULL, NULL, &st, errp) ||
        !g_spawn_check_wait_status(st, errp)) {
        g_prefix_error(errp, "cannot archive the job: ");
        return false;
    }
    fd = open(r->lv_results, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || ftruncate(fd, 256 << 20) < 0) {
        g_set_error(errp, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot create %s: "
                    "%s", r->lv_results, g_strerror(errno));
        if (fd >= 0) {
            close(fd);
        }
        return false;
    }
    close(fd);

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
    s->append = g_strdup_printf("console=ttyS0 panic=-1%s%s%s%s",
                                r->cfg.append ? " " : "",
                                r->cfg.append ? r->cfg.append : "",
                                r->o.guest_append ? " " : "",
                                r->o.guest_append ? r->o.guest_append : "");
    /* the database guest's root: uploaded, so a copy of the run's own */
    s->boot_disk = g_strdup(r->cfg.boot_disk);
    d = g_new0(NvmLvDisk, 1);
    d->file = g_strdup(jobtar);
    d->format = g_strdup("raw");
    d->serial = g_strdup("nvmimic-job");
    d->readonly = true;
    g_ptr_array_add(s->disks, d);
    d = g_new0(NvmLvDisk, 1);
    d->file = g_strdup(r->lv_results);
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
 * from the image's allocated blocks.  Adds to @argv at *@a; the strings
 * it makes go to @keep.
 */
static bool sql_disk_args(Run *r, const char **argv, unsigned *a,
                          GPtrArray *keep, GError **errp)
{
    const char *topo = r->o.sql_topology;
    const char *qemu_img = g_getenv("NVMIMIC_QEMU_IMG") ?
                           g_getenv("NVMIMIC_QEMU_IMG") : "qemu-img";
    char *ovl = g_build_filename(r->tmp, "db.qcow2", NULL);
    g_autofree char *size = g_strdup_printf("%" G_GUINT64_FORMAT,
                                            r->p->capacity_bytes);
    const char *mk[] = { qemu_img, "create", "-q", "-f", "qcow2", "-b",
                         r->sql_image, "-F", "raw", ovl, size, NULL };
    const char *wc = r->p->volatile_write_cache ? "on" : "off";
    g_autofree char *out = NULL;
    g_autoptr(GError) e = NULL;
    int st = 0;
    char *timing, *disk;

    g_ptr_array_add(keep, ovl);
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
    /* the device or filter named nvm0: QMP's id, as for the NVMe drive */
    timing = g_strdup_printf("profile=%s,profile-seed=%" G_GUINT64_FORMAT
                             ",profile-map-allocated=on", r->profile_path,
                             r->o.seed);
    g_ptr_array_add(keep, timing);
    disk = g_strdup_printf("driver=qcow2,node-name=%s,discard=unmap,"
                           "detect-zeroes=unmap,file.driver=file,"
                           "file.filename=%s",
                           strcmp(topo, "nvme") ? "dbdisk" : "nvmdisk", ovl);
    g_ptr_array_add(keep, disk);
    argv[(*a)++] = "-blockdev";
    argv[(*a)++] = disk;
    if (!strcmp(topo, "nvme")) {
        char *dev = g_strdup_printf("nvme,id=nvm0,drive=nvmdisk,%s", timing);

        g_ptr_array_add(keep, dev);
        argv[(*a)++] = "-device";
        argv[(*a)++] = dev;
        return true;
    }
    disk = g_strdup_printf("driver=nvmimic,node-name=nvm0,file=dbdisk,"
                           "discard=unmap,%s", timing);
    g_ptr_array_add(keep, disk);
    argv[(*a)++] = "-blockdev";
    argv[(*a)++] = disk;
    if (!strcmp(topo, "sas")) {
        /* the reviews' HBA: VMware's "LSI Logic SAS" is the SAS1068 */
        argv[(*a)++] = "-device";
        argv[(*a)++] = "mptsas1068,id=sas0";
        /* a SAS address (the disk's WWN): QEMU's mptsas reports the
         * WWN as the end device's address, and Linux's mptsas attaches
         * no device whose address is 0, scsi-hd's default */
        disk = g_strdup_printf("scsi-hd,bus=sas0.0,drive=nvm0,wwn=%s,"
                               "write-cache=%s", SQL_SAS_WWN, wc);
    } else {
        /* notified in the vCPU's MMIO write, as the NVMe doorbell: no
         * event loop turn between submission and the model's timer */
        disk = g_strdup_printf("virtio-blk-pci,drive=nvm0,serial=%s,"
                               "ioeventfd=off,write-cache=%s",
                               SQL_VIRTIO_SERIAL, wc);
    }
    g_ptr_array_add(keep, disk);
    argv[(*a)++] = "-device";
    argv[(*a)++] = disk;
    return true;
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
    if (r->o.connect) {
        return start_guest_lv(r, plan_text, errp);
    }
    g_autofree char *jobdir = make_jobdir(r, plan_text, errp);
    g_autofree char *runguest = g_build_filename(nvm_path_vm_images(),
                                                 "run-guest.sh", NULL);
    g_autofree char *ctl = g_build_filename(r->tmp, "agent.log", NULL);
    g_autofree char *qmp = g_build_filename(r->tmp, "qmp.sock", NULL);
    const char *gdir = r->gdir;
    g_autofree char *log = g_strdup_printf("%s.log", r->gdir);
    g_autofree char *backing = g_build_filename(r->tmp, "drive.raw", NULL);
    g_autofree char *smp = g_strdup_printf("%u", r->cfg.smp);
    g_autofree char *bootdrive = r->cfg.boot_disk ? g_strdup_printf(
        "file=%s,if=virtio,format=raw,snapshot=on", r->cfg.boot_disk) : NULL;
    g_autofree char *chardev = g_strdup_printf("file,id=nvmctl,path=%s",
                                               ctl);
    g_autofree char *seed = g_strdup_printf("%" G_GUINT64_FORMAT, r->o.seed);
    g_autofree char *append = r->cfg.append || r->o.guest_append ?
        g_strdup_printf("%s%s%s", r->cfg.append ? r->cfg.append : "",
                        r->cfg.append && r->o.guest_append ? " " : "",
                        r->o.guest_append ? r->o.guest_append : "") : NULL;
    g_autofree char *qmparg = g_strdup_printf("unix:%s,server=on,wait=off",
                                              qmp);
    g_autofree char *blockdev = r->cfg.backed ? g_strdup_printf(
        "driver=raw,node-name=nvmdisk,discard=unmap,detect-zeroes=unmap,"
        "file.driver=file,file.filename=%s",
        backing) : g_strdup_printf(
        "driver=null-co,node-name=nvmdisk,size=%" G_GUINT64_FORMAT
        ",read-zeroes=on", r->p->capacity_bytes);
    g_autofree char *device = g_strdup_printf(
        "nvme,id=nvm0,drive=nvmdisk,profile=%s,profile-seed=%" G_GUINT64_FORMAT,
        r->profile_path, r->o.seed);
    bool simtime = !strcmp(r->o.mode, "simtime");
    g_autofree char *shift = g_strdup_printf("%d", r->o.icount_shift);
    bool sqldb = r->cfg.suite == S_SQL && r->sql_image;
    g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
    const char *argv[52];
    unsigned a = 0;
    pid_t pid;

    if (!jobdir) {
        return false;
    }
    unlink(ctl);
    unlink(qmp);
    if (r->cfg.backed && !sqldb && !make_backing(r, backing, errp)) {
        return false;
    }
    argv[a++] = runguest;
    if (simtime) {
        argv[a++] = "--icount-shift";
        argv[a++] = shift;
        argv[a++] = "--fw-job";
    } else {
        argv[a++] = "--accel";
        argv[a++] = "auto";
    }
    argv[a++] = "--mem";
    argv[a++] = r->cfg.mem;
    argv[a++] = "--smp";
    argv[a++] = smp;
    if (append) {
        argv[a++] = "--append";
        argv[a++] = append;
    }
    argv[a++] = r->o.qemu;
    argv[a++] = r->cfg.guest_dir;
    argv[a++] = jobdir;
    argv[a++] = gdir;
    argv[a++] = "1000000";      /* nvmimic run polices each point itself */
    argv[a++] = "-chardev";
    argv[a++] = chardev;
    argv[a++] = "-serial";
    argv[a++] = "chardev:nvmctl";
    argv[a++] = "-S";
    argv[a++] = "-no-shutdown";
    /* the guest's random numbers (the kernel's seed from the boot loader) */
    argv[a++] = "-seed";
    argv[a++] = seed;
    argv[a++] = "-qmp";
    argv[a++] = qmparg;
    if (sqldb) {
        if (!sql_disk_args(r, argv, &a, keep, errp)) {
            return false;
        }
    } else {
        argv[a++] = "-blockdev";
        argv[a++] = blockdev;
        argv[a++] = "-device";
        argv[a++] = device;
    }
    if (bootdrive) {
        argv[a++] = "-drive";
        argv[a++] = bootdrive;
    }
    argv[a] = NULL;

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
        execv(runguest, (char **)argv);
        fprintf(stderr, "exec %s: %s\n", runguest, g_strerror(errno));
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
                        "QEMU did not start: %s", l ? g_strstrip(l) : why);
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

/* Let the guest that run_start_guest() left paused run. */
bool run_resume_guest(Run *r, GError **errp)
{
    g_autofree char *log = g_strdup_printf("%s.log", r->gdir);
    g_autofree char *accel = NULL;
    g_autofree char *ap = g_build_filename(r->gdir, "accel", NULL);
    bool simtime = !strcmp(r->o.mode, "simtime");
    JsonNode *n;

    if (r->lv) {
        return true;            /* libvirt runs it as soon as it starts */
    }
    n = nvm_qmp_exec(r->qmp, "cont", NULL, 10000, errp);
    if (!n) {
        g_prefix_error(errp, "starting the guest: ");
        return false;
    }
    json_node_unref(n);
    if (g_file_get_contents(ap, &accel, NULL, NULL)) {
        g_free(r->accel);
        r->accel = g_strdup(g_strstrip(accel));
    }
    if (!simtime && r->accel && strcmp(r->accel, "kvm")) {
        g_autofree char *l = NULL;
        char *line;

        g_file_get_contents(log, &l, NULL, NULL);
        line = l ? strstr(l, "KVM not usable") : NULL;
        if (line && strchr(line, '\n')) {
            *strchr(line, '\n') = 0;
        }
        fprintf(stderr, "nvmimic run: warning: %s; realtime mode runs TCG in "
                "real time (slow, host-limited)\n",
                line ? line : "KVM not usable");
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
