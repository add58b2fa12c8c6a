// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "probe/shared_maps.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* Map types the kernel takes no BTF key and value types for (libbpf leaves them out too). */
static bool takes_btf_types(enum bpf_map_type type)
{
	switch (type) {
	case BPF_MAP_TYPE_PERF_EVENT_ARRAY:
	case BPF_MAP_TYPE_CGROUP_ARRAY:
	case BPF_MAP_TYPE_STACK_TRACE:
	case BPF_MAP_TYPE_DEVMAP:
	case BPF_MAP_TYPE_DEVMAP_HASH:
	case BPF_MAP_TYPE_CPUMAP:
	case BPF_MAP_TYPE_XSKMAP:
	case BPF_MAP_TYPE_SOCKMAP:
	case BPF_MAP_TYPE_SOCKHASH:
	case BPF_MAP_TYPE_QUEUE:
	case BPF_MAP_TYPE_STACK:
		return false;
	default:
		return true;
	}
}

/* One map as the object's load would create it; its descriptor or -errno. */
static int create_map(struct bpf_map *map, int btf_fd)
{
	enum bpf_map_type type = bpf_map__type(map);
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = bpf_map__map_flags(map),
		    .numa_node = bpf_map__numa_node(map), .map_extra = bpf_map__map_extra(map),
		    .map_ifindex = bpf_map__ifindex(map));
	int fd, zero = 0;

	/* maps of maps and struct_ops need more than this (none here) */
	if (type == BPF_MAP_TYPE_ARRAY_OF_MAPS || type == BPF_MAP_TYPE_HASH_OF_MAPS ||
	    type == BPF_MAP_TYPE_STRUCT_OPS)
		return -EOPNOTSUPP;
	if (btf_fd >= 0 && takes_btf_types(type)) {
		opts.btf_fd = btf_fd;
		opts.btf_key_type_id = bpf_map__btf_key_type_id(map);
		opts.btf_value_type_id = bpf_map__btf_value_type_id(map);
	}
	fd = bpf_map_create(type, bpf_map__name(map), bpf_map__key_size(map),
			    bpf_map__value_size(map), bpf_map__max_entries(map), &opts);
	if (fd < 0)
		return -errno;
	if (bpf_map__is_internal(map)) {
		/* global data: its initial values; read-only data frozen, as the verifier expects
		 */
		size_t size;
		const void *init = bpf_map__initial_value(map, &size);

		if ((init && bpf_map_update_elem(fd, &zero, init, 0)) ||
		    ((bpf_map__map_flags(map) & BPF_F_RDONLY_PROG) && bpf_map_freeze(fd))) {
			int e = -errno;

			close(fd);
			return e;
		}
	}
	return fd;
}

int shared_maps_create(struct bpf_object *const *objs, size_t n)
{
	const struct btf *obj_btf = bpf_object__btf(objs[0]);
	/* filled in by each load from the running kernel (LINUX_HAS_BPF_COOKIE, ...): not shared */
	const struct bpf_map *kconfig = bpf_object__find_map_by_name(objs[0], ".kconfig");
	struct btf *btf = NULL;
	struct bpf_map *map;
	size_t nmaps = 0, k = 0;
	int btf_fd = -1, err = 0, *fds;

	bpf_object__for_each_map (map, objs[0])
		nmaps++;
	fds = calloc(nmaps + 1, sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	if (obj_btf) {
		/*
		 * A copy, type for type (the same ids): the object loads its
		 * own BTF later, after libbpf has adjusted it (hidden global
		 * functions made static), and from the raw data btf__raw_data()
		 * would cache now.
		 */
		btf = btf__new_empty();
		if (!btf || btf__add_btf(btf, obj_btf) < 0) {
			err = -ENOMEM;
			goto out;
		}
		if (btf__load_into_kernel(btf)) {
			err = -errno;
			goto out;
		}
		btf_fd = btf__fd(btf);
	}
	bpf_object__for_each_map (map, objs[0]) {
		if (map == kconfig) {
			fds[k++] = -1;
			continue;
		}
		fds[k] = create_map(map, btf_fd);
		if (fds[k] < 0) {
			err = fds[k];
			goto out;
		}
		k++;
	}
	/* the same maps, in the same order, in every opening (each takes duplicates) */
	for (size_t i = 0; i < n && !err; i++) {
		size_t j = 0;

		bpf_object__for_each_map (map, objs[i]) {
			if (j >= nmaps) {
				err = -EINVAL;
				break;
			}
			err = fds[j] >= 0 ? bpf_map__reuse_fd(map, fds[j]) : 0;
			j++;
			if (err)
				break;
		}
	}
out:
	while (k > 0)
		if (fds[--k] >= 0)
			close(fds[k]);
	free(fds);
	btf__free(btf); /* the kernel keeps what the maps refer to */
	return err;
}
