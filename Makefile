# revoke-bpf: revoke(2) for an unpatched Linux kernel, with BPF LSM.
#
#   make            build everything into build/
#   make check      host tests, then the VM suite (boots a Debian kernel)
#   make demo       watch a reader being cut off, in the VM
#   make bench      the hooks' and the pipeline's cost, in the VM, and
#                   librevoke's, on the host (bench/)
#   make sanitize   librevoke's tests under ASan+UBSan and under TSan
#   make install    PREFIX=/usr/local DESTDIR=
#   make deb        the Debian packages revoke-bpf and librevoke-dev, in
#                   build/deb/, checked by lintian (debian/)
#   make daemon cli lib   only what is installed (a package build)
#   make vmlinux    regenerate vmlinux.h from this machine's kernel BTF
#
# Quiet unless V=1.

VERSION  := 0.1.0
BUILD    := build
PREFIX   ?= /usr/local
SBINDIR  ?= $(PREFIX)/sbin
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
DATADIR  ?= $(PREFIX)/share/revoke-bpf
# systemd reads units from /usr/local/lib/systemd/system and
# /usr/lib/systemd/system, and Debian 12's udev (252) rules from
# /usr/local/lib/udev/rules.d and /usr/lib/udev/rules.d: both defaults work
# for PREFIX=/usr/local and /usr (systemd-analyze unit-paths; udev(7)).
# /etc/udev/rules.d is the administrator's, to override a rule.  Another
# PREFIX needs UNITDIR and UDEVRULESDIR in one of those.  Debian 12's
# debhelper looks for units in /lib/systemd/system (debian/rules).
UNITDIR  ?= $(PREFIX)/lib/systemd/system
LIBDIR   ?= $(PREFIX)/lib
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
SYSCONFDIR   ?= /etc
INCLUDEDIR ?= $(PREFIX)/include

CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= bpftool
ARCH     := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

# CPPFLAGS, CFLAGS and LDFLAGS are the caller's (from the environment or
# the command line: dpkg-buildflags' hardening flags in a package build).
# Every compile gets CPPFLAGS and CFLAGS, every link LDFLAGS too, in
# ALL_CFLAGS between the project's own flags, so that the include paths
# come first and -std and -Werror always hold.  The BPF objects are built
# for another target, and get BPF_CFLAGS only.
CFLAGS   ?= -O2 -g
# No absolute build path in any object, the BPF ones (embedded in the
# daemon by the skeletons) included: builds are reproducible from any
# folder, and a package shows no builder's path.
PREFIX_MAP := -ffile-prefix-map=$(CURDIR)=.
ALL_CFLAGS = -D_GNU_SOURCE -Iinclude -Isrc -I$(BUILD) -DREVOKE_VERSION='"$(VERSION)"' \
	     $(CPPFLAGS) $(CFLAGS) -std=gnu11 -Wall -Wextra -Werror -MMD -MP $(PREFIX_MAP)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror \
	      -I. -Iinclude $(PREFIX_MAP)
