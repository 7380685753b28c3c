package dev.zklock.cli.bench;

import dev.zklock.cli.MachineLoad;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * BENCHMARKS.md from a bench report: the setting, a warning first if the machine was loaded at the start, where the
 * figures came from, a legend ({@link #LEGEND}), the main table of zklock against its
 * counterpart (each recipe and scenario named on its first row only), the table of floors and baselines measured
 * beside it, and the targets met and missed. The main table comes first, and its rows keep one shape, seven cells, so
 * that the README can copy rows of it whole ({@code DocsTest} matches them cell for cell). Stateless, and safe for use
 * by any thread.
 */
final class BenchMarkdown {
    /** The main table's header: the recipe cell names zklock's recipe and its counterpart ("X vs Y"). */
    static final String HEADER =
            "| recipe | scenario | metric | zklock | counterpart | zklock / counterpart | target |";

    /** The header of the table of floors and baselines: one figure each, no counterpart, no ratio, no target. */
    static final String FLOOR_HEADER = "| floor or baseline | scenario | metric | value |";

    /**
     * How to read the tables, printed between the header and the main table: every term of the metrics, which way a
     * ratio reads, what each kind of target bounds ({@link Target.Basis}), where floors go, and when a machine is
     * loaded ({@link MachineLoad#LOADED_PER_CORE}).
     */
    static final List<String> LEGEND = List.of(
            "**How to read this**",
            "",
            "- **recipe**: zklock's recipe vs its counterpart, Curator's recipe or Spring Integration's"
                    + " `ZookeeperLockRegistry` (or, for the queue view, zklock's own default mode); a blank recipe or"
                    + " scenario cell repeats the row above.",
            "- **zklock / counterpart**: zklock's figure over the counterpart's, both measured in the same run. Below"
                    + " 1x is better for latencies (ms), times (s), heap, requests, watch events and timed-out acquires;"
                    + " above 1x for rates (/s). `n/a` where a side was not measured or its figure shows as zero.",
            "- **target**: a bound set by the issues, `met` or **missed**. Ending in `x` (`>= 1.2x`, `<= 0.8x`): on"
                    + " the ratio zklock / counterpart. Without `x` (`<= 5`, `>= 500`, `35 to 65`): on zklock's own"
                    + " figure. `<= 1.1x floor of F`: zklock's figure over F, the floor of that metric measured in the"
                    + " same run. Compared as printed (ratios to 2 decimals); an `n/a` misses.",
            "- **cycle**: one acquire and its release by a contender alone (in the idle-cached scenario, one turn of"
                    + " both clients); **acquisition**: one acquire granted and its release among contenders; the"
                    + " rates (/s) count every contender together.",
            "- **hand-off**: from a holder's release call to the next holder's acquire returning, when the next"
                    + " holder is another contender. **local hand-off**: threads sharing one client and one lock"
                    + " object pass the lock among themselves in memory, with no ZooKeeper request. **1 us inside**:"
                    + " each holder does "
                    + BenchPlan.WORK_INSIDE.toNanos()
                    + " ns of busy work inside every hold, on every side alike (elsewhere the critical section is"
                    + " empty). **3 us outside**: each thread does "
                    + BenchPlan.WORK_OUTSIDE.toNanos()
                    + " ns of busy work after every release, on every side alike, with an empty critical section.",
            "- **requests per acquisition** (per cycle): the ZooKeeper requests the servers counted (`mntr`) in a"
                    + " counting window over the acquisitions (cycles) in it; **watch events per release** likewise.",
            "- **thread switches per acquisition**: the context switches of the contenders' threads over their"
                    + " loops (voluntary and involuntary, as Linux counts them), per acquisition: about 1 where every"
                    + " acquisition parks until the lock is passed to it, fewer where threads find the lock free and"
                    + " nobody queued. **acquires that found the lock free, nobody queued**: the JDK fair lock's"
                    + " acquires that, as they were asked, found it unheld with no thread waiting; they take it with no"
                    + " park, where a lock with local hand-off and no idle time has given its node back to ZooKeeper."
                    + " **rounds it queued every acquire**: the JDK fair lock's rounds with at least "
                    + LockScenario.CONVOY_SWITCHES
                    + " thread switches per acquisition (a convoy: each acquire parked until the lock was passed to"
                    + " it); the rate over the JDK lock's **in those rounds** is the median, over them, of each"
                    + " round's ratio.",
            "- **leadership rows**: two participants of one recipe on two clients take turns (for at most "
                    + LeaderScenario.MOST_HAND_OVER_TIME.toMillis()
                    + " ms per side and round); a **term** is one"
                    + " participant's leadership, and **requests per term** are the requests the server counted for"
                    + " the two clients' sessions over the hand-overs of a round, per hand-over. **next leader after"
                    + " the hand-over call**: from the leader's own way of giving up (a latch's `close()`, a"
                    + " selector's return from `takeLeadership`, an initiator's `yield()`) to the other's grant"
                    + " (`isLeader`, `takeLeadership`, `onGranted`). **leader revoked after its connection is cut**:"
                    + " a leader on a client with a "
                    + LeaderScenario.SESSION_MS / 1000
                    + " s session whose bytes a proxy then holds back both ways, to the revocation its recipe"
                    + " delivers (`notLeader`, the interrupt of `takeLeadership`, `onRevoked`); **leader's client"
                    + " SUSPENDED** beside it: to the same client's SUSPENDED, Curator's word for a connection"
                    + " silent for two thirds of the session timeout. **next leader after"
                    + " kill -9**: a leader in a child JVM with a "
                    + LeaderScenario.SESSION_MS / 1000
                    + " s session, killed with SIGKILL so that its session is never closed, to the grant of a"
                    + " participant queued behind it. The cut and the kill happen once per side in each of the"
                    + " first "
                    + BenchPlan.LEADER_FAULT_ROUNDS
                    + " measured round(s), so their p50 is over that many; the server expires sessions on the grain"
                    + " of its tick.",
            "- **heap per waiting thread**: the heap in use after a collection while every virtual thread of the row"
                    + " waits for the lock, less the heap before they started, per thread (the median of the rounds)."
                    + " **without stack chunks**: the same two moments read as the live heap by class (HotSpot's class"
                    + " histogram, in process), less the virtual threads' stack chunks (`jdk.internal.vm.StackChunk`):"
                    + " a chunk holds a parked thread's frames, and their size follows the JIT's state when the"
                    + " threads park (two or three times as much in one run as in another), by more than the cuts of"
                    + " a lock's own objects the row should confirm; the target on the floor applies to this figure.",
            "- **heap per held lock**: "
                    + String.format(Locale.ROOT, "%,d", BenchPlan.HELD_LOCKS)
                    + " locks held at once by one client, one per path, each taken and released once before; the"
                    + " live heap's growth from before they are taken to all held, per lock, in a client JVM of its"
                    + " own (the server runs elsewhere), so only the client's heap counts; the median of the first "
                    + HeldLocksScenario.MEASURED_ROUNDS
                    + " rounds. **per lock object after its first use**: in the same child JVM, the live heap's growth"
                    + " from before the lock objects are made to all made, each taken and released once, per object.",
            "- **VirtualThreadPinned events**: JFR's `jdk.VirtualThreadPinned` (a virtual thread that blocked"
                    + " while pinned to its carrier; any duration, with stacks) while the row's virtual threads take"
                    + " one lock object once each in a fresh JVM, its first use included; **in the library's frames**:"
                    + " those whose stack has a frame of `dev.zklock.recipes` (zklock) or `org.apache.curator`"
                    + " (Curator). Counted in the first measured round.",
            "- **p50**, **p99**: the median and the 99th percentile over all rounds.",
            "- **floor**: the same work on the same server with no lock library (raw create and delete, a bare"
                    + " queue of nodes and watches): the least any lock can cost. **baseline**: the JDK's fair"
                    + " `ReentrantLock` among the same threads, no ZooKeeper. Both sit in the table after the main"
                    + " one: one value each, no counterpart, no ratio.",
            "- **load average**: the system's one-minute load average before the run and at its end (the end"
                    + " counts the bench's own work); above "
                    + MachineLoad.LOADED_PER_CORE
                    + " per core at the start, the header flags the machine as loaded.");

    private static final String NL = System.lineSeparator();

    private BenchMarkdown() {}

    /** Returns the report as Markdown. */
    static String of(BenchReport report) {
        StringBuilder out =
                new StringBuilder("_").append(report.setting()).append("_").append(NL);
        out.append(NL);
        List<String> bullets = new ArrayList<>();
        report.load().warning().ifPresent(warning -> bullets.add("**loaded machine**: " + warning));
        bullets.addAll(report.origin());
        bullets.forEach(line -> out.append("- ").append(line).append(NL));
        if (!bullets.isEmpty()) {
            out.append(NL);
        }
        LEGEND.forEach(line -> out.append(line).append(NL));
        out.append(NL);
        mainTable(report.rows(), out);
        List<FloorRow> floors = report.floorRows();
        if (!floors.isEmpty()) {
            out.append(NL)
                    .append("Floors and baselines, measured in the same run:")
                    .append(NL)
                    .append(NL);
            floorTable(floors, out);
        }
        out.append(NL).append(report.targetSummary("- missed: "));
        return out.append(NL).toString();
    }

    private static void mainTable(List<BenchRow> rows, StringBuilder out) {
        out.append(HEADER).append(NL);
        out.append("| --- | --- | --- | ---: | ---: | ---: | --- |").append(NL);
        String group = null;
        String scenario = null;
        for (BenchRow row : rows) {
            boolean newGroup = !row.group().equals(group);
            out.append(String.format(
                    "| %s | %s | %s | %s |%n",
                    newGroup ? row.group() : "",
                    newGroup || !row.scenario().equals(scenario) ? row.scenario() : "",
                    row.metric(),
                    String.join(" | ", row.cells(" met", " **missed**"))));
            group = row.group();
            scenario = row.scenario();
        }
    }

    private static void floorTable(List<FloorRow> rows, StringBuilder out) {
        out.append(FLOOR_HEADER).append(NL);
        out.append("| --- | --- | --- | ---: |").append(NL);
        String floor = null;
        String scenario = null;
        for (FloorRow row : rows) {
            boolean newFloor = !row.floor().equals(floor);
            out.append(String.format(
                    "| %s | %s | %s | %s |%n",
                    newFloor ? row.floor() : "",
                    newFloor || !row.scenario().equals(scenario) ? row.scenario() : "",
                    row.metric(),
                    BenchRow.shown(row.metric(), row.value())));
            floor = row.floor();
            scenario = row.scenario();
        }
    }
}
