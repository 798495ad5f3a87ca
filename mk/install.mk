# Installation: `make install PREFIX=/usr/local DESTDIR=/tmp/stage`, and
# `make uninstall` with the same variables. Layout:
#   BINDIR/osprof                 the command
#   LIBDIR/libosprof.so.SOVERSION  the core (soname), .so link, libosprof.a
#   PREFIX/lib/osprof/            the libraries osprof preloads into other
#                                 programs; found relative to the binary
#                                 (collect/helper_path.h), so this one is fixed
#   INCLUDEDIR/osprof/*.h, LIBDIR/pkgconfig/osprof.pc, man pages, completions
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
HELPERDIR := $(PREFIX)/lib/osprof
INSTALL ?= install

VERSION := $(shell sed -n 's/^\#define OSPROF_VERSION "\(.*\)"/\1/p' include/osprof/osprof.h)
SOVERSION := 0
SONAME := libosprof.so.$(SOVERSION)

# The shared core carries its soname, so programs linked with -losprof ask
# for libosprof.so.0 (installed with a libosprof.so.0 -> .so.VERSION link).
$(SHARED_LIB): LDFLAGS += -Wl,-soname,$(SONAME)

# Man pages from the --help text (scripts/gen-man.sh; one page per command of
# cli/commands.def) and the pkg-config file.
MAN_DIR := $(BUILD)/man
MAN_STAMP := $(MAN_DIR)/.stamp
PC_FILE := $(BUILD)/osprof.pc

.PHONY: man install install-files uninstall
# What install copies (debian/rules builds these first, then installs).
INSTALL_FILES := $(OSPROF) $(SHARED_LIB) $(STATIC_LIB) $(PRELOAD) $(BUILD)/libosprof-darc-agent.so \
	$(MAN_STAMP)
install-files: $(INSTALL_FILES)
man: $(MAN_STAMP)
all: $(MAN_STAMP) $(PC_FILE)

$(MAN_STAMP): $(OSPROF) scripts/gen-man.sh dist/md2man.awk docs/file-format.md cli/commands.def
	scripts/gen-man.sh $(OSPROF) $(MAN_DIR)
	touch $@

$(PC_FILE): dist/osprof.pc.in include/osprof/osprof.h mk/install.mk
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@.tmp
	mv $@.tmp $@

# The pkg-config file depends on PREFIX/LIBDIR: always regenerated at install.
install: $(INSTALL_FILES)
	rm -f $(PC_FILE) && $(MAKE) --no-print-directory $(PC_FILE)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(HELPERDIR) \
		$(DESTDIR)$(INCLUDEDIR)/osprof $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	$(INSTALL) -m 755 $(OSPROF) $(DESTDIR)$(BINDIR)/osprof
	$(INSTALL) -m 644 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/libosprof.so.$(VERSION)
	ln -sf libosprof.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libosprof.so
	$(INSTALL) -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/libosprof.a
	$(INSTALL) -m 644 $(PRELOAD) $(BUILD)/libosprof-darc-agent.so $(DESTDIR)$(HELPERDIR)/
	$(INSTALL) -m 644 include/osprof/*.h $(DESTDIR)$(INCLUDEDIR)/osprof/
	$(INSTALL) -m 644 $(PC_FILE) $(DESTDIR)$(LIBDIR)/pkgconfig/osprof.pc
	$(INSTALL) -m 644 $(MAN_DIR)/*.1 $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(MAN_DIR)/*.5 $(DESTDIR)$(MANDIR)/man5/
	$(INSTALL) -m 644 dist/completion/osprof.bash $(DESTDIR)$(BASHCOMPDIR)/osprof
	$(INSTALL) -m 644 dist/completion/_osprof $(DESTDIR)$(ZSHCOMPDIR)/_osprof
	@# Into the live system: refresh the loader's cache so that programs
	@# linked with -losprof find libosprof.so.0 in LIBDIR at run time.
	@if [ -z "$(DESTDIR)" ] && command -v ldconfig >/dev/null; then ldconfig || true; fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/osprof $(DESTDIR)$(LIBDIR)/libosprof.so* \
		$(DESTDIR)$(LIBDIR)/libosprof.a $(DESTDIR)$(LIBDIR)/pkgconfig/osprof.pc \
		$(DESTDIR)$(BASHCOMPDIR)/osprof $(DESTDIR)$(ZSHCOMPDIR)/_osprof \
		$(DESTDIR)$(MANDIR)/man1/osprof.1 $(DESTDIR)$(MANDIR)/man1/osprof-*.1 \
		$(DESTDIR)$(MANDIR)/man5/osprof-file-format.5
	rm -rf $(DESTDIR)$(HELPERDIR) $(DESTDIR)$(INCLUDEDIR)/osprof
	@if [ -z "$(DESTDIR)" ] && command -v ldconfig >/dev/null; then ldconfig || true; fi
