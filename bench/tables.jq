# bench/tables.jq - what bench/run's tables share: number formats, and
# the instruction-counted rows (their JSON from the boots' hookbench
# objects, and their table), which bench/run --icount-only also writes.

# a number to 3 decimals (below 10) or 1
def f: if . < 10 then (. * 1000 | round / 1000 | tostring) else (. * 10 | round / 10 | tostring) end;
# median (min–max) of a stats object; the same from microseconds to ms
def r: "\(.median | f) (\(.min | f)–\(.max | f))";
def rms: "\(.median / 1000 | f) (\(.min / 1000 | f)–\(.max / 1000 | f))";
# a table row's cells, one per element of the input array
def cols(g): " | " + (map(g) | join(" | ")) + " |";

# The array of hookbench objects of the -icount boots (each with .kernel,
# its uname -r; the first kernel's repeated boots after it) as
# {icount_by_kernel, icount_repeat}.
def icount_json:
  . as $all |
  {icount_by_kernel: (reduce $all[] as $b ({}; if has($b.kernel) then . else . + {($b.kernel): $b} end)),
   icount_repeat: ($all | map(select(.kernel == $all[0].kernel)) |
     if length < 2 then null else
     {boots: length, dd_bs1: (map(.dd_bs1) | . as $b | $b[0] | keys_unsorted |
       map({key: ., value: ([$b[][.]] | {min: min, max: max,
         spread_pct: ((max - min) / min * 100)})}) | from_entries)} end)};

# The instruction-counted table, from an object with icount_by_kernel and
# icount_repeat: a list of lines.
def icount_table:
  ( .icount_by_kernel as $ic | ($ic | keys_unsorted) as $iks | $ic[$iks[0]] as $i0 |
    "Instruction-counted: the same hookbench, each kernel booted once more on one vCPU under qemu's `-icount shift=3,sleep=off`, where the guest's clock advances 8 ns per instruction executed: these are instruction counts, which the host's load cannot move. dd bs=1 count=\($i0.dd_count), \($i0.rounds) rounds with the cases taking turns, medians of guest seconds, and the ratio per round, median (min–max). padded hook: the empty programs with \($i0.pad_loops) more iterations of a loop in file_permission, a slowdown of known size.\n",
    "| dd bs=1" + ($iks | cols("\(.) (s) | / none | / empty hook")),
    "|---|" + ($iks | map("---|---|---|") | join("")),
    "| none" + ($iks | cols($ic[.].dd_bs1 | "\(.none | f) | 1 | \(.none / .empty_hook | f)")),
    "| empty hook" + ($iks | cols($ic[.] | "\(.dd_bs1.empty_hook | f) | \(.ratios.dd_bs1["empty_hook/none"] | r) | 1")),
    "| padded hook" + ($iks | cols($ic[.] | "\(.dd_bs1.padded_hook | f) | \(.dd_bs1.padded_hook / .dd_bs1.none | f) | \(.ratios.dd_bs1["padded_hook/empty_hook"] | r)")),
    ( [$i0.dd_bs1 | keys_unsorted[] | select(startswith("armed"))][] as $a |
      "| \($a)" + ($iks | cols($ic[.] | "\(.dd_bs1[$a] | f) | \(.ratios.dd_bs1["\($a)/none"] | r) | \(.ratios.dd_bs1["\($a)/empty_hook"] | r)")) ),
    "",
    ( $iks[] as $k | "file_permission per run on \($k) (bpf_stats, guest ns: 8 ns an instruction): " +
      ([$ic[$k].bpf_stats_ns_per_run | to_entries[] | "\(.key) \(.value) ns"] | join(", ")) + "." ),
    ( if .icount_repeat then
        "Repeatability: \(.icount_repeat.boots) boots of \($iks[0]), the same build: the dd bs=1 medians of each case differ by at most \([.icount_repeat.dd_bs1[].spread_pct] | max | . * 1000 | round / 1000)% between boots (" +
        ([.icount_repeat.dd_bs1 | to_entries[] | "\(.key) \(.value.spread_pct | . * 1000 | round / 1000)%"] | join(", ")) + ")."
      else empty end ),
    "" );
