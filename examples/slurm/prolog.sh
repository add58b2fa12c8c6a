#!/bin/sh
# Slurm prolog (Prolog= in slurm.conf, runs as root on each node before the
# job): ask the dltrace daemon to trace this job's cgroup.  Needed only when
# the daemon's job_cgroup patterns do not already match your layout.
# SLURM_JOB_ID is set by slurmd.
cgroup=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
case "$cgroup" in
*job_"$SLURM_JOB_ID"*) cgroup=${cgroup%%job_"$SLURM_JOB_ID"*}job_$SLURM_JOB_ID ;;
*) cgroup=/system.slice/slurmstepd.scope/job_$SLURM_JOB_ID ;;
esac
/usr/local/sbin/dltrace ctl start --cgroup "$cgroup" || true
exit 0
