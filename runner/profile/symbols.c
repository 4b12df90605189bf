#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/mman.h>

#include "profile/symbols.h"
#include "common/util.h"

/* An ELF file larger than this is not read (mariadbd is 25 MB). */
#define ELF_SIZE_MAX (1ull << 31)

struct symbol {
	uint64_t addr, size;
	const char *name; /* in the DSO's mapping, or kallsyms' text */
};

struct dso {
	char *path; /* as the maps say it, in the process's own root */
	const char *name; /* its last component */
	pid_t opened_in; /* the process whose root it is read through */
	bool loaded;
	void *map;
	size_t map_len;
	size_t n_loads;
	struct { uint64_t offset, vaddr, size; } loads[16]; /* PT_LOAD segments, to turn an offset into an address */
	size_t n_syms;
	struct symbol *syms;
	bool full; /* its symbols are a .symtab's (static functions too), not .dynsym's alone */
	char build_id[41]; /* hex; "": none */
	void *debug_map; /* the separate debug file whose .symtab was read */
	size_t debug_len;
};

struct mapping {
	uint64_t start, end, pgoff;
	struct dso *dso; /* NULL: anonymous */
};

struct process {
	pid_t pid;
	size_t n;
	struct mapping *maps;
};

struct profile_symbols {
	size_t n_procs, n_dsos;
	struct process *procs; /* by PID, ascending */
	struct dso **dsos;
	bool kernel_loaded;
	char *kallsyms;
	size_t n_kernel;
	struct symbol *kernel;
};

int profile_symbols_new(struct profile_symbols **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

static void dso_free(struct dso *d)
{
	if (d->map)
		munmap(d->map, d->map_len);
	if (d->debug_map)
		munmap(d->debug_map, d->debug_len);
	free(d->syms);
	free(d->path);
	free(d);
}

void profile_symbols_free(struct profile_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_procs; i++)
		free(s->procs[i].maps);
	for (size_t i = 0; i < s->n_dsos; i++)
		dso_free(s->dsos[i]);
	free(s->procs);
	free(s->dsos);
	free(s->kernel);
	free(s->kallsyms);
	free(s);
}

static struct dso *dso_of(struct profile_symbols *s, const char *path, pid_t pid)
{
	struct dso *d, **list;

	for (size_t i = 0; i < s->n_dsos; i++)
		if (streq(s->dsos[i]->path, path))
			return s->dsos[i];
	d = calloc(1, sizeof(*d));
	list = realloc(s->dsos, (s->n_dsos + 1) * sizeof(*list));
	if (list)
		s->dsos = list;
	if (!d || !list || !(d->path = strdup(path))) {
		free(d);
		return NULL;
	}
	d->name = strrchr(d->path, '/') ? strrchr(d->path, '/') + 1 : d->path;
	d->opened_in = pid;
	s->dsos[s->n_dsos++] = d;
	return d;
}

/* One line of /proc/PID/maps, if executable, into m. */
static bool parse_map_line(struct profile_symbols *s, pid_t pid, const char *line, struct mapping *m)
{
	char perms[8];
	uint64_t start, end, pgoff;
	int path_at = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start, &end, perms, &pgoff, &path_at) < 4 ||
	    perms[2] != 'x')
		return false;
	*m = (struct mapping){ .start = start, .end = end, .pgoff = pgoff };
	if (path_at > 0 && line[path_at] == '/')
		m->dso = dso_of(s, line + path_at, pid);
	return true;
}

static struct process *process_slot(struct profile_symbols *s, pid_t pid, bool *ret_found)
{
	size_t lo = 0, hi = s->n_procs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	*ret_found = lo < s->n_procs && s->procs[lo].pid == pid;
	return &s->procs[lo];
}

bool profile_symbols_have_process(const struct profile_symbols *s, pid_t pid)
{
	bool found;

	process_slot((struct profile_symbols *)s, pid, &found);
	return found;
}

int profile_symbols_add_process(struct profile_symbols *s, pid_t pid)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
	struct process p = { .pid = pid }, *at, *list;
	size_t cap = 0;
	bool found;
	char path[64];

	process_slot(s, pid, &found);
	if (found)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct mapping m, *n;

		line[strcspn(line, "\n")] = '\0';
		if (!parse_map_line(s, pid, line, &m))
			continue;
		n = realloc(p.maps, (p.n + 1) * sizeof(*n));
		if (!n) {
			free(p.maps);
			return -ENOMEM;
		}
		p.maps = n;
		p.maps[p.n++] = m;
	}
	list = realloc(s->procs, (s->n_procs + 1) * sizeof(*list));
	if (!list) {
		free(p.maps);
		return -ENOMEM;
	}
	s->procs = list;
	at = process_slot(s, pid, &found);
	memmove(at + 1, at, (size_t)(s->procs + s->n_procs - at) * sizeof(*at));
	*at = p;
	s->n_procs++;
	return 0;
}

