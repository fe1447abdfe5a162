#!/usr/bin/env bash
# Captures the Linux kernel's own block-layer trace of fio jobs on a loop
# device, as test data for blkq (testdata/ktrace/, docs/kernel-traces.md).
#
#   sudo scripts/capture-kernel-traces.sh [-o DIR] [-l] [CASE...]
#
# Each case is one fio job run by Debian's fio against /dev/loopN under
# mq-deadline (one case bfq) with the case's queue settings, traced by
# ftrace's blk tracer in blk_classic lines. For each case NAME (its
# settings spelled out: randread-4k-qd32-batch32-nomerges0-nr256) it writes
# DIR/NAME.txt (the trace), DIR/NAME.fio (the exact job fio ran) and
# DIR/NAME.json (the settings, the queue's sysfs values at capture time and
# the trace's event counts). CASE names (or prefixes of them: "read-")
# choose cases; -l lists them. DIR defaults to testdata/ktrace.
#
# The loop device: a 256 MiB file in /dev/shm (tmpfs, so no disk of the
# machine is timed and nothing else shares the device), attached with
# --direct-io=on. On tmpfs direct I/O leaves the loop queue's limits as they
# are (logical_block_size 512, max_sectors_kb 1280, max_segments 128, the
# same with it off); what it changes is the loop driver's own service of a
# request: with it on, each request is one direct read or write of the
# backing file from loop's worker, with it off a buffered copy through the
# backing file's page cache (measured on 6.18: mean D2C of 4 KiB random
# reads at QD32 83 us on vs 76 off, of 4 KiB sequential writes 39 us on vs
# 175 off). The block layer's own decisions (plugging, merging, the
# scheduler, dispatch) happen above the driver either way, but how soon a
# request completes decides how many wait in the scheduler to be merged
# with. Direct I/O is chosen: each request is then one I/O on the file, as
# a disk serves one, and writes complete as soon as reads do.
# Writeback throttling (wbt_lat_usec) is turned off, as blkq does not model
# it; each case's other queue tunables are set before its run.
#
# Everything the script changes is undone on exit, whatever the exit:
# the per-device trace switch, the tracer, its blk_classic option and buffer
# size, tracing_on, the loop device (and any left attached to the backing
# file by an earlier, killed run), the backing file, and tracefs if the
# script mounted it. Run as root; it can be rerun: each run rewrites its
# cases' files.
set -euo pipefail
cd "$(dirname "$0")/.."

out=testdata/ktrace
list=0
while getopts "o:lh" opt; do
	case $opt in
	o) out=$OPTARG ;;
	l) list=1 ;;
	*)
		sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))

fio=/usr/bin/fio
tracing=/sys/kernel/tracing
backing=/dev/shm/blkq-ktrace.img
backing_mib=256

