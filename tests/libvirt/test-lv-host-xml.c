/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The domain `run --connect` defines on a libvirt host that may be another
 * machine (harness/libvirt.c, no daemon needed): every local file it names
 * (kernel, initrd, profile, job and results disks) is replaced by its
 * storage volume's path on the host, both serial ports are ptys (read
 * through the connection), no local path is left, and the XML still
 * validates against libvirt's schema.
 */
#include <string.h>

#include <glib/gstdio.h>

#include "lv.h"

#ifndef NVMIMIC_PROFILE_DIR
#define NVMIMIC_PROFILE_DIR "profiles"
#endif

#define HOST_DIR "/var/lib/libvirt/nvmimic/nvmimic-run-1-0000abcd"

typedef struct Fixture {
    char *dir;
    NvmLvSpec *s;
} Fixture;

static char *touch(const char *dir, const char *name)
{
    char *p = g_build_filename(dir, name, NULL);

    g_assert_true(g_file_set_contents(p, "x", 1, NULL));
    return p;
}

static NvmLvDisk *disk(char *file, const char *serial, bool ro)
{
    NvmLvDisk *d = g_new0(NvmLvDisk, 1);

    d->file = file;
    d->format = g_strdup("raw");
    d->serial = g_strdup(serial);
    d->readonly = ro;
    return d;
}

/* The spec start_guest_lv() makes (harness/run.c), on files in a tmp dir. */
static void setup(Fixture *f, gconstpointer profile)
{
    g_autoptr(GError) err = NULL;
    NvmLvSpec *s = nvm_lv_spec_new();

    f->dir = g_dir_make_tmp("nvmimic-lvxml-XXXXXX", &err);
    g_assert_no_error(err);
    s->name = g_strdup("nvmimic-run-1-0000abcd");
    g_free(s->qemu);
    s->qemu = g_strdup("/opt/nvmimic/build/qemu/qemu-system-x86_64");
    s->remote_emulator = true;
    s->icount = true;
    s->profile = g_strdup(profile);
    s->profile_dir = g_strdup(NVMIMIC_PROFILE_DIR);
    s->null_bytes = 1ULL << 30;
    s->memory_mib = 1024;
    s->kernel = touch(f->dir, "vmlinuz");
    s->initrd = touch(f->dir, "initramfs.cpio.gz");
    s->append = g_strdup("console=ttyS0 panic=-1");
    g_ptr_array_add(s->disks, disk(touch(f->dir, "job.tar"), "nvmimic-job",
                                   true));
    g_ptr_array_add(s->disks, disk(touch(f->dir, "results.img"),
                                   "nvmimic-results", false));
    s->serial_log = g_build_filename(f->dir, "console.log", NULL);
    s->ctl_serial = true;
    s->upload = true;
    g_assert_true(nvm_lv_spec_check(s, &err));
    g_assert_no_error(err);
    f->s = s;
}

static void teardown(Fixture *f, G_GNUC_UNUSED gconstpointer unused)
{
    const char *names[] = { "vmlinuz", "initramfs.cpio.gz", "job.tar",
                            "results.img", NULL };

    for (const char **n = names; *n; n++) {
        g_autofree char *p = g_build_filename(f->dir, *n, NULL);

        g_unlink(p);
    }
    g_rmdir(f->dir);
    g_free(f->dir);
    nvm_lv_spec_free(f->s);
}

/* local path -> HOST_DIR/basename, as a run's own pool names them */
static GHashTable *host_paths(GPtrArray *files, const char *leave_out)
{
    GHashTable *h = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                          g_free);

    for (unsigned i = 0; i < files->len; i++) {
        const char *f = g_ptr_array_index(files, i);
        g_autofree char *base = g_path_get_basename(f);

        if (!leave_out || strcmp(base, leave_out)) {
            g_hash_table_insert(h, g_strdup(f),
                                g_build_filename(HOST_DIR, base, NULL));
        }
    }
    return h;
}

static unsigned count(const char *hay, const char *needle)
{
    unsigned n = 0;

    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) {
        n++;
    }
    return n;
}

