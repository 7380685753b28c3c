package dev.zklock.recipes.test.partition;

import dev.zklock.recipes.test.history.History;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Judges the terms of the leadership workloads beyond what the lock checkers judge of them as holds (two leaders both
 * HELD are their overlaps and dishonest holds):
 *
 * <ol>
 *   <li><b>Every revoked delivered</b>: a term is <em>cut off</em> when the observer saw its session end ({@code
 *       session "<client> <session> expired"}, the session its holder recorded at the grant), or its client recorded
 *       its connection SUSPENDED or LOST, at least {@link #HEAR_NANOS} before the term ended (its release invoked, or
 *       the end of the history): the time a holder's next look needs to hear what its client heard. Its holder must
 *       have recorded a {@code state} IN_DOUBT or LOST before the term ended.
 *   <li><b>Epochs strictly growing</b>: in the order of their grants, each term's epoch (its token) is larger than
 *       every epoch granted before it on the election, whichever process held it; but a latch's term that resumes on
 *       its node after a suspension (the same process and session right after it) keeps its epoch.
 *   <li><b>The observer never behind by more than one event after a heal</b>: an event is a change of leader, a term
 *       granted (a hand-over is one change, its REVOKED and GRANTED told together after one look). At each
 *       checkpoint, a session timeout after a heal or just before the next fault starts, whichever is first, an
 *       observer ({@code <client>.obs ok leader} lines) whose client's connection had been up for {@link
 *       #SETTLE_NANOS} is behind by the terms granted at least {@link #SETTLE_NANOS} before the checkpoint with an
 *       epoch larger than that of the last change it told: a term granted within that time may not be told yet (a
 *       look is a listing and a read on a connection that may be slow; PartitionsIT once found an observer on a loaded
 *       machine that told a change 480 ms after it, two terms granted 237 and 35 ms before the checkpoint untold), an
 *       earlier one must be. At most one, as before. An observer that has told nothing by a checkpoint
 *       where a term was granted a settle time before is <em>silent</em> there (it missed every term so far); before
 *       the first such term there is nothing to tell (PartitionsIT's first fault once healed before any term of
 *       zklock's latch was granted, the clients' JVMs still starting, and all three observers were called silent).
 *   <li><b>Never a leader that is gone</b>: an observer's GRANTED is stale if its epoch is not larger than one it
 *       told GRANTED before, or if the observer process saw the term's session end more than {@link #SETTLE_NANOS}
 *       before it (the node went with the session).
 * </ol>
 *
 * <p>Cost: O(events + terms x (expiries + suspensions) + checkpoints x terms). Stateless and thread-safe; {@link
 * #check} is a pure function of the history.
 */
public final class LeadershipChecker {
    /** How long before a term's end its client must have heard of trouble for the term to owe a revocation: 50 ms. */
    static final long HEAR_NANOS = Duration.ofMillis(50).toNanos();

    /** How long a connection must have been up at a checkpoint, and how late a GRANTED may follow its session's end. */
    static final long SETTLE_NANOS = Duration.ofSeconds(1).toNanos();

    private LeadershipChecker() {}

    /**
     * Checks the elections {@code keys} of {@code history}.
     *
     * @param history the history
     * @param keys the elections' paths
     * @param observed those of them every client JVM observes
     * @param sessionTimeout the clients' session timeout: a checkpoint is at most this long after its heal
     * @return the result per election, in path order
     */
    public static Map<String, LeadershipResult> check(
            History history, Collection<String> keys, Collection<String> observed, Duration sessionTimeout) {
        LeadershipFacts facts = LeadershipFacts.of(history, keys);
        Map<String, LeadershipResult> results = new TreeMap<>();
        for (String key : keys) {
            List<LeadershipFacts.Term> terms = facts.terms.getOrDefault(key, List.of());
            List<String> missing = new ArrayList<>();
            long cutOff = 0;
            for (LeadershipFacts.Term term : terms) {
                OptionalLong cut = facts.cutAt(term, history.end());
                if (cut.isPresent()) {
                    cutOff++;
                    if (term.revoked() >= term.endOr(history.end())) {
                        missing.add(term + ", cut at " + cut.getAsLong());
                    }
                }
            }
            Observers observers =
                    new Observers(facts, key, terms, observed.contains(key) ? sessionTimeout.toNanos() : -1);
            results.put(
                    key,
                    new LeadershipResult(
                            key,
                            terms.size(),
                            cutOff,
                            cutOff - missing.size(),
                            missing,
                            regressions(terms),
                            observers.checkpoints,
                            observers.maxBehind,
                            observers.behind,
                            observers.silent,
                            observers.stale()));
        }
        return results;
    }

    private static List<String> regressions(List<LeadershipFacts.Term> terms) {
        List<String> found = new ArrayList<>();
        long highest = Long.MIN_VALUE;
        LeadershipFacts.Term highestTerm = null;
        for (LeadershipFacts.Term term : terms) { // in grant order
            if (term.epoch().isEmpty()) {
                continue;
            }
            long epoch = term.epoch().getAsLong();
            boolean resumed = epoch == highest // a latch's term paused by a suspension goes on, on its node
                    && term.process().equals(highestTerm.process())
                    && term.session().equals(highestTerm.session());
            // A term whose acquire was under way when the higher one was granted may have begun first: its ok came late
            // (a process paused between its grant and its record; PartitionsIT failed so once: the epoch then "went
            // back" by the record's time alone). Only a term asked for after the higher one's grant regresses.
            if (epoch < highest && term.invoked() < highestTerm.grant()) {
                continue; // it may have begun first: no regression, and the highest stays
            }
            if (epoch < highest || (epoch == highest && !resumed)) {
                found.add(term + " after " + highestTerm);
            } else {
                highest = epoch;
                highestTerm = term;
            }
        }
        return found;
    }

    /** The observers of one election, judged at each checkpoint. */
    private static final class Observers {
        private final LeadershipFacts facts;
        private final String key;
        private final List<LeadershipFacts.Term> terms;
        long checkpoints;
        long maxBehind;
        final List<String> behind = new ArrayList<>();
        final List<String> silent = new ArrayList<>();

        /** Judges at each checkpoint; none if {@code sessionNanos} is negative (an election no one observes). */
        Observers(LeadershipFacts facts, String key, List<LeadershipFacts.Term> terms, long sessionNanos) {
            this.facts = facts;
            this.key = key;
            this.terms = terms;
            for (int i = 0; sessionNanos >= 0 && i < facts.faults.size(); i++) {
                LeadershipFacts.Fault fault = facts.faults.get(i);
                if (fault.end() == Long.MAX_VALUE) {
                    continue;
                }
                long at = fault.end() + sessionNanos;
                for (LeadershipFacts.Fault next : facts.faults) {
                    if (next.start() > fault.end()) {
                        at = Math.min(at, next.start() - 1);
                        break;
                    }
                }
                judge(fault.end(), at);
            }
        }

        /** Judges every client JVM's observer of the election whose connection had settled at {@code at}. */
        private void judge(long heal, long at) {
            for (String client : facts.connections.keySet()) { // every client JVM records its connection, and observes
                if (!facts.upThrough(client, at - SETTLE_NANOS, at)) {
                    continue;
                }
                LeadershipFacts.Told last = null;
                for (LeadershipFacts.Told t : facts.told.getOrDefault(client + '\t' + key, List.of())) {
                    if (t.nanos() <= at) {
                        last = t;
                    }
                }
                checkpoints++;
                long count = behindOf(last, at);
                if (last == null) {
                    if (count > 0) {
                        silent.add(client + " told nothing by " + at + " (heal at " + heal + "), " + count
                                + " terms granted by then");
                    }
                    continue;
                }
                maxBehind = Math.max(maxBehind, count);
                if (count > 1) {
                    behind.add(client + " " + count + " events behind at " + at + " (heal at " + heal + "), its last "
                            + last);
                }
            }
        }

        /**
         * The changes of leader the history has a settle time before {@code at} past {@code last}: the terms granted
         * by then with a larger epoch (every such term if {@code last} is null).
         */
        private long behindOf(LeadershipFacts.Told last, long at) { // last: null if it told nothing yet
            return terms.stream()
                    .filter(t -> t.grant() <= at - SETTLE_NANOS && t.epoch().isPresent())
                    .filter(t -> last == null || t.epoch().getAsLong() > last.epoch())
                    .count();
        }

        List<String> stale() {
            Map<Long, LeadershipFacts.Term> byEpoch = new HashMap<>();
            terms.forEach(t -> t.epoch().ifPresent(e -> byEpoch.put(e, t)));
            List<String> found = new ArrayList<>();
            facts.told.forEach((observer, told) -> {
                if (!observer.endsWith('\t' + key)) {
                    return;
                }
                long highest = Long.MIN_VALUE;
                for (LeadershipFacts.Told t : told) {
                    if (!t.granted()) {
                        continue;
                    }
                    LeadershipFacts.Term term = byEpoch.get(t.epoch());
                    Long gone = term == null ? null : facts.sessionEnds.get(term.client() + ' ' + term.session());
                    if (t.epoch() <= highest) {
                        found.add(observer.split("\t")[0] + " told " + t + " after epoch " + highest);
                    } else if (gone != null && gone + SETTLE_NANOS < t.nanos()) {
                        found.add(observer.split("\t")[0] + " told " + t + ", its session ended at " + gone);
                    }
                    highest = Math.max(highest, t.epoch());
                }
            });
            return found;
        }
    }
}