# The cases, one per line:
#   label rw bs iodepth batch complete_min nomerges nr_requests
#   max_sectors_kb numjobs direct sync number_ios scheduler
# label names the pattern (backread is rw=read:-8k: each 4 KiB read starts
# 4 KiB before the last one did, so the job reads backwards); batch is
# iodepth_batch_submit, complete_min iodepth_batch_complete_min; sync is
# fsyncN (fsync=N) or endfsync (end_fsync=1); "-" leaves fio's or the
# kernel's default. nr_requests 256 is mq-deadline's default on a loop
# device (twice its hardware queue depth of 128). direct=0 jobs run with
# ioengine=psync, direct ones with libaio. number_ios keeps each trace to a
# few thousand events; the bfq case is short because bfq writes several
# message lines per request.
cases() {
	cat <<'EOF'
read      read      4k  32 32 -  0 256 -   1 1 -        600  mq-deadline
write     write     4k  32 32 -  0 256 -   1 1 -        600  mq-deadline
backread  read:-8k  4k  32 32 -  0 256 -   1 1 -        600  mq-deadline
randread  randread  4k  32 32 -  0 256 -   1 1 -        400  mq-deadline
randwrite randwrite 4k  32 32 -  0 256 -   1 1 -        400  mq-deadline
rw        rw        4k  32 32 -  0 256 -   1 1 -        600  mq-deadline
randrw    randrw    4k  32 32 -  0 256 -   1 1 -        400  mq-deadline
read      read      4k  32 32 -  1 256 -   1 1 -        600  mq-deadline
read      read      4k  32 32 -  2 256 -   1 1 -        600  mq-deadline
backread  read:-8k  4k  32 32 -  1 256 -   1 1 -        600  mq-deadline
backread  read:-8k  4k  32 32 -  2 256 -   1 1 -        600  mq-deadline
read      read      4k  32 1  -  0 256 -   1 1 -        600  mq-deadline
read      read      4k  32 1  16 0 256 -   1 1 -        600  mq-deadline
read      read      4k  32 16 -  0 256 -   1 1 -        600  mq-deadline
read      read      4k  32 16 16 0 256 -   1 1 -        600  mq-deadline
read      read      4k  32 32 32 0 256 -   1 1 -        600  mq-deadline
read      read      4k  32 32 -  0 256 -   2 1 -        300  mq-deadline
write     write     4k  32 32 -  0 256 -   2 1 -        300  mq-deadline
read      read      4k  32 32 -  0 4   -   1 1 -        600  mq-deadline
randwrite randwrite 4k  32 32 -  0 4   -   1 1 -        400  mq-deadline
read      read      1m  4  4  -  0 256 128 1 1 -        100  mq-deadline
trim      trim      64k 32 32 -  0 256 -   1 1 -        300  mq-deadline
randtrim  randtrim  4k  32 32 -  0 256 -   1 1 -        300  mq-deadline
write     write     4k  1  1  -  0 256 -   1 0 fsync32  1024 mq-deadline
randwrite randwrite 4k  1  1  -  0 256 -   1 0 endfsync 512  mq-deadline
read      read      4k  1  1  -  0 256 -   1 0 -        4096 mq-deadline
randread  randread  4k  32 32 -  0 256 -   1 1 -        100  bfq
read      read      16k 8  8  -  0 256 -   1 1 -        400  mq-deadline
randrw    randrw    8k  16 4  -  0 256 -   1 1 -        400  mq-deadline
write     write     64k 16 16 -  0 256 128 1 1 -        300  mq-deadline
read      read      2m  2  2  -  0 256 -   1 1 -        40   mq-deadline
backwrite write:-8k 4k  32 32 -  0 256 -   1 1 -        600  mq-deadline
randread  randread  4k  8  8  -  0 256 -   4 1 -        200  mq-deadline
rw        rw        4k  32 32 -  0 4   -   1 1 -        400  mq-deadline
write     write     16k 1  1  -  0 256 -   1 0 endfsync 512  mq-deadline
read      read      4k  32 32 -  0 256 64  1 1 -        600  mq-deadline
EOF
}

# name spells out a case's settings: the trace's file name.
name() {
	local label=$1 bs=$3 qd=$4 batch=$5 cmin=$6 nm=$7 nr=$8 maxkb=$9 jobs=${10} direct=${11} sync=${12} sched=${14}
	local n="$label-$bs-qd$qd-batch$batch"
	[[ $cmin != - ]] && n+="-cmin$cmin"
	n+="-nomerges$nm"
	n+="-nr$nr"
	[[ $maxkb != - ]] && n+="-max${maxkb}k"
	[[ $jobs != 1 ]] && n+="-jobs$jobs"
	[[ $direct == 0 ]] && n+="-buffered"
	[[ $sync != - ]] && n+="-$sync"
	[[ $sched != mq-deadline ]] && n+="-$sched"
	echo "$n"
}

if ((list)); then
	cases | while read -r -a c; do name "${c[@]}"; done
	exit 0
fi

[[ $(id -u) == 0 ]] || { echo "capture-kernel-traces: run as root (it sets up a loop device and the tracer)" >&2; exit 1; }
[[ -x $fio ]] || { echo "capture-kernel-traces: $fio missing (apt-get install fio)" >&2; exit 1; }

mounted=0
loop=
saved_buffer_kb=
saved_tracing_on=