static void host_xml_names_volumes_and_pty_serials(Fixture *f,
                                                   gconstpointer unused)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(GPtrArray) files = nvm_lv_spec_local_files(f->s);
    g_autoptr(GHashTable) paths = host_paths(files, NULL);
    g_autoptr(NvmLvSpec) h = nvm_lv_spec_for_host(f->s, paths, &err);
    g_autofree char *xml = NULL;
    g_autofree char *prof = g_strdup_printf(",profile=%s/crucial-p5-2tb.ini",
                                            HOST_DIR);
    const char *vols[] = { "vmlinuz", "initramfs.cpio.gz", "job.tar",
                           "results.img", NULL };
    g_autofree char *vf = NULL;
    g_autofree char *validate = g_find_program_in_path("virt-xml-validate");
    char *argv[] = { (char *)"virt-xml-validate", NULL, (char *)"domain",
                     NULL };
    int st = -1;

    (void)unused;
    g_assert_no_error(err);
    g_assert_nonnull(h);
    /* kernel, initrd, the profile file, two disks */
    g_assert_cmpuint(files->len, ==, 5);
    xml = nvm_lv_domain_xml(h);

    for (const char **v = vols; *v; v++) {
        g_autofree char *want = g_strdup_printf("%s/%s<", HOST_DIR, *v);
        g_autofree char *want_src = g_strdup_printf("'%s/%s'", HOST_DIR, *v);

        g_assert_true(strstr(xml, want) || strstr(xml, want_src));
    }
    g_assert_nonnull(strstr(xml, prof));
    /* nothing of this machine's file system is left */
    g_assert_null(strstr(xml, f->dir));
    g_assert_null(strstr(xml, NVMIMIC_PROFILE_DIR));
    g_assert_null(strstr(xml, "NVMIMIC_PROFILE_DIR"));
    /* serial0 (console) and serial1 (control channel): ptys, no file, no
     * socket on the host */
    g_assert_cmpuint(count(xml, "<serial type='pty'>"), ==, 2);
    g_assert_cmpuint(count(xml, "<serial "), ==, 2);
    g_assert_nonnull(strstr(xml, "<target port='0'/>"));
    g_assert_nonnull(strstr(xml, "<target port='1'/>"));
    g_assert_null(strstr(xml, "type='unix'"));
    g_assert_null(strstr(xml, "console.log"));
    /* the local spec is untouched: its log is still captured here */
    g_assert_nonnull(strstr(f->s->serial_log, f->dir));

    if (!validate) {
        g_test_skip("virt-xml-validate not installed (libvirt-clients)");
        return;
    }
    vf = g_build_filename(f->dir, "domain.xml", NULL);
    g_assert_true(g_file_set_contents(vf, xml, -1, NULL));
    argv[1] = vf;
    g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH |
                               G_SPAWN_STDOUT_TO_DEV_NULL |
                               G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL,
                               NULL, &st, NULL));
    g_unlink(vf);
    g_assert_cmpint(st, ==, 0);
}

static void host_spec_refuses_a_file_without_host_copy(Fixture *f,
                                                       gconstpointer unused)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(GPtrArray) files = nvm_lv_spec_local_files(f->s);
    g_autoptr(GHashTable) paths = host_paths(files, "results.img");
    NvmLvSpec *h = nvm_lv_spec_for_host(f->s, paths, &err);

    (void)unused;
    g_assert_null(h);
    g_assert_nonnull(err);
    g_assert_nonnull(strstr(err->message, "results.img"));
    g_assert_nonnull(strstr(err->message, "no copy on the libvirt host"));
}

int main(int argc, char **argv)
{
    g_autofree char *path = g_build_filename(NVMIMIC_PROFILE_DIR,
                                             "crucial-p5-2tb.ini", NULL);

    g_test_init(&argc, &argv, NULL);
    /* a profile given by path (as run passes it) and by name: both go to
     * the host as the file itself */
    g_test_add("/libvirt/host-xml/profile-path/volumes-and-pty-serials",
               Fixture, path, setup, host_xml_names_volumes_and_pty_serials,
               teardown);
    g_test_add("/libvirt/host-xml/profile-name/volumes-and-pty-serials",
               Fixture, "crucial-p5-2tb", setup,
               host_xml_names_volumes_and_pty_serials, teardown);
    g_test_add("/libvirt/host-xml/refuses-a-file-without-host-copy", Fixture,
               path, setup, host_spec_refuses_a_file_without_host_copy,
               teardown);
    return g_test_run();
}
