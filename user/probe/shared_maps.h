/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One set of maps for several openings of one BPF object, created before
 * any of them loads, so that they can load (be verified) at the same time
 * on different CPUs.  libbpf creates an object's maps inside its load and
 * loads the programs one after the other; an opening whose maps are given
 * to it beforehand (bpf_map__reuse_fd) creates none and fills none.
 *
 * Called by probe_loader.c between opening (settings applied: read-only
 * values, sizes) and loading.
 */
#ifndef SHARED_MAPS_H
#define SHARED_MAPS_H

#include <bpf/libbpf.h>
#include <stddef.h>

/*
 * Create the maps of objs[0] as its load would (its BTF, the initial
 * values of its global data, read-only data frozen) and have every object
 * of objs[0..n) use them: each must be an opening of the same object file,
 * not loaded yet.  Returns 0 or -errno; after a failure some openings
 * may use some of the maps already: close them and open again.
 */
int shared_maps_create(struct bpf_object *const *objs, size_t n);

#endif