cleanup() {
	set +e
	if [[ -n $loop ]]; then
		echo 0 >"/sys/block/${loop#/dev/}/trace/enable" 2>/dev/null
	fi
	if [[ -d $tracing/options ]]; then
		echo 0 >"$tracing/tracing_on"
		[[ -e $tracing/options/blk_classic ]] && echo 0 >"$tracing/options/blk_classic"
		echo nop >"$tracing/current_tracer"
		echo >"$tracing/trace"
		[[ -n $saved_buffer_kb ]] && echo "$saved_buffer_kb" >"$tracing/buffer_size_kb"
		[[ -n $saved_tracing_on ]] && echo "$saved_tracing_on" >"$tracing/tracing_on"
	fi
	detach_all
	rm -f "$backing"
	((mounted)) && umount "$tracing"
}

# detach_all detaches every loop device on the backing file: this run's,
# and one an earlier run killed before its cleanup left behind.
detach_all() {
	local d
	[[ -e $backing ]] || return 0
	for d in $(losetup -j "$backing" -O NAME -n 2>/dev/null); do
		losetup -d "$d"
	done
}

trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ ! -e $tracing/trace ]]; then
	mount -t tracefs nodev "$tracing"
	mounted=1
fi
grep -qw blk "$tracing/available_tracers" || { echo "capture-kernel-traces: this kernel has no blk tracer (CONFIG_BLK_DEV_IO_TRACE)" >&2; exit 1; }
if [[ $(cat "$tracing/current_tracer") != nop ]]; then
	# Someone else's tracing session: leave it alone (and do not let the
	# cleanup reset it).
	echo "capture-kernel-traces: the tracer is in use (current_tracer is $(cat "$tracing/current_tracer"), not nop)" >&2
	tracing=/nonexistent
	exit 1
fi
saved_buffer_kb=$(sed 's/ .*//' "$tracing/buffer_size_kb")
saved_tracing_on=$(cat "$tracing/tracing_on")

detach_all
rm -f "$backing"
fallocate -l "${backing_mib}M" "$backing"
loop=$(losetup -f --show --direct-io=on "$backing")
dev=${loop#/dev/}
sys=/sys/block/$dev
[[ $(cat "$sys/loop/dio") == 1 ]] || { echo "capture-kernel-traces: $loop did not take --direct-io=on" >&2; exit 1; }

echo 0 >"$tracing/tracing_on"
echo blk >"$tracing/current_tracer"
echo 1 >"$tracing/options/blk_classic"
echo 16384 >"$tracing/buffer_size_kb"
mkdir -p "$out"
kernel=$(uname -r)
fio_version=$($fio --version)

# jobfile writes the fio job of a case for device $loop.
jobfile() {
	local name=$1 rw=$3 bs=$4 qd=$5 batch=$6 cmin=$7 jobs=${11} direct=${12} sync=${13} ios=${14}
	echo "; $name: captured by scripts/capture-kernel-traces.sh on Linux $kernel"
	echo "[global]"
	echo "filename=$loop"
	if [[ $direct == 1 ]]; then
		echo "ioengine=libaio"
		echo "direct=1"
		echo "iodepth=$qd"
		echo "iodepth_batch_submit=$batch"
		[[ $cmin != - ]] && echo "iodepth_batch_complete_min=$cmin"
	else
		echo "ioengine=psync"
		echo "direct=0"
	fi
	echo "rw=$rw"
	echo "bs=$bs"
	if [[ $jobs != 1 ]]; then
		# Two streams, each in its own half of the first 128 MiB.
		echo "numjobs=$jobs"
		echo "size=64m"
		echo "offset_increment=64m"
	else
		echo "size=64m"
	fi
	echo "number_ios=$ios"
	case $sync in
	fsync*) echo "fsync=${sync#fsync}" ;;
	endfsync) echo "end_fsync=1" ;;
	esac
	echo
	echo "[$name]"
}