LDLIBS   := -lbpf -lelf -lz -lpthread

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# One folder per layer under src/, each built into an archive; a binary
# links its own folder's main and the archives below it:
#
#   revoke-bpf   cli/     -> common/
#   revoke-bpfd  daemon/  -> pipeline/ -> inject/, umount/, store/ -> common/
#                                      -> lib/
#
# inject/ stops a process with ptrace and runs system calls in it;
# umount/ finds and releases what pins a filesystem; store/ owns the BPF
# maps.  None of the three uses another; the pipeline uses each, and the
# daemon's umount verb umount/ too.
ARCH_SRC    := arch_$(shell uname -m)
LAYERS      := common store inject umount pipeline daemon cli
SRCS_common   := $(wildcard src/common/*.c)
SRCS_store    := $(wildcard src/store/*.c)
SRCS_inject   := $(filter-out src/inject/arch_%.c,$(wildcard src/inject/*.c)) src/inject/$(ARCH_SRC).c
SRCS_umount   := $(wildcard src/umount/*.c)
SRCS_pipeline := $(wildcard src/pipeline/*.c)
SRCS_daemon   := $(filter-out src/daemon/daemon.c,$(wildcard src/daemon/*.c))
SRCS_cli      := $(filter-out src/cli/cli.c,$(wildcard src/cli/*.c))
objs         = $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS_$(1)))
archive      = $(BUILD)/obj/lib$(1).a
# what each layer's code needs below it, in link order
LINK_common   := $(call archive,common)
LINK_store    := $(call archive,store) $(LINK_common)
LINK_inject   := $(call archive,inject) $(LINK_common)
LINK_umount   := $(call archive,umount) $(LINK_common)
LINK_pipeline := $(call archive,pipeline) $(call archive,inject) $(call archive,umount) \
		 $(LINK_store) $(BUILD)/librevoke.a
LINK_daemon   := $(call archive,daemon) $(LINK_pipeline)
LINK_cli      := $(call archive,cli) $(LINK_common)
UNIT_TESTS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/*/test_*.c))
# the helpers' second files, linked into the helper they are part of
HELPER_PARTS := tests/helpers/devclient_media.c
HELPERS     := $(patsubst tests/helpers/%.c,$(BUILD)/tests/%,$(filter-out %32.c $(HELPER_PARTS),$(wildcard tests/helpers/*.c)))
# 32-bit helpers (tests/helpers/*32.c), if $(CC) can build a static i386
# program (gcc-multilib): they go through the kernel's compat entries
CC_M32 := $(shell printf 'int main(void){return 0;}' | \
	    $(CC) -m32 -static -x c - -o /dev/null 2>/dev/null && echo yes)
HELPERS32   := $(if $(CC_M32),$(patsubst tests/helpers/%.c,$(BUILD)/tests/%,$(wildcard tests/helpers/*32.c)))
# BPF test helpers: an object standing for another build, its loader, and
# the revoked set as a build before revoke_table pinned it
BPF_HELPERS := $(BUILD)/tests/old_file_open.bpf.o $(BUILD)/tests/pin_prog \
	       $(BUILD)/tests/pin_legacy_set $(BUILD)/tests/pin_counter

BENCH       := $(BUILD)/bench/hookbench $(BUILD)/bench/swarm $(BUILD)/bench/libbench \
	       $(BUILD)/bench/discover $(BUILD)/bench/pipebench
# librevoke: include/revoke.h, src/lib/*.c; static, shared, pkg-config
LIB_SRCS    := $(wildcard src/lib/*.c)
LIB_SONAME  := librevoke.so.0
LIB_TESTS   := $(BUILD)/tests/test_librevoke $(BUILD)/tests/race_librevoke \
	       $(BUILD)/examples/revoke_example
LIB         := $(BUILD)/librevoke.a $(BUILD)/$(LIB_SONAME)

all: $(BUILD)/revoke-bpfd $(BUILD)/revoke-bpf $(UNIT_TESTS) $(HELPERS) $(HELPERS32) $(BPF_HELPERS) \
	$(BENCH) $(LIB) $(LIB_TESTS)

# what make install installs, and nothing else (a package build's make)
daemon: $(BUILD)/revoke-bpfd
cli: $(BUILD)/revoke-bpf
lib: $(LIB)

$(BUILD) $(BUILD)/tests $(BUILD)/bench $(BUILD)/lib $(BUILD)/examples:
	$(Q)mkdir -p $@

# BPF object, then its skeleton: one pattern rule each.
$(BUILD)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.bpf.h) include/revoke_bpf.h vmlinux.h | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf_skel > $@.tmp && mv $@.tmp $@

$(BUILD)/bench/%.bpf.o: bench/%.bpf.c vmlinux.h | $(BUILD)/bench
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/obj/store/store.o $(BUILD)/obj/store/armed.o $(BUILD)/obj/store/attach.o \
	$(BUILD)/obj/store/progs.o: $(BUILD)/revoke.skel.h
$(BUILD)/obj/pipeline/holders.o $(BUILD)/obj/pipeline/holders_fs.o \
$(BUILD)/obj/pipeline/holders_load.o \
$(BUILD)/obj/pipeline/pipeline_file.o: $(BUILD)/holders.skel.h

$(BUILD)/obj/%.o: src/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(foreach l,$(LAYERS),$(eval $(call archive,$(l)): $(call objs,$(l))))
$(BUILD)/obj/lib%.a:
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# the daemon's pipeline is built on librevoke (fops_substitute)
$(BUILD)/revoke-bpfd: $(BUILD)/obj/daemon/daemon.o $(LINK_daemon)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The command is linked statically: it is run by udev for every removed
# device and by scripts in loops, and its start-up is most of what it
# costs.  In the TCG guest, "revoke-bpf status" took 40-78 ms linked
# dynamically and 18-23 ms static-pie; "--version" takes 20-26 ms
# static-pie (which relocates itself at start-up) and 8-9 ms static, as
# long as a fork and exec of busybox true.  It is
# not set-uid and reads only its arguments and the daemon's replies, so
# it gives up ASLR of its own code for that.  CLI_LDFLAGS= links it
# dynamically.
CLI_LDFLAGS ?= -static -no-pie
$(BUILD)/revoke-bpf: $(BUILD)/obj/cli/cli.o $(LINK_cli)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $(CLI_LDFLAGS) $^ -o $@

# Each unit test (tests/unit/LAYER/) links its own layer and those below.
define unit_test
$(BUILD)/tests/$(1)/%: tests/unit/$(1)/%.c tests/unit/tap.h tests/unit/maps.h $(LINK_$(1))
	$$(call msg,CC,$$@)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$(CC) $$(ALL_CFLAGS) -Itests/unit $$(LDFLAGS) $$< $(LINK_$(1)) $$(LDLIBS) -o $$@
endef
$(foreach l,common store inject umount pipeline daemon,$(eval $(call unit_test,$(l))))

# The unit tests that need neither root (the others make BPF maps) nor
# this machine's kernel (test_features reads its BTF), and librevoke's:
# what a package build runs (debian/rules), in a second or less.
UNIT_NOROOT := $(addprefix $(BUILD)/tests/,common/test_ctl_proto common/test_key common/test_target \
	       daemon/test_ctl_loop daemon/test_lsm_check daemon/test_policy daemon/test_seat \
	       daemon/test_uevent_netlink \
	       pipeline/test_pause_users pipeline/test_report umount/test_fs_pins \
	       test_librevoke)
check-unit: $(UNIT_NOROOT)
	$(Q)for t in $^; do echo "# $$t"; $$t || exit 1; done

$(BUILD)/tests/%.bpf.o: tests/bpf/%.bpf.c vmlinux.h | $(BUILD)/tests
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/tests/pin_prog: tests/bpf/pin_prog.c | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $< $(LDLIBS) -o $@

$(BUILD)/tests/pin_counter: tests/bpf/pin_counter.c | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $< $(LDLIBS) -o $@

$(BUILD)/tests/pin_legacy_set: tests/bpf/pin_legacy_set.c $(call archive,store) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/helpers/%.c | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $< $(HELPER_LIBS_$*) -o $@

$(BUILD)/tests/%32: tests/helpers/%32.c | $(BUILD)/tests
	$(call msg,CC-M32,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -m32 $(LDFLAGS) -static $< -o $@

# probe tries io_uring (liburing) and POSIX AIO
HELPER_LIBS_probe := -luring -lrt
# uring keeps a file through io_uring only (liburing)
HELPER_LIBS_uring := -luring
# fdcopies reads one description through io_uring too (liburing)
HELPER_LIBS_fdcopies := -luring
# pinreset resets a pin directory's maps, mapbytes fills and reads one (libbpf)
HELPER_LIBS_pinreset = $(LDLIBS)
HELPER_LIBS_mapbytes = $(LDLIBS)
# fs_pins_probe drives src/umount/umount.h (what pins a filesystem)
HELPER_LIBS_fs_pins_probe := $(LINK_umount)
$(BUILD)/tests/fs_pins_probe: $(LINK_umount)
# devclient's ALSA and V4L2 modes are in a file of their own
HELPER_LIBS_devclient := tests/helpers/devclient_media.c
$(BUILD)/tests/devclient: tests/helpers/devclient_media.c tests/helpers/devclient.h
# fusefile is a FUSE server (libfuse 3); read when it is built, never
# when the Makefile is parsed (see "deps" below)
HELPER_LIBS_fusefile = $(shell pkg-config --cflags --libs fuse3)

# librevoke, position-independent for the shared build.
LIB_CFLAGS = $(ALL_CFLAGS) -fPIC -fvisibility=default -Wno-unused-parameter

$(BUILD)/lib/%.o: src/lib/%.c include/revoke.h src/lib/internal.h | $(BUILD)/lib
	$(call msg,CC,$@)
	$(Q)$(CC) $(LIB_CFLAGS) -c $< -o $@

$(BUILD)/librevoke.a: $(LIB_SRCS:src/lib/%.c=$(BUILD)/lib/%.o)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/$(LIB_SONAME): $(LIB_SRCS:src/lib/%.c=$(BUILD)/lib/%.o)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LIB_CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(LIB_SONAME) $^ -lpthread -o $@
	$(Q)ln -sf $(LIB_SONAME) $(BUILD)/librevoke.so

$(BUILD)/tests/%_librevoke: tests/lib/%_librevoke.c $(BUILD)/librevoke.a | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-unused-parameter $(LDFLAGS) $< $(BUILD)/librevoke.a -lpthread -o $@

# The example in librevoke(3), built against the installed-style header.
$(BUILD)/examples/revoke_example: examples/revoke_example.c $(BUILD)/librevoke.a | $(BUILD)/examples
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-unused-parameter $(LDFLAGS) $< $(BUILD)/librevoke.a -lpthread -o $@

# The library's tests again, under ASan+UBSan and under TSan (clang), with
# flags of their own: a caller's -D_FORTIFY_SOURCE would hide accesses
# from ASan (and the fuzzers below likewise).
SAN_SRCS := $(LIB_SRCS) -Iinclude -Isrc/lib -lpthread
$(BUILD)/san/%_asan: tests/lib/%_librevoke.c $(LIB_SRCS) src/lib/internal.h include/revoke.h
	$(Q)mkdir -p $(@D)
	$(call msg,ASAN,$@)
	$(Q)$(CLANG) -g -O1 -D_GNU_SOURCE -fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer $< $(SAN_SRCS) -o $@
$(BUILD)/san/%_tsan: tests/lib/%_librevoke.c $(LIB_SRCS) src/lib/internal.h include/revoke.h
	$(Q)mkdir -p $(@D)
	$(call msg,TSAN,$@)
	$(Q)$(CLANG) -g -O1 -D_GNU_SOURCE -fsanitize=thread $< $(SAN_SRCS) -o $@

SAN_BINS := $(foreach t,test race,$(BUILD)/san/$(t)_asan $(BUILD)/san/$(t)_tsan)
sanitize: $(SAN_BINS)
	$(Q)tests/lib/sanitize.sh $(SAN_BINS)

# The lock/substitute/release protocol, model-checked with spin.
spin:
	$(Q)tests/lib/spin.sh

# Benchmarks (make bench): the hooks' cost, and the pipeline's.
$(BUILD)/bench/hookbench: bench/hookbench.c $(LINK_store) \
		$(BUILD)/revoke.skel.h $(BUILD)/bench/empty_hook.skel.h | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -I$(BUILD)/bench $(LDFLAGS) $(filter %.c %.a,$^) $(LDLIBS) -o $@

$(BUILD)/bench/swarm: bench/swarm.c | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $< -o $@

# holder discovery alone, on the host: the iterators need no BPF LSM
$(BUILD)/bench/discover: bench/discover.c $(LINK_pipeline) | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $(filter %.c %.a,$^) $(LDLIBS) -o $@

# the pipeline with mappings to replace, on the host, with the maps made
# as the unit tests make them
$(BUILD)/bench/pipebench: bench/pipebench.c tests/unit/maps.h $(LINK_pipeline) | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) $(filter %.c %.o %.a,$^) $(LDLIBS) -o $@

# librevoke against a bare call, a rwlock and liburcu, on the host
$(BUILD)/bench/libbench: bench/libbench.c $(BUILD)/librevoke.a | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $^ -lurcu-memb -lpthread -o $@

install: $(BUILD)/revoke-bpfd $(BUILD)/revoke-bpf $(LIB)
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)install -D -m 0755 $(BUILD)/revoke-bpfd $(DESTDIR)$(SBINDIR)/revoke-bpfd
	$(Q)install -D -m 0755 $(BUILD)/revoke-bpf $(DESTDIR)$(BINDIR)/revoke-bpf
	$(Q)install -D -m 0644 man/revoke-bpf.8 $(DESTDIR)$(MANDIR)/man8/revoke-bpf.8
	$(Q)install -D -m 0644 man/revoke-bpfd.8 $(DESTDIR)$(MANDIR)/man8/revoke-bpfd.8
	$(Q)install -D -m 0644 man/policy.conf.5 $(DESTDIR)$(MANDIR)/man5/policy.conf.5
	$(Q)install -D -m 0644 man/revoked.d.5 $(DESTDIR)$(MANDIR)/man5/revoked.d.5
	$(Q)install -D -m 0644 dist/revoke-bpf.bash $(DESTDIR)$(COMPLETIONDIR)/revoke-bpf
	$(Q)install -D -m 0644 doc/revoke-bpf.schema.json \
		$(DESTDIR)$(DATADIR)/revoke-bpf.schema.json
	$(Q)install -d $(DESTDIR)$(UNITDIR)
	$(Q)sed 's|@SBINDIR@|$(SBINDIR)|;s|@BINDIR@|$(BINDIR)|' dist/revoke-bpfd.service \
		> $(DESTDIR)$(UNITDIR)/revoke-bpfd.service
	$(Q)sed 's|@BINDIR@|$(BINDIR)|' dist/revoke-bpf-metrics.service \
		> $(DESTDIR)$(UNITDIR)/revoke-bpf-metrics.service
	$(Q)install -m 0644 dist/revoke-bpf-metrics.timer $(DESTDIR)$(UNITDIR)/revoke-bpf-metrics.timer
	$(Q)install -D -m 0644 $(BUILD)/librevoke.a $(DESTDIR)$(LIBDIR)/librevoke.a
	$(Q)install -D -m 0755 $(BUILD)/$(LIB_SONAME) $(DESTDIR)$(LIBDIR)/$(LIB_SONAME)
	$(Q)ln -sf $(LIB_SONAME) $(DESTDIR)$(LIBDIR)/librevoke.so
	$(Q)install -D -m 0644 include/revoke.h $(DESTDIR)$(INCLUDEDIR)/revoke.h
	$(Q)install -d $(DESTDIR)$(LIBDIR)/pkgconfig
	$(Q)sed 's|@PREFIX@|$(PREFIX)|;s|@LIBDIR@|$(LIBDIR)|;s|@INCLUDEDIR@|$(INCLUDEDIR)|;s|@VERSION@|$(VERSION)|' \
		dist/librevoke.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/librevoke.pc
	$(Q)install -D -m 0644 man/librevoke.3 $(DESTDIR)$(MANDIR)/man3/librevoke.3
	$(Q)install -d $(DESTDIR)$(UDEVRULESDIR)
	$(Q)sed 's|@BINDIR@|$(BINDIR)|' dist/60-revoke-bpf.rules.in \
		> $(DESTDIR)$(UDEVRULESDIR)/60-revoke-bpf.rules
	$(Q)[ -e $(DESTDIR)$(SYSCONFDIR)/revoke-bpf/policy.conf ] || \
		install -D -m 0644 dist/policy.conf $(DESTDIR)$(SYSCONFDIR)/revoke-bpf/policy.conf
	$(Q)[ -e $(DESTDIR)$(SYSCONFDIR)/default/revoke-bpfd ] || \
		install -D -m 0644 dist/revoke-bpfd.default $(DESTDIR)$(SYSCONFDIR)/default/revoke-bpfd

# make deb: the packages revoke-bpf and librevoke-dev (debian/), built by
# dpkg-buildpackage in a copy of the sources, build/deb/revoke-bpf-VERSION,
# so that its make, with dpkg-buildflags' hardening, never reuses this
# tree's build/ (nor this one its objects); then lintian, which fails on
# any error or warning.  The sources: the files git tracks, or would add
# (untracked, not ignored), or outside git every file but build/ and .git.
# Nothing is rebuilt while the packages are newer than all of them.  The
# caller's make and compiler variables stay out of the package build.  The
# packages are for amd64 only (debian/control says why).
DEB_DIR     := $(BUILD)/deb
DEB_TREE    := $(DEB_DIR)/revoke-bpf-$(VERSION)
DEB_CHANGES := $(DEB_DIR)/revoke-bpf_$(VERSION)_amd64.changes
DEBS        := $(DEB_DIR)/revoke-bpf_$(VERSION)_amd64.deb \
	       $(DEB_DIR)/librevoke-dev_$(VERSION)_amd64.deb
DEB_LIST     = $(if $(and $(wildcard .git),$(shell command -v git)), \
		 git ls-files --cached --others --exclude-standard, \
		 find . -path ./$(BUILD) -prune -o -path ./.git -prune -o -type f -print)
ifneq ($(filter deb $(DEBS) $(DEB_CHANGES),$(MAKECMDGOALS)),)
DEB_SRCS := $(wildcard $(shell $(DEB_LIST)))
endif

deb: $(DEB_CHANGES)

$(DEB_CHANGES) $(DEBS) &: $(DEB_SRCS)
	$(call msg,DEB,$(DEB_DIR) (log: $(DEB_DIR)/build.log))
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_TREE)
	$(Q)$(DEB_LIST) | tar -cf - -T - | tar -xf - -C $(DEB_TREE)
	$(Q)cd $(DEB_TREE) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		-u CC -u CFLAGS -u CPPFLAGS -u LDFLAGS -u V \
		dpkg-buildpackage -us -uc -b -Jauto >../build.log 2>&1 || \
		{ tail -n 40 ../build.log; echo "make deb: dpkg-buildpackage failed; its log: $(DEB_DIR)/build.log" >&2; exit 1; }
	$(call msg,LINTIAN,$(DEB_CHANGES))
	$(Q)lintian --fail-on error,warning $(DEB_CHANGES) || \
		{ rm -f $(DEB_CHANGES); echo "make deb: lintian failed" >&2; exit 1; }

# libFuzzer under ASan and UBSan, one target per parser (tests/fuzz/*.c),
# each for FUZZ_SECONDS from its seeds in tests/fuzz/corpus/TARGET.
FUZZ_SECONDS ?= 30
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	      -D_GNU_SOURCE -Iinclude -Isrc
FUZZ_SRCS := $(SRCS_common) src/daemon/policy.c src/daemon/uevent_netlink.c
FUZZERS := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/%,$(wildcard tests/fuzz/fuzz_*.c))

$(BUILD)/tests/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SRCS) | $(BUILD)/tests
	$(call msg,FUZZ-CC,$@)
	$(Q)$(CLANG) $(FUZZ_FLAGS) $^ -o $@

fuzz: $(FUZZERS)
	$(Q)tests/fuzz/run $(FUZZ_SECONDS) $(FUZZERS)

# The commands below install what they need first (tests/deps.sh), then
# build in a second make: this one was parsed before the packages were
# there, so what it read from pkg-config and the compiler (fuse3, -m32) may
# be wrong on a fresh machine.  DEPS, CHECK and VM_RUN are the commands
# they run (tests/host/fresh.bats replaces them).
DEPS   = tests/deps.sh
CHECK  = tests/check.sh
VM_RUN = tests/vm/run
SUBMAKE = $(MAKE) --no-print-directory

deps:
	$(Q)$(DEPS)

check: deps
	$(Q)$(SUBMAKE) all
	$(Q)$(CHECK)

bench: deps
	$(Q)$(DEPS) bench
	$(Q)$(SUBMAKE) all
	$(Q)bench/run

# the instruction-counted hook rows alone (bench/results-icount.md)
bench-icount: deps
	$(Q)$(DEPS) bench
	$(Q)$(SUBMAKE) all
	$(Q)bench/run --icount-only

# the demo needs the daemon and the command, nothing of the tests
demo: deps
	$(Q)$(SUBMAKE) $(BUILD)/revoke-bpfd $(BUILD)/revoke-bpf $(LIB)
	$(Q)$(VM_RUN) --no-tests --file $(CURDIR)/tests/demo.sh -- $(CURDIR)/tests/demo.sh

# tests/vm/faults.bats at full size (make check runs it small): 1,000
# linearizability trials, kill -9 of the daemon 20 times among 1,000 holders.
faults: deps
	$(Q)$(SUBMAKE) all
	$(Q)$(VM_RUN) --timeout 7200 --file $(CURDIR)/build/bench/swarm -- \
		env LINEARIZE_TRIALS=1000 FAULT_HOLDERS=1000 FAULT_KILLS=20 \
		bats --tap $(CURDIR)/tests/vm/faults.bats

vmlinux:
	$(call msg,GEN,vmlinux.h)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > vmlinux.h.tmp
	$(Q)mv vmlinux.h.tmp vmlinux.h

clean:
	$(call msg,CLEAN,$(BUILD))
	$(Q)rm -rf $(BUILD)

.PHONY: all daemon cli lib check-unit deb install deps check demo bench bench-icount faults sanitize spin fuzz vmlinux clean
.DELETE_ON_ERROR:
.SECONDARY: $(BUILD)/revoke.bpf.o $(BUILD)/holders.bpf.o $(BUILD)/bench/empty_hook.bpf.o

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/tests/*.d $(BUILD)/tests/*/*.d $(BUILD)/bench/*.d $(BUILD)/lib/*.d)
