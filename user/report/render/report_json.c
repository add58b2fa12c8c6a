// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `dltrace report --json`: the report as one JSON object with stable keys
 * (schema "dltrace-report-1"; keys are only ever added).  Times are in ns,
 * sizes in bytes, shares in [0, 1]; "*_ns" instants are ns since the
 * earliest trace start.  Lists hold at most --top entries (default 100),
 * largest first.
 *
 *   schema, generator
 *   traces[]     file, hostname, kernel, target, start_wall, start_wall_ns,
 *                duration_ns, events, lost_events, lost_bytes, stop_reason,
 *                complete (false: damaged, or its file lacks events of the
 *                time it covers: a write error, the size cap),
 *                stopped_early (it does not cover the job to its end: tracing
 *                stopped on a signal, --duration, an error, ...; a cut or
 *                damaged file), stop_ns (when tracing stopped, ns since the
 *                trace's start; null: no summary), stop_wall_ns, stop_wall
 *                (the same on the wall clock, ISO 8601), events_until_ns (the
 *                end of its last event read, ns since its start: the figures
 *                cover up to there), truncated (its file stopped taking events
 *                on a write error), write_error (that error, or null),
 *                capped_events, events_not_written (the tracer had them, the
 *                file does not hold them; null: no summary), warnings[]
 *   job          commands[], hosts[], start_ns, wall_ns (first to last event of
 *                the job's processes), stopped_early (a trace did), processes,
 *                threads, events, lost_events, syscalls, failed_syscalls,
 *                calls_in_runs (syscalls counted in runs: --summary-only=counts)
 *   time         io_ns{data,metadata,sync,total} (all files),
 *                training_thread{pid,tid,name,wall_ns,io_ns,data_ns,metadata_ns,
 *                sync_ns,io_share,app_io_ns,env_io_ns,other_io_ns,app_read_ns,
 *                burst_blocked_ns} (or null; other: pipes, sockets),
 *                processes[]{pid,ppid,host,command,rank,rank_from,local_rank,
 *                world_size (null: unknown),threads,wall_ns,io_ns,data_ns,
 *                metadata_ns,sync_ns,io_share,app_io_ns,env_io_ns,calls,failed,
 *                app_bytes_read,app_bytes_written,origins[]},
 *                threads[]{pid,tid,name,wall_ns,io_ns,data_ns,metadata_ns,sync_ns,
 *                io_share,app_bytes_read}
 *   syscalls     {application,environment,other}[]{name,class,calls,failed,bytes,
 *                size{count,min,p25,median,mean,p75,max},
 *                latency_ns{mean,p50,p99,max}}
 *   access_sizes bins[], read[10], write[10] (Darshan's bins, application),
 *                common[]{size,count} (4 most common, reads and writes),
 *                common_read[], common_write[], exact
 *   pattern      reads, writes, bytes_read, bytes_written, seq_reads,
 *                consec_reads, seq_writes, consec_writes, random_reads,
 *                random_writes, small_reads, small_writes, seeks, rw_switches,
 *                opens, stats, metadata_calls, syncs, mmaps, no_offset, hints,
 *                by_origin{syscall,io_uring,aio,mmap}{reads,writes,syncs,
 *                bytes_read,bytes_written} (each request counted once, by the
 *                layer that issued it; the figures above add them all up)
 *   files        count, read, written, read_once, reread, redundant_bytes,
 *                reread_within_open_bytes, concurrent_duplicate_bytes,
 *                dataset_bytes, size_bins[10], list[]{path,path_hex?,bytes_read,
 *                bytes_written,reads,writes,opens,stats,seeks,syncs,origins[],hints,seq_reads,
 *                consec_reads,seq_writes,consec_writes,random_reads,random_writes,
 *                rw_switches,processes,readers,first_ns,last_ns,max_byte_read,
 *                max_byte_written,size,extent,passes,reread_within_open,
 *                concurrent_duplicate_bytes,page_faults,cache_miss_bytes,
 *                cache_hit_ratio (null: no read with cache information),read_ns,
 *                write_ns,metadata_ns,sync_ns,
 *                dev,fs}
 *   directories[] path, files, bytes_read, bytes_written, reads, writes,
 *                metadata_calls, failed, io_ns
 *   filesystems[] dev, fs, mount_prefix, files, bytes_read, bytes_written, io_ns
 *   balance      groups[]{parent_pid,command,members,bytes_min,bytes_max,
 *                bytes_imbalance,io_ns_min,io_ns_max,time_imbalance,most_pid,
 *                least_pid,slowest_pid,fastest_pid,ranks[],most_rank,least_rank,
 *                slowest_rank,fastest_rank}, hosts[]{hostname,ranks[],bytes,io_ns,
 *                processes,traces,threads,bytes_read,bytes_written,calls,failed,
 *                start_ns,wall_ns,events,lost_events} (one per hostname),
 *                across_hosts{hosts,bytes_min,bytes_max,bytes_imbalance,io_ns_min,
 *                io_ns_max,time_imbalance,most,least,slowest,fastest}
 *   timeline     start_ns, bin_ns, read_bytes[], write_bytes[], metadata_calls[]
 *                (bins of bin_ns from start_ns, covering the job)
 *   bursts       count, bytes, blocked_ns, list[]{pid,tid,start_ns,end_ns,bytes,
 *                blocked_ns,ops,path,training_thread}
 *   environment  calls, failed, bytes_read, bytes_written, io_ns, files,
 *                kinds[]{kind,calls,failed,bytes_read,bytes_written,io_ns,files}
 *   other        calls, failed, bytes_read, bytes_written, io_ns (pipes, sockets,
 *                unnamed, shared memory), shared_memory{calls,failed,bytes_read,
 *                bytes_written,io_ns} (of them: segments in /dev/shm named by a
 *                runtime or used as one, SysV, memfd; never application I/O)
 *   layers       active, page_faults{application,environment,other},
 *                reads_with_cache_info, cache_miss_bytes{application,environment,
 *                other}, cache_hit_ratio{application,environment,other} (share of
 *                the bytes read served by the page cache, or null),
 *                block{reads,writes,other,read_bytes,write_bytes,
 *                latency_ns{p50,p99,max}}, uring_requests, aio_requests, vfs_events (what the
 *                other capture layers saw; zeros without them)
 *   levels       {stdio,hdf5,mpiio}{calls,time_ns,functions[]{name,calls,failed,
 *                time_ns,latency_ns{p50,p99,max},bytes_requested (null: not known for
 *                every call),syscalls,sys_reads,
 *                sys_read_bytes,sys_writes,sys_write_bytes,partial},read{calls,time_ns,
 *                bytes_requested,syscalls,syscall_bytes,syscalls_per_call,bytes_ratio},
 *                write{...}}, unknown_calls, objects[]{level,file,object (null: the
 *                file's row),opens,open_read_bytes,read{calls,time_ns,bytes_requested,
 *                syscalls,syscall_bytes,bytes_ratio,excess_bytes,reads_with_cache_info,
 *                cache_miss_bytes,selections{none,points,hyperslab,all}{calls,bytes},
 *                sizes[]{bytes,calls},sizes_other_calls},write{...}} (per HDF5 dataset
 *                and per file, by the bytes read beyond those asked), layers_off[]{layer,
 *                library,processes,files,reads,bytes_read} (hdf5, mpiio: off while
 *                traced processes loaded their library; reads of .h5 files, or of
 *                those processes' application files)
 *   python       calls, io_ns, count, locations[]{location ("FILE:LINE FUNCTION"),
 *                calls,failed,reads,read_bytes,writes,write_bytes,io_ns} (syscalls
 *                per innermost application frame, --python-stacks; by io_ns)
 *   phases       regions[]{name,count,time_ns,dur_ns{p50,p99,max}}, other_regions,
 *                instants, counters, loops[]{pid,tid,host,name,steps,epochs,
 *                stall_from,nested_steps,iteration_ns{median,p99,max,total},step_ns{},
 *                stall_ns{...,total},stall_share,stall_share_per_step{},
 *                bytes_read_per_step{},bytes_read,bytes_written,worst_step{},
 *                epoch_list[],step_list[] (first --top),slowest[]{...,files[]},
 *                stall_chart{steps_per_bar,iteration_ns[],stall_ns[]},outside_steps{}},
 *                unowned{} (see docs/report.md "JSON keys")
 *   gpu_idle     with a PyTorch profiler trace (merged, or --kineto; else null):
 *                steps_from, cache_layer, block_layer, devices[]{pid,device,steps,
 *                window_ns,busy_ns,idle_ns,explained_ns,unexplained_ns,
 *                explained_share,batch_wait_ns,batch_from,file_read_ns,cache_miss_ns,
 *                block_io_ns}, steps[]{step,index,pid,tid,device,start_ns,end_ns,
 *                busy_ns,idle_ns,batch_wait_ns,file_read_ns,cache_miss_ns,block_io_ns,
 *                explained_ns,unexplained_ns}, most_unexplained[], most_explained[],
 *                files[]{path,path_hex?,idle_ns}, waits_dropped, warnings[]
 *   errors[]     errno, count, application, environment, other
 *   findings[]   id, level, title, rule, evidence[], metrics{}, recommendation,
 *                with --python-stacks python_by and python_locations[]{location, calls,
 *                bytes, io_ns} (the top 3 Python locations behind it)
 *
 * json-c builds and escapes every value.  The lists can be long (--top up to
 * a million files), so the report is never one tree in memory: each small
 * section, and each entry of a long list, is a json-c object that is written
 * out and freed before the next is built; struct jstream writes the frame
 * around them (the top-level object and the sections that hold long lists).
 * Strings go to json-c as valid UTF-8: bytes that are not become U+FFFD, as
 * in the traces, and file names keep their exact bytes in path_hex.
 *
 * This file holds the document's order; the sections are written by the
 * report_json_*.c files beside it (report_json_internal.h).
 */
#include "report/render/report_json_internal.h"

void report_json(FILE *out, const struct report_view *v)
{
	const struct report_stats *st = v->st;
	struct jstream s = {.f = out, .first = {true}};

	js_open(&s, NULL, '{');
	js_put(&s, "schema", j_str("dltrace-report-1"));
	js_put(&s, "generator", j_str(v->generator));
	rj_traces(&s, st);
	js_put(&s, "job", rj_job(st));
	rj_time(&s, v);
	js_put(&s, "syscalls", rj_syscalls(st));
	js_put(&s, "access_sizes", rj_access_sizes(st));
	js_put(&s, "pattern", rj_pattern(st));
	rj_files(&s, v);
	rj_directories(&s, v);
	rj_filesystems(&s, v);
	rj_balance(&s, v);
	js_put(&s, "timeline", rj_timeline(st));
	js_put(&s, "bursts", rj_bursts(st));
	js_put(&s, "environment", rj_environment(st));
	js_put(&s, "other", rj_other(st));
	js_put(&s, "layers", rj_layers(st));
	js_put(&s, "levels", rj_levels(v));
	js_put(&s, "python", rj_python(v));
	rj_phases(&s, v);
	js_put(&s, "gpu_idle", report_gpu_json(st, v->top)); /* null without a profiler trace */
	js_put(&s, "errors", rj_errors(st));
	js_put(&s, "findings", rj_findings(v->fi));
	js_close(&s, '}');
	fputc('\n', out);
}