# queue_json prints the queue's sysfs values, and its scheduler's
# tunables (iosched/*), as JSON members.
queue_json() {
	local f v sep=""
	for f in rotational logical_block_size max_sectors_kb max_hw_sectors_kb max_segments max_segment_size \
		nr_requests nomerges discard_max_bytes max_discard_segments read_ahead_kb wbt_lat_usec write_cache scheduler \
		$(cd "$sys/queue" && echo iosched/*); do
		v=$(cat "$sys/queue/$f")
		[[ $f == scheduler ]] && v=$(sed 's/.*\[\(.*\)\].*/\1/' <<<"$v")
		printf '%s    "%s": "%s"' "$sep" "$f" "$v"
		sep=$',\n'
	done
	echo
}

# counts prints the trace's action counts (the fifth column of a
# blk_classic line) as JSON members.
counts() {
	awk '!/^#/ && NF >= 6 { n[$5]++ } END { for (a in n) print a, n[a] }' "$1" | sort |
		awk 'BEGIN { sep = "" } { printf "%s    \"%s\": %d", sep, $1, $2; sep = ",\n" } END { print "" }'
}

capture() {
	local -a c=("$@")
	local name maxkb=${c[8]} nr=${c[7]} nm=${c[6]} sched=${c[13]}
	name=$(name "${c[@]}")
	local txt=$out/$name.txt job=$out/$name.fio json=$out/$name.json
	echo "== $name"

	echo "$sched" >"$sys/queue/scheduler"
	echo 0 >"$sys/queue/wbt_lat_usec"
	echo "$nm" >"$sys/queue/nomerges"
	# max_sectors_kb back to its default first, so a case does not
	# inherit the one before it.
	cat "$sys/queue/max_hw_sectors_kb" >"$sys/queue/max_sectors_kb"
	echo "$nr" >"$sys/queue/nr_requests"
	[[ $maxkb != - ]] && echo "$maxkb" >"$sys/queue/max_sectors_kb"

	jobfile "$name" "${c[@]}" >"$job"
	echo >"$tracing/trace"
	echo 1 >"$sys/trace/enable"
	echo 1 >"$tracing/tracing_on"
	# fio invalidates the device's page cache before the job (its invalidate=1).
	$fio --output=/dev/null "$job" </dev/null
	echo 0 >"$tracing/tracing_on"
	echo 0 >"$sys/trace/enable"
	local overrun
	overrun=$(cat "$tracing"/per_cpu/cpu*/stats | awk '/^overrun:/ { s += $2 } END { print s + 0 }')
	if ((overrun)) || grep -q 'LOST' "$tracing/trace"; then
		echo "capture-kernel-traces: $name: the trace buffer overran ($overrun events lost): lower number_ios" >&2
		exit 1
	fi
	# The job names the loop device it ran on; the trace keeps the tracer's
	# own header lines.
	cat "$tracing/trace" >"$txt"
	{
		echo "{"
		echo "  \"name\": \"$name\","
		echo "  \"kernel\": \"$kernel\","
		echo "  \"fio\": \"$fio_version\","
		echo "  \"device\": \"$dev\","
		echo "  \"backing\": \"$backing (tmpfs, ${backing_mib} MiB, losetup --direct-io=on)\","
		echo "  \"tracer\": \"blk, options/blk_classic\","
		echo "  \"settings\": {"
		echo "    \"label\": \"${c[0]}\", \"rw\": \"${c[1]}\", \"bs\": \"${c[2]}\", \"iodepth\": \"${c[3]}\","
		echo "    \"iodepth_batch_submit\": \"${c[4]}\", \"iodepth_batch_complete_min\": \"${c[5]}\","
		echo "    \"nomerges\": \"$nm\", \"nr_requests\": \"$nr\", \"max_sectors_kb\": \"$maxkb\","
		echo "    \"numjobs\": \"${c[9]}\", \"direct\": \"${c[10]}\", \"sync\": \"${c[11]}\", \"number_ios\": \"${c[12]}\", \"scheduler\": \"$sched\""
		echo "  },"
		echo "  \"queue\": {"
		queue_json
		echo "  },"
		echo "  \"events\": {"
		counts "$txt"
		echo "  }"
		echo "}"
	} >"$json"
	printf '   %s lines, %s bytes\n' "$(wc -l <"$txt")" "$(wc -c <"$txt")"
}

want() {
	local n=$1 p
	(($# == 1)) && return 0
	shift
	for p in "$@"; do
		[[ $n == "$p"* ]] && return 0
	done
	return 1
}

ran=0
while read -r -a c; do
	n=$(name "${c[@]}")
	want "$n" "$@" || continue
	capture "${c[@]}"
	ran=$((ran + 1))
done < <(cases)
((ran)) || { echo "capture-kernel-traces: no case matches $*" >&2; exit 2; }
echo "$ran traces in $out (Linux $kernel, $fio_version)"