static int cmp_symbol(const void *a, const void *b)
{
	const struct symbol *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Aliases (malloc, __libc_malloc): the shortest name, then the first. */
	if (strlen(x->name) != strlen(y->name))
		return strlen(x->name) < strlen(y->name) ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Whether [off, off + len) lies within a file of size bytes. */
static bool within(uint64_t off, uint64_t len, size_t size)
{
	return off <= size && len <= size - off;
}

/* The FUNC symbols of table sh (its strings in section strings) into d. */
static int read_symtab(struct dso *d, const uint8_t *base, const Elf64_Shdr *sh, const Elf64_Shdr *strings)
{
	const Elf64_Sym *syms = (const void *)(base + sh->sh_offset);
	const char *names = (const char *)base + strings->sh_offset;
	size_t n = sh->sh_size / sizeof(Elf64_Sym);

	d->syms = calloc(n ? n : 1, sizeof(*d->syms));
	if (!d->syms)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		unsigned type = ELF64_ST_TYPE(syms[i].st_info);

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || syms[i].st_shndx == SHN_UNDEF || !syms[i].st_value ||
		    syms[i].st_name >= strings->sh_size ||
		    strnlen(names + syms[i].st_name, strings->sh_size - syms[i].st_name) == strings->sh_size - syms[i].st_name)
			continue;
		d->syms[d->n_syms++] = (struct symbol){ .addr = syms[i].st_value, .size = syms[i].st_size,
							.name = names + syms[i].st_name };
	}
	qsort(d->syms, d->n_syms, sizeof(*d->syms), cmp_symbol);
	return 0;
}

/* The GNU build ID of a note section, in hex, into d->build_id. */
static void read_build_id(struct dso *d, const uint8_t *base, size_t size, const Elf64_Shdr *sh)
{
	uint64_t at = sh->sh_offset, end = sh->sh_offset + sh->sh_size;

	while (within(at, sizeof(Elf64_Nhdr), size) && at + sizeof(Elf64_Nhdr) <= end) {
		const Elf64_Nhdr *n = (const void *)(base + at);
		uint64_t name = at + sizeof(*n), desc = name + ((n->n_namesz + 3u) & ~3u);

		if (!within(desc, n->n_descsz, size))
			return;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && memcmp(base + name, "GNU", 4) == 0 &&
		    n->n_descsz >= 2 && n->n_descsz <= 20) {
			for (size_t i = 0; i < n->n_descsz; i++)
				sprintf(d->build_id + 2 * i, "%02x", base[desc + i]);
			return;
		}
		at = desc + ((n->n_descsz + 3u) & ~3u);
	}
}

/* The ELF headers of the mapped file checked and read: its PT_LOAD
 * segments (with_loads), its build ID and its symbol table (.symtab,
 * else .dynsym). */
static int read_elf(struct dso *d, const uint8_t *base, size_t size, bool with_loads)
{
	const Elf64_Ehdr *eh = (const void *)base;
	const Elf64_Shdr *sh, *table = NULL;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !within(eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr), size) ||
	    !within(eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr), size))
		return -EBADMSG;
	for (size_t i = 0; with_loads && i < eh->e_phnum && d->n_loads < ELEMENTSOF(d->loads); i++) {
		const Elf64_Phdr *ph = (const void *)(base + eh->e_phoff + i * sizeof(Elf64_Phdr));

		if (ph->p_type == PT_LOAD)
			d->loads[d->n_loads].offset = ph->p_offset, d->loads[d->n_loads].vaddr = ph->p_vaddr,
			d->loads[d->n_loads++].size = ph->p_filesz;
	}
	sh = (const void *)(base + eh->e_shoff);
	for (size_t i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && !table))
			table = &sh[i];
		if (sh[i].sh_type == SHT_NOTE && !d->build_id[0] && within(sh[i].sh_offset, sh[i].sh_size, size))
			read_build_id(d, base, size, &sh[i]);
	}
	d->full = table && table->sh_type == SHT_SYMTAB;
	if (!table || table->sh_link >= eh->e_shnum || table->sh_entsize != sizeof(Elf64_Sym) ||
	    !within(table->sh_offset, table->sh_size, size) ||
	    !within(sh[table->sh_link].sh_offset, sh[table->sh_link].sh_size, size) || !sh[table->sh_link].sh_size)
		return table ? -EBADMSG : 0;
	free(d->syms);
	d->syms = NULL;
	d->n_syms = 0;
	return read_symtab(d, base, table, &sh[table->sh_link]);
}

/* A regular file of at most ELF_SIZE_MAX bytes mapped; NULL if not. */
static void *map_file(const char *path, size_t *ret_len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	void *m;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (uint64_t)st.st_size > ELF_SIZE_MAX)
		return NULL;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	*ret_len = (size_t)st.st_size;
	return m;
}

/* Debian strips .symtab into a package of its own (libc6-dbg, *-dbgsym),
 * filed by build ID: where it is installed, its symbols replace .dynsym's. */
static void load_debug_file(struct dso *d)
{
	_cleanup_free_ char *path = NULL;

	if (d->full || strlen(d->build_id) < 4 ||
	    xasprintf(&path, "/proc/%d/root/usr/lib/debug/.build-id/%.2s/%s.debug", (int)d->opened_in, d->build_id,
		      d->build_id + 2) < 0)
		return;
	d->debug_map = map_file(path, &d->debug_len);
	if (d->debug_map && read_elf(d, d->debug_map, d->debug_len, false) < 0)
		d->n_syms = 0;
}

/* The DSO's file opened as its process sees it (/proc/PID/root/PATH:
 * the same file in a container), mapped and read once. */
static void load_dso(struct dso *d)
{
	_cleanup_free_ char *path = NULL;

	d->loaded = true;
	if (xasprintf(&path, "/proc/%d/root%s", (int)d->opened_in, d->path) < 0)
		return;
	d->map = map_file(path, &d->map_len);
	if (d->map && read_elf(d, d->map, d->map_len, true) < 0)
		d->n_syms = 0;
	if (d->map)
		load_debug_file(d);
}

/* The symbol covering addr in syms[0..n), sorted; with sized, within its size. */
static const char *lookup(const struct symbol *syms, size_t n, uint64_t addr, bool sized)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* The first of the aliases at that address: the one cmp_symbol() chose. */
	for (hi = lo - 1; hi > 0 && syms[hi - 1].addr == syms[lo - 1].addr; hi--)
		;
	if (sized && addr - syms[hi].addr >= MAX(syms[hi].size, 1u))
		return NULL;
	return syms[hi].name;
}

/* One line of /proc/kallsyms, a function's ("ffffffff81000000 T _stext"
 * or "... t name\t[module]"), into *ret_addr and its name's bytes. */
static bool parse_kallsyms_line(const char *line, uint64_t *ret_addr, const char **ret_name, size_t *ret_len)
{
	char *end;
	const char *type, *name;

	*ret_addr = strtoull(line, &end, 16);
	type = end + strspn(end, " ");
	if (!*ret_addr || !strchr("tTwW", *type) || !*type)
		return false;
	name = type + 1 + strspn(type + 1, " ");
	*ret_name = name;
	*ret_len = strcspn(name, " \t\n");
	return *ret_len > 0;
}

/* The kernel's functions, their names in one pool (kallsyms holds 120,000). */
static void load_kernel(struct profile_symbols *s)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/kallsyms", "re");
	_cleanup_free_ char *line = NULL;
	size_t line_cap = 0, cap = 0, pool_len = 0, pool_cap = 0;

	s->kernel_loaded = true;
	while (f && getline(&line, &line_cap, f) > 0) {
		const char *name;
		size_t len;
		uint64_t addr;

		if (!parse_kallsyms_line(line, &addr, &name, &len))
			continue;
		if (s->n_kernel == cap) {
			struct symbol *n = realloc(s->kernel, (cap = cap ? cap * 2 : 65536) * sizeof(*n));

			if (!n)
				break;
			s->kernel = n;
		}
		if (pool_len + len + 1 > pool_cap) {
			char *n = realloc(s->kallsyms, pool_cap = (pool_len + len + 1) * 2);

			if (!n)
				break;
			s->kallsyms = n;
		}
		memcpy(s->kallsyms + pool_len, name, len);
		s->kallsyms[pool_len + len] = '\0';
		/* the name's offset, made a pointer once the pool stops moving */
		s->kernel[s->n_kernel++] = (struct symbol){ .addr = addr, .size = pool_len };
		pool_len += len + 1;
	}
	for (size_t i = 0; i < s->n_kernel; i++)
		s->kernel[i].name = s->kallsyms + s->kernel[i].size, s->kernel[i].size = 0;
	qsort(s->kernel, s->n_kernel, sizeof(*s->kernel), cmp_symbol);
}

/* The address in d's ELF of file offset off; UINT64_MAX: no segment holds it. */
static uint64_t vaddr_of(const struct dso *d, uint64_t off)
{
	for (size_t i = 0; i < d->n_loads; i++)
		if (off >= d->loads[i].offset && off - d->loads[i].offset < d->loads[i].size)
			return off - d->loads[i].offset + d->loads[i].vaddr;
	return UINT64_MAX;
}

void profile_symbols_frame(struct profile_symbols *s, pid_t pid, uint64_t ip, bool kernel, const char **ret_dso,
			   const char **ret_sym)
{
	const char *name = NULL;
	struct process *p;
	bool found;

	*ret_dso = kernel ? PROFILE_KERNEL_DSO : PROFILE_UNKNOWN;
	if (kernel) {
		if (!s->kernel_loaded)
			load_kernel(s);
		name = lookup(s->kernel, s->n_kernel, ip, false);
	} else if ((p = process_slot(s, pid, &found)), found) {
		for (size_t i = 0; i < p->n; i++) {
			struct dso *d = p->maps[i].dso;

			if (ip < p->maps[i].start || ip >= p->maps[i].end)
				continue;
			*ret_dso = d ? d->name : "[anon]";
			if (d && !d->loaded)
				load_dso(d);
			if (d && d->n_syms)
				name = lookup(d->syms, d->n_syms, vaddr_of(d, ip - p->maps[i].start + p->maps[i].pgoff), true);
			break;
		}
	}
	*ret_sym = name ? name : PROFILE_UNKNOWN;
}
